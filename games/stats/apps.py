from django.apps import AppConfig


class StatsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.stats"
    label = "stats"
    verbose_name = "Statistics"

    def ready(self):
        from games.core import hooks

        from . import services

        # The core and the coach tell the statistics what happened; they do not import them.
        hooks.after_deal.register(services.on_deal_end)
        hooks.after_match.register(services.on_match_end)
        hooks.review_scored.register(services.do_record_review_accuracy)
