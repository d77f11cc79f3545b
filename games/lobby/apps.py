from django.apps import AppConfig


class LobbyConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.lobby"
    label = "lobby"
    verbose_name = "Lobby"

    def ready(self):
        from games.signals import listing_changed

        from .realtime import announce_lobby

        # The core says a listed table changed (created, a seat taken or freed, started); the
        # lobby's screens are told over the channel layer.
        listing_changed.connect(announce_lobby, dispatch_uid="lobby-listing")
