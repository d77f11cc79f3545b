from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"

    def ready(self):
        from games.core import hooks

        from . import downloads, signals  # noqa: F401  (signals: the logout receiver)

        # Builds waiting or running count in their person's budget (games/core/budget.py).
        hooks.work_in_flight.register(downloads.in_flight)
