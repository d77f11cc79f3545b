from django.apps import AppConfig


class StatsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.stats"
    label = "stats"
    verbose_name = "Statistics"

    def ready(self):
        from games import hooks
        from games.ratings import register_ratings_provider

        from . import services
        from .players import shown_ratings

        register_ratings_provider(shown_ratings)  # the lobby shows hosts' ratings through it
        # The core and the coach tell the statistics what happened; they do not import them.
        hooks.after_deal.register(services.on_deal_end)
        hooks.after_match.register(services.on_match_end)
        hooks.review_scored.register(services.do_record_review_accuracy)
