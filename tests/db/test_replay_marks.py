"""Coach marks in a replay: a registered provider's stored marks show on the viewer's own
decisions, with the better option; guests and imports never ask for them."""

import pytest
from django.test import Client
from django.urls import reverse

from games.core import hooks
from games.core.marks import Mark
from games.replay import services as replay_services

from .replays import play_deals, played_deals

pytestmark = pytest.mark.django_db


@pytest.fixture
def coach(monkeypatch):
    """A stand-in for the coach app's stored advice: marks every decision of the asked seat,
    and also (wrongly) one of another seat's, which the replay must not show."""
    asked = []

    def provider(deal_row, seat):
        asked.append((deal_row.pk, seat))
        actions = list(deal_row.actions.order_by("sequence"))
        mine = [a for a in actions if a.seat == seat]
        other = next(a for a in actions if a.seat != seat)
        marks = [
            Mark(a.sequence, "blunder", "pass" if a.kind == "bid" else a.token, "Keep it simple.")
            for a in mine
        ]
        return marks + [Mark(other.sequence, "mistake", "pass")]

    monkeypatch.setattr(hooks.replay_marks, "_functions", [provider])
    return asked


def test_the_viewers_own_decisions_show_their_marks(logged_in_client, user, coach):
    match = play_deals(user, "house", played=1, seed=9)
    deal_row = played_deals(match)[0]
    seat = match.seats.get(user=user).position
    actions = list(deal_row.actions.order_by("sequence"))
    mine = next(a for a in actions if a.seat == seat)
    theirs = next(a for a in actions if a.seat != seat)

    page = logged_in_client.get(
        reverse("replay:deal_step", args=[match.pk, deal_row.number, mine.sequence + 1])
    )
    html = page.content.decode()
    assert 'class="coach-mark mark-blunder"' in html and "Keep it simple." in html
    assert mine.kind == "bid" and "better was <strong>Pass</strong>" in html
    assert coach == [
        (deal_row.pk, seat)
    ]  # one read of stored marks per page, for the viewer's seat

    other = logged_in_client.get(
        reverse("replay:deal_step", args=[match.pk, deal_row.number, theirs.sequence + 1])
    )
    assert 'class="coach-mark' not in other.content.decode()
    assert "move-marked mark-mistake" not in other.content.decode()


def test_a_guest_never_asks_the_coach(user, coach):
    match = play_deals(user, "house", played=1, seed=9)
    token = replay_services.do_share_match(match.pk, user=user)
    deal_row = played_deals(match)[0]
    page = Client().get(reverse("replay:shared_step", args=[token, deal_row.number, 3]))
    assert page.status_code == 200 and 'class="coach-mark' not in page.content.decode()
    assert coach == []


def test_a_mark_names_a_known_severity():
    with pytest.raises(ValueError, match="severity"):
        Mark(0, "brilliant", "KS")
