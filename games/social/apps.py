from django.apps import AppConfig


class SocialConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games.social"
    label = "social"
    verbose_name = "Friends and clubs"

    def ready(self):
        from games.core import hooks

        from . import panels, selectors, services

        # A club's members know their club's tables, and only they sit at them.
        hooks.table_known_to.register(selectors.club_member_knows_table)
        hooks.seat_refusal.register(selectors.club_seat_refusal)
        hooks.player_actions.register(panels.friend_button)
        hooks.lobby_panels.register(panels.lobby_club_tables)
        # Presence left behind by a web process that died goes at the sweeper's tick.
        hooks.sweeping.register(services.do_expire_presence)
