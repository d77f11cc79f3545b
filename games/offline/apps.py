from django.apps import AppConfig


class OfflineConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.offline"
    label = "offline"
    verbose_name = "Offline play"

    def ready(self):
        from games.core import hooks

        from . import services

        # Checks waiting or running count in their person's budget (games/core/budget.py).
        hooks.work_in_flight.register(services.in_flight)
