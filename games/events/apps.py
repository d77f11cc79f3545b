from django.apps import AppConfig


class EventsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.events"
    label = "events"
    verbose_name = "Setback nights"

    def ready(self):
        from games.core import hooks

        from . import panels, services

        # A deal or a match at an event's table changed the standings or ended a round.
        hooks.after_deal.register(services.after_deal)
        hooks.after_match.register(services.after_match)
        # Starts, time limits and lost round ends are due times: the sweeper's tick acts on them.
        hooks.sweeping.register(services.sweep_events)
        hooks.player_panels.register(panels.player_panel)
        hooks.table_panels.register(panels.table_panel)
        hooks.match_labels.register(panels.match_labels)
