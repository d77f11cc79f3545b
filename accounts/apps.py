from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"

    def ready(self):
        from games import budget, dispatch

        from . import downloads, signals, tasks  # noqa: F401  (signals: the logout receiver)

        # The download service enqueues its build by name (it does not import the tasks module).
        dispatch.register_task(tasks.build_data_download)
        # Builds waiting or running count in their person's budget (games/budget.py).
        budget.register("data downloads", downloads.in_flight)
