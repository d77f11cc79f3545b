from django.apps import AppConfig


class ReplayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.replay"
    label = "replay"
    verbose_name = "History and replay"
