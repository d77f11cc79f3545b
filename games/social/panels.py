"""What the social app adds to other apps' pages through the core's hooks (HTML)."""

from django.template.loader import render_to_string

from . import selectors


def friend_button(person, viewer, request) -> str:
    """hooks.player_actions: "Add friend" (or where the two stand) on a player's page."""
    if not viewer.is_authenticated or viewer.pk == person.pk:
        return ""
    if selectors.blocked_between(viewer.pk, person.pk):
        return ""
    row = selectors.friendship(viewer.pk, person.pk)
    state = "none"
    if row is not None:
        state = "friends" if row.accepted else ("asked" if row.asked_by_id == viewer.pk else "asks")
    return render_to_string(
        "social/_friend_button.html", {"person": person, "state": state}, request=request
    )


def lobby_club_tables(user) -> str:
    """hooks.lobby_panels: the open tables of the person's clubs, for them only."""
    if not user.is_authenticated:
        return ""
    clubs = [m.club_id for m in selectors.my_clubs(user)]
    tables = selectors.open_club_tables(clubs) if clubs else []
    if not tables:
        return ""
    return render_to_string("social/_club_tables.html", {"tables": tables, "in_lobby": True})
