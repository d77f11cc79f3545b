from django.apps import AppConfig


class LobbyConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.lobby"
    label = "lobby"
    verbose_name = "Lobby"

    def ready(self):
        from games.core import hooks

        from .realtime import announce_lobby
        from .services import sweep_overdue

        # The core says a listed table changed (created, a seat taken or freed, started); the
        # lobby's screens are told over the channel layer.
        hooks.listing_changed.register(announce_lobby)
        # Waits longer than a timer may be are due times: the sweeper's tick seats them.
        hooks.sweeping.register(sweep_overdue)
