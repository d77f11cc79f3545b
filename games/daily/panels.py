"""What a daily deal's table shows beside the cards (`hooks.table_panels`): which deal of which
day it is, and, once it is over, the way to the field's results and the next deal."""

from django.template.loader import render_to_string
from django.urls import reverse

from games.models import Match

from . import selectors
from .models import DailyPlay


def daily_panel(match: Match, position: str, **already_read) -> str:
    if not match.single_deal:
        return ""  # no query at any other table
    play = DailyPlay.objects.filter(match=match).select_related("deal__daily_set").first()
    if play is None:
        return ""
    day = play.deal.daily_set.day.isoformat()
    number = play.deal.number
    over = match.status == Match.Status.FINISHED
    return render_to_string(
        "daily/_panel.html",
        {
            "play": play,
            "number": number,
            "day": day,
            "over": over,
            "day_url": reverse("daily:day", args=[day]),
            "field_url": reverse("daily:deal", args=[day, number]) if over else "",
        },
    )


def player_panel(player, viewer) -> str:
    """The daily deals on a player's page (`hooks.player_panels`): nothing for someone who
    never played them."""
    record = selectors.player_record(player)
    if not record.days and not record.streak:
        return ""
    return render_to_string("daily/_player.html", {"record": record})
