from django.apps import AppConfig


class ReplayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.replay"
    label = "replay"
    verbose_name = "History and replay"

    def ready(self):
        from games.core import hooks

        from . import services

        # Steps waiting or being solved count in their person's budget (games/core/budget.py).
        hooks.work_in_flight.register(services.faceup_in_flight)
