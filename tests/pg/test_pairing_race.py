"""Two people asking for players at the same moment end at one table, never two half-empty
ones: truly parallel requests (each on its own connection, as on two web processes), on
PostgreSQL where the queue row's lock really holds."""

import pytest
from django.utils import timezone

from games import engine
from games.lobby import services as lobby
from games.lobby.models import PairingQueue, PairingTicket
from games.models import Match

from .concurrency import in_parallel

pytestmark = [pytest.mark.pg, pytest.mark.django_db(transaction=True)]

TWO_HANDED = {"preset": "family", "cutthroat": True, "players": 2}


@pytest.mark.parametrize("queue_exists", [True, False], ids=["queue-exists", "first-ever"])
@pytest.mark.parametrize("round_", range(4))
def test_two_people_asking_at_once_sit_at_one_table(make_user, round_, queue_exists):
    alice, bob = make_user(f"alice{round_}"), make_user(f"bob{round_}")
    if queue_exists:  # people asked for these rules before: only the row lock keeps them apart
        PairingQueue.objects.create(rules_key=lobby.rules_key(engine.Rules.from_spec(TWO_HANDED)))
    results = in_parallel(
        lambda: lobby.do_find_players(
            alice, rules_spec=TWO_HANDED, bot_level="easy", wait_seconds=30
        ),
        lambda: lobby.do_find_players(
            bob, rules_spec=TWO_HANDED, bot_level="easy", wait_seconds=30
        ),
    )
    assert all(isinstance(r, PairingTicket) for r in results), results
    assert Match.objects.count() == 1
    match = Match.objects.get()
    assert {s.user.username for s in match.seats.all()} == {alice.username, bob.username}
    assert set(PairingTicket.objects.values_list("status", "match_id")) == {("seated", match.pk)}


def test_two_waiting_people_sit_together_when_both_waits_end_in_parallel(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    first = lobby.do_find_players(alice, rules_spec="house", bot_level="easy", wait_seconds=30)
    second = lobby.do_find_players(bob, rules_spec="house", bot_level="medium", wait_seconds=30)
    PairingTicket.objects.update(due_at=timezone.now())
    results = in_parallel(
        lambda: lobby.do_pairing_due(first.pk), lambda: lobby.do_pairing_due(second.pk)
    )
    assert not any(isinstance(r, Exception) for r in results), results
    assert Match.objects.count() == 1
    assert results[0] == results[1] == Match.objects.get()
    people = {s.user.username for s in Match.objects.get().seats.all() if s.user_id}
    assert people == {"alice", "bob"}


def test_asking_twice_at_once_leaves_one_request(make_user):
    alice = make_user("alice")
    results = in_parallel(
        lambda: lobby.do_find_players(alice, rules_spec="house", bot_level="easy", wait_seconds=30),
        lambda: lobby.do_find_players(
            alice, rules_spec="classic", bot_level="easy", wait_seconds=30
        ),
    )
    assert PairingTicket.objects.filter(status="waiting").count() == 1
    (refused,) = [r for r in results if isinstance(r, Exception)]
    assert "already looking for players" in str(refused)
