from django.apps import AppConfig


class StatsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.stats"
    label = "stats"
    verbose_name = "Statistics"

    def ready(self):
        from games.ratings import register_ratings_provider

        from .players import shown_ratings

        register_ratings_provider(shown_ratings)  # the lobby shows hosts' ratings through it
