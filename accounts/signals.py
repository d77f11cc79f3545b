from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db.models.signals import pre_save
from django.dispatch import receiver

from games.core.limits import client_address
from games.core.sockets import end_sockets

from . import services
from .models import User


@receiver(user_logged_in)
def list_the_new_session(sender, request, user, **kwargs):
    # Sent after Django gave the session its new key: that key is the one to list.
    if request is not None and getattr(request, "session", None) is not None:
        if request.session.session_key is None:
            request.session.save()  # a session gets its key when first saved
        services.do_note_login(
            user,
            session_key=request.session.session_key,
            user_agent=request.META.get("HTTP_USER_AGENT", ""),
            address=client_address(request) if request.META.get("REMOTE_ADDR") else None,
        )


@receiver(pre_save, sender=User)
def end_the_sockets_of_a_new_password(sender, instance, **kwargs):
    """A password set anywhere (the admin, a shell, a reset): every socket of the user checks
    its own session, as after the password change page. `_password` is what Django's
    `set_password` keeps until the row is saved (AbstractBaseUser), the one sign of a new one."""
    if instance.pk is not None and getattr(instance, "_password", None) is not None:
        end_sockets(instance.pk)


@receiver(user_logged_out)
def end_the_sockets_of_a_logout(sender, request, user, **kwargs):
    # Sent before the session is flushed: name it, so its sockets close without a race.
    if user is not None and request is not None:
        end_sockets(user.pk, request.session.session_key)
        services.do_note_logout(request.session.session_key)
