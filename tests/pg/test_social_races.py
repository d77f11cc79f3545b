"""Friend requests at the same moment, on PostgreSQL where the pair's unique constraint and the
row locks really race: two accepts at once, two people asking each other at once, and a request
sent as its target blocks the asker."""

import pytest

from games.errors import NotFound
from games.social import selectors, services
from games.social.models import Friendship, Notification
from games.tables import services as tables

from .concurrency import in_parallel

pytestmark = [pytest.mark.pg, pytest.mark.real_services, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("round_", range(3))
def test_two_accepts_at_once_make_one_friendship_and_one_notice(make_user, round_):
    alice, bob = make_user(f"alice{round_}"), make_user(f"bob{round_}")
    services.do_ask_friend(alice, bob.username)
    results = in_parallel(
        *[lambda: services.do_answer_friend(bob, alice.username, accept=True)] * 2
    )
    assert results == [None, None]
    assert Friendship.objects.get().accepted
    assert Notification.objects.filter(user=alice, kind="friend_accepted").count() == 1


@pytest.mark.parametrize("round_", range(3))
def test_two_people_asking_each_other_at_once_become_friends(make_user, round_):
    alice, bob = make_user(f"alice{round_}"), make_user(f"bob{round_}")
    results = in_parallel(
        lambda: services.do_ask_friend(alice, bob.username),
        lambda: services.do_ask_friend(bob, alice.username),
    )
    assert all(isinstance(r, Friendship) for r in results), results
    assert Friendship.objects.count() == 1
    assert selectors.are_friends(alice.pk, bob.pk)


@pytest.mark.parametrize("round_", range(3))
def test_a_request_as_its_target_blocks_the_asker_never_reaches_them(make_user, round_):
    alice, bob = make_user(f"alice{round_}"), make_user(f"bob{round_}")
    results = in_parallel(
        lambda: services.do_ask_friend(alice, bob.username),
        lambda: tables.do_set_personal_block(bob, alice.username, "block", True),
    )
    # The request was refused, or made and hidden: bob never sees alice ask, nor her him.
    assert isinstance(results[0], Friendship | NotFound), results
    assert selectors.pending_requests(bob.pk) == ([], [])
    assert selectors.pending_requests(alice.pk) == ([], [])
    assert selectors.notifications(bob.pk) == [] and selectors.unread_count(bob.pk) == 0
    assert not selectors.are_friends(alice.pk, bob.pk)
