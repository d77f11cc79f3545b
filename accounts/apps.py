from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"

    def ready(self):
        from games import budget

        from . import downloads, signals  # noqa: F401  (signals: the logout receiver)

        # Builds waiting or running count in their person's budget (games/budget.py).
        budget.register("data downloads", downloads.in_flight)
