"""Two submissions for the same turn make exactly one move: two tabs, a double click, a person
racing the stand-in bot, two people racing for one seat. Truly parallel, on PostgreSQL, where
`select_for_update` really locks (SQLite would serialise the threads anyway)."""

import time

import pytest
from django.test import Client

from games.core import selectors, turns
from games.core.turns import WaitingFor
from games.models import Action, Deal, Match
from games.tables import services as tables
from games.web import tasks

from .concurrency import in_parallel

pytestmark = [pytest.mark.pg, pytest.mark.django_db(transaction=True)]


def wait_until_quiet(match, quiet=1.5, limit=30):
    """Let the bots that a test's move woke (on the worker, with REDIS_URL) finish, so that none
    holds a row lock while the test database is flushed."""

    last, since, deadline = None, time.monotonic(), time.monotonic() + limit
    while time.monotonic() < deadline:
        version = Match.objects.filter(pk=match.pk).values_list("version", flat=True).first()
        if version != last:
            last, since = version, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
        time.sleep(0.1)


@pytest.fixture
def bobs_turn(user, bob):
    """A shared table where bob (West) opens the bidding: a person's turn, nobody else to move."""
    match = tables.do_create_table(user, rules_spec="house", turn_timeout_seconds=600)
    tables.do_sit(match.pk, user=bob, position="W")
    tables.do_fill_with_bots(match.pk, host=user, level="easy")
    Match.objects.filter(pk=match.pk).update(
        first_dealer="S"
    )  # West, on the dealer's left, bids first
    match = tables.do_start_table(match.pk, host=user)
    turn = turns.waiting_on(match.pk)
    assert (turn.kind, turn.seat) == (WaitingFor.PERSON, "W")
    yield match, turn
    wait_until_quiet(match)


def legal(match, seat):
    state = selectors.deal_state(selectors.current_deal(match))
    return state.observation(seat).legal_actions()


def tab(user):
    client = Client()
    client.force_login(user)
    return client


def post(client, match, token, version):
    return lambda: (
        client.post(
            f"/matches/{match.pk}/act/",
            {"action": token, "version": version},
            HTTP_HX_REQUEST="true",
        ).status_code
    )


def actions(match):
    return list(
        Action.objects.filter(deal__match=match).values_list("sequence", "seat", "token", "user_id")
    )


def test_two_tabs_sending_different_moves_for_one_turn_make_one_move(bobs_turn, bob):
    match, turn = bobs_turn
    first, second = legal(match, "W")[:2]
    statuses = in_parallel(
        post(tab(bob), match, first, turn.version), post(tab(bob), match, second, turn.version)
    )
    made = [a for a in actions(match) if a[0] == 0]
    assert len(made) == 1 and made[0][2] in {first, second}
    assert sorted(statuses) == [204, 409]


def test_a_double_click_makes_one_move(bobs_turn, bob):
    match, turn = bobs_turn
    token = legal(match, "W")[0]
    client = tab(bob)
    statuses = in_parallel(*(post(client, match, token, turn.version) for _ in range(4)))
    assert [a[:3] for a in actions(match) if a[0] == 0] == [(0, "W", token)]
    assert all(status in (204, 409) for status in statuses), statuses


def test_a_person_racing_the_stand_in_bot_makes_one_move(bobs_turn, bob):
    match, turn = bobs_turn
    token = legal(match, "W")[-1]
    for _ in range(3):  # the race goes either way; each time exactly one move is made
        results = in_parallel(
            post(tab(bob), match, token, turn.version),
            lambda: tasks.stand_in_turn(match.pk, turn.version, "idle"),
        )
        made = [a for a in actions(match) if a[0] == turn.version - 1 or a[1] == "W"]
        assert len([a for a in made if a[1] == "W"]) == 1, (results, made)
        by_person = made[0][3] == bob.pk
        assert (results[0] == 204) == by_person and (results[1] == "stale") == by_person
        # Next round: the same moment again, once the bots woken by this move are done.
        wait_until_quiet(match)
        Action.objects.filter(deal__match=match).delete()
        Match.objects.filter(pk=match.pk).update(version=turn.version)

        Deal.objects.filter(match=match).update(
            phase="auction", to_act="W", pitcher="", bid=None, trump="", steps=0
        )


def test_two_people_racing_for_one_seat_one_sits(user, make_user):
    match = tables.do_create_table(user, rules_spec="house")
    carol, dave = make_user("carol"), make_user("dave")
    results = in_parallel(
        lambda: tables.do_sit(match.pk, user=carol, position="N"),
        lambda: tables.do_sit(match.pk, user=dave, position="N"),
    )
    assert sum(isinstance(r, Exception) for r in results) == 1
    assert match.seats.get(position="N").user in (carol, dave)
    assert not match.seats.filter(user__in=[carol, dave]).exclude(position="N").exists()
