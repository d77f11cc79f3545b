from django.apps import AppConfig


class DailyConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.daily"
    label = "daily"
    verbose_name = "Daily deals"

    def ready(self):
        from games.core import hooks

        from . import panels, selectors, services

        # The core says a deal ended, in its transaction: a daily play's result is kept.
        hooks.after_deal.register(services.record_result)
        hooks.table_panels.register(panels.daily_panel)
        hooks.player_panels.register(panels.player_panel)
        # History names each daily play ("Daily 2026-12-03 · deal 2").
        hooks.match_labels.register(selectors.match_labels)
        # Today's set is made soon after midnight by whichever process's sweeper ticks first.
        hooks.sweeping.register(services.make_todays_set)
