"""Friend requests, club invitations and presence at the same moment, on PostgreSQL where the
unique constraints and the row locks really race: two accepts at once, two people asking each
other at once, a request sent as (or just after) its target blocks the asker, a club invitation
accepted from two tabs at once, and two pages of one person opening at once."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.core.errors import NotFound
from games.social import selectors, services
from games.social.models import Friendship, Membership, Notification, Presence
from games.tables import services as tables

from .concurrency import in_parallel

pytestmark = [pytest.mark.pg, pytest.mark.real_services, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("round_", range(3))
def test_two_accepts_at_once_make_one_friendship_and_one_notice(make_user, round_):
    alice, bob = make_user(f"alice{round_}"), make_user(f"bob{round_}")
    services.do_ask_friend(alice, name=bob.username)
    results = in_parallel(
        *[lambda: services.do_answer_friend(bob, name=alice.username, accept=True)] * 2
    )
    assert results == [None, None]
    assert Friendship.objects.get().accepted
    assert Notification.objects.filter(user=alice, kind="friend_accepted").count() == 1


@pytest.mark.parametrize("round_", range(3))
def test_two_people_asking_each_other_at_once_become_friends(make_user, round_):
    alice, bob = make_user(f"alice{round_}"), make_user(f"bob{round_}")
    results = in_parallel(
        lambda: services.do_ask_friend(alice, name=bob.username),
        lambda: services.do_ask_friend(bob, name=alice.username),
    )
    assert all(isinstance(r, Friendship) for r in results), results
    assert Friendship.objects.count() == 1
    assert selectors.are_friends(alice.pk, bob.pk)


@pytest.mark.parametrize("round_", range(3))
def test_a_request_as_its_target_blocks_the_asker_never_reaches_them(make_user, round_):
    alice, bob = make_user(f"alice{round_}"), make_user(f"bob{round_}")
    results = in_parallel(
        lambda: services.do_ask_friend(alice, name=bob.username),
        lambda: tables.do_set_personal_block(bob, other_name=alice.username, kind="block", on=True),
    )
    # The request was refused, or made and hidden: bob never sees alice ask, nor her him.
    assert isinstance(results[0], Friendship | NotFound), results
    assert selectors.pending_requests(bob.pk) == ([], [])
    assert selectors.pending_requests(alice.pk) == ([], [])
    assert selectors.notifications(bob.pk) == [] and selectors.unread_count(bob.pk) == 0
    assert not selectors.are_friends(alice.pk, bob.pk)


def test_a_request_to_someone_who_has_just_blocked_you_is_refused_and_leaves_nothing(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    tables.do_set_personal_block(bob, other_name=alice.username, kind="block", on=True)
    with pytest.raises(NotFound):
        services.do_ask_friend(alice, name=bob.username)
    assert not Friendship.objects.exists()
    assert selectors.notifications(bob.pk) == [] and selectors.unread_count(bob.pk) == 0


@pytest.mark.parametrize("round_", range(3))
def test_a_club_invitation_accepted_twice_at_once_makes_one_member_and_one_notice(
    make_user, round_
):
    alice, bob = make_user(f"alice{round_}"), make_user(f"bob{round_}")
    club = services.do_create_club(alice, name=f"Race Club {round_}", public=False)
    services.do_invite_to_club(alice, club_id=club.pk, name=bob.username)
    results = in_parallel(
        *[lambda: services.do_answer_club_invite(bob, club_id=club.pk, accept=True)] * 2
    )
    # The second tab finds the invitation answered: refused as gone, or nothing to do.
    assert all(r is None or isinstance(r, NotFound) for r in results), results
    assert None in results
    assert Membership.objects.filter(club=club, user=bob).count() == 1
    assert Notification.objects.filter(user=alice, kind="club_event").count() == 1


@pytest.mark.parametrize("stale", [False, True])
def test_two_pages_opening_at_once_count_two_and_tell_the_friends_once(make_user, stale):
    alice, bob = make_user("alice"), make_user("bob")
    services.do_ask_friend(alice, name=bob.username)
    services.do_answer_friend(bob, name=alice.username, accept=True)
    if stale:  # a count left by a web process that died, untouched since
        Presence.objects.create(
            user=bob,
            connections=3,
            last_seen_at=timezone.now() - selectors.STALE_AFTER - timedelta(seconds=1),
        )
    results = in_parallel(*[lambda: services.do_come_online(bob.pk)] * 2)
    assert sorted(results) == [False, True], results
    assert Presence.objects.get(user=bob).connections == 2
