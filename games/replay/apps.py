from django.apps import AppConfig


class ReplayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.replay"
    label = "replay"
    verbose_name = "History and replay"

    def ready(self):
        from games import dispatch

        from . import tasks

        dispatch.register_task(tasks.analyse_faceup)  # the services enqueue it by name
