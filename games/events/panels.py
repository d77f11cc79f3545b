"""What the events add to other pages: the panel beside an event table's cards (which round,
the way to the standings, and once the next round is made, the way to one's next table), a
player's events on their page, and History's label for an event's table."""

from django.template.loader import render_to_string

from games.models import Match

from . import selectors
from .models import EventTable


def table_panel(match: Match, position: str, **already_read) -> str:
    if match.deals_limit is None:
        return ""  # no query at any other table
    table = EventTable.objects.filter(match=match).select_related("event").first()
    if table is None:
        return ""
    event = table.event
    seat_user = next(
        (uid for pos, uid in table.seats.items() if pos == position and uid is not None), None
    )
    next_table = None
    left = (
        seat_user is not None
        and event.entries.filter(user_id=seat_user, left_at__isnull=False).exists()
    )
    if match.status == Match.Status.FINISHED and seat_user and event.round_number > table.round:
        found = selectors.table_of(event, seat_user, event.round_number)
        if found is not None and found.match_id is not None and not left:
            next_table = found
    # Leaving an event's table is leaving the event: the panel offers that, not "Leave table".
    may_leave = seat_user is not None and not left and event.status == event.Status.PLAYING
    return render_to_string(
        "events/_table_panel.html",
        {
            "table": table,
            "event": event,
            "match": match,
            "next_table": next_table,
            "may_leave": may_leave,
        },
    )


def player_panel(player, viewer) -> str:
    played = selectors.player_events(player)
    if not played:
        return ""
    return render_to_string("events/_player.html", {"played": played})


def match_labels(match_ids) -> dict[int, str]:
    tables = EventTable.objects.filter(match_id__in=list(match_ids)).select_related("event")
    return {
        t.match_id: f"{t.event.name} · round {t.round}, table {t.number}"
        for t in tables
        if t.match_id is not None
    }
