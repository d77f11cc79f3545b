"""Every write of a user's own preferences (the coach's switch is the coach's: games.coach.services)."""


def do_set_history_public(user, public: bool) -> None:
    """Whether the player page shows this player's ratings, record and recent matches."""
    user.history_public = public
    user.save(update_fields=["history_public"])
