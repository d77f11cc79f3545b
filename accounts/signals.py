from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver

from .sockets import end_sockets


@receiver(user_logged_out)
def end_the_sockets_of_a_logout(sender, request, user, **kwargs):
    # Sent before the session is flushed: name it, so its sockets close without a race.
    if user is not None and request is not None:
        end_sockets(user.pk, request.session.session_key)
