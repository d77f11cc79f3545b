from django.apps import AppConfig


class CoachConfig(AppConfig):
    name = "games.coach"
    label = "coach"
    verbose_name = "Coach"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # The replay shows the coach's marks on a player's own decisions, read from stored reviews.
        from games.replay.marks import register_marks_provider

        from .selectors import replay_marks

        register_marks_provider(replay_marks)
