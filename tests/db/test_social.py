"""Friends, notifications and clubs through their services and pages (games/social)."""

import io
import json
import zipfile
from datetime import timedelta

import pytest
from django.core import mail as django_mail
from django.urls import reverse
from django.utils import timezone

from accounts.export import data_zip
from accounts.services import do_delete_account
from games.core import dispatch
from games.core import selectors as game_selectors
from games.core.errors import Forbidden, GameError, NotFound
from games.models import Match
from games.social import selectors, services
from games.social.models import (
    Club,
    ClubRequest,
    Friendship,
    MailChoice,
    Membership,
    Notification,
    Presence,
)
from games.tables import services as tables
from tests.db.play import play_until

pytestmark = pytest.mark.django_db


def befriend(a, b):
    services.do_ask_friend(a, name=b.username)
    services.do_answer_friend(b, name=a.username, accept=True)


# --- Friends ----------------------------------------------------------------------------------


def test_a_request_accepted_makes_friends_both_ways_and_tells_each(user, bob):
    services.do_ask_friend(user, name="BOB")  # names are read without case
    assert not selectors.are_friends(user.pk, bob.pk)
    [note] = Notification.objects.filter(user=bob)
    assert note.kind == "friend_request" and "alice" in note.text
    services.do_answer_friend(bob, name="alice", accept=True)
    assert selectors.are_friends(user.pk, bob.pk) and selectors.are_friends(bob.pk, user.pk)
    assert Notification.objects.filter(user=user, kind="friend_accepted").count() == 1


def test_asking_someone_who_asked_you_accepts_their_request(user, bob):
    services.do_ask_friend(user, name="bob")
    row = services.do_ask_friend(bob, name="alice")
    assert row.accepted and Friendship.objects.count() == 1


def test_a_declined_request_leaves_nothing_and_remove_ends_a_friendship(user, bob, carol):
    services.do_ask_friend(user, name="bob")
    services.do_answer_friend(bob, name="alice", accept=False)
    assert not Friendship.objects.exists()
    befriend(user, carol)
    services.do_remove_friend(carol, name="alice")
    assert not selectors.are_friends(user.pk, carol.pk)


def test_an_answered_request_leaves_the_bell_and_every_page_shows_the_true_count(
    client, user, bob, carol
):
    services.do_ask_friend(user, name="bob")
    services.do_ask_friend(carol, name="bob")
    client.force_login(bob)
    assert 'data-unread="2">2</span>' in client.get(reverse("home")).content.decode()
    services.do_answer_friend(bob, name="alice", accept=True)
    services.do_answer_friend(bob, name="carol", accept=False)
    assert selectors.unread_count(bob.pk) == 0
    assert 'data-unread="0"></span>' in client.get(reverse("home")).content.decode()


def test_one_cannot_answer_ones_own_request_nor_befriend_oneself(user, bob):
    services.do_ask_friend(user, name="bob")
    with pytest.raises(NotFound):
        services.do_answer_friend(user, name="bob", accept=True)
    with pytest.raises(GameError):
        services.do_ask_friend(user, name="alice")
    with pytest.raises(NotFound):
        services.do_ask_friend(user, name="nobody-here")


def test_a_block_overrides_friendship_and_hides_each_from_the_other(user, bob):
    befriend(user, bob)
    tables.do_set_personal_block(bob, other_name="alice", kind="block", on=True)
    assert not selectors.are_friends(user.pk, bob.pk)
    assert selectors.friend_rows(user.pk) == [] and selectors.friend_rows(bob.pk) == []
    # What each sent the other is hidden too: the request, the acceptance.
    assert selectors.notifications(bob.pk) == [] and selectors.unread_count(user.pk) == 0
    # Neither can reach the other: the same answer as for a name nobody has.
    with pytest.raises(NotFound, match="no player called"):
        services.do_ask_friend(user, name="bob")
    with pytest.raises(NotFound, match="no player called"):
        services.do_ask_friend(bob, name="alice")


def test_a_pending_request_from_someone_you_blocked_is_not_shown(user, bob):
    services.do_ask_friend(bob, name="alice")
    tables.do_set_personal_block(user, other_name="bob", kind="block", on=True)
    assert selectors.pending_requests(user.pk) == ([], [])


# --- Presence ---------------------------------------------------------------------------------


def test_presence_counts_pages_and_keeps_the_last_seen_time(user, bob):
    befriend(user, bob)
    assert services.do_come_online(bob.pk) is True
    assert services.do_come_online(bob.pk) is False  # a second tab
    [row] = selectors.friend_rows(user.pk)
    assert row.online and row.name == "bob"
    assert services.do_go_offline(bob.pk) is False
    assert services.do_go_offline(bob.pk) is True
    [row] = selectors.friend_rows(user.pk)
    assert not row.online and row.last_seen is not None
    assert services.do_go_offline(bob.pk) is True  # never below zero
    assert Presence.objects.get(user=bob).connections == 0


def test_a_count_left_by_a_dead_process_goes_offline_and_the_next_page_counts_afresh(
    user, bob, carol, monkeypatch
):
    """A web process that dies never counts its sockets down. Its people read as offline once
    no process has touched their count for STALE_AFTER (a live process touches it every
    HEARTBEAT), the sweeper's tick tells their friends they went, and their next page counts
    from zero, so their friends are told they came."""
    told = []
    monkeypatch.setattr(
        services.realtime,
        "tell_friends_after_commit",
        lambda user_id, targets, whole_list=False: told.append((user_id, sorted(targets))),
    )
    befriend(user, bob)
    befriend(carol, bob)
    for person in (user, bob, carol):
        services.do_come_online(person.pk)
    services.do_come_online(bob.pk)  # a second tab, on the process that is about to die
    long_ago = timezone.now() - selectors.STALE_AFTER - timedelta(seconds=1)
    Presence.objects.filter(user=bob).update(last_seen_at=long_ago)
    Presence.objects.filter(user=carol).update(last_seen_at=long_ago)
    # Alice's and carol's pages are held by a live process: its heartbeat touches them.
    assert services.do_keep_present([user.pk, carol.pk]) == 2

    assert selectors.online_ids([user.pk, bob.pk, carol.pk]) == {user.pk, carol.pk}
    [row] = selectors.friend_rows(user.pk)
    assert row.name == "bob" and not row.online
    told.clear()
    assert services.do_expire_presence() == 1
    assert told == [(bob.pk, sorted([user.pk, carol.pk]))]  # his friends who are here
    assert Presence.objects.get(user=bob).connections == 0
    assert services.do_expire_presence() == 0  # once

    # Bob opens a page again: his first, and his friends see him come.
    told.clear()
    assert services.do_come_online(bob.pk) is True
    assert told == [(bob.pk, sorted([user.pk, carol.pk]))]
    [row] = selectors.friend_rows(user.pk)
    assert row.online


def test_a_stale_count_counts_from_zero_without_the_sweeper(user, bob):
    befriend(user, bob)
    services.do_come_online(bob.pk)
    services.do_come_online(bob.pk)
    long_ago = timezone.now() - selectors.STALE_AFTER - timedelta(seconds=1)
    Presence.objects.filter(user=bob).update(last_seen_at=long_ago)
    assert services.do_come_online(bob.pk) is True
    assert Presence.objects.get(user=bob).connections == 1
    assert services.do_go_offline(bob.pk) is True


def test_a_friend_at_a_table_shows_a_watch_link_only_where_anyone_may_watch(user, bob, carol):
    befriend(user, bob)
    services.do_come_online(bob.pk)
    match = tables.do_create_table(bob, rules_spec="house", allow_spectators=True, public=True)
    tables.do_fill_with_bots(match.pk, host=bob, level="easy")
    tables.do_start_table(match.pk, host=bob)
    [row] = selectors.friend_rows(user.pk)
    assert row.table_id == match.pk and row.watch_url == f"/matches/{match.pk}/"
    Match.objects.filter(pk=match.pk).update(allow_spectators=False)
    [row] = selectors.friend_rows(user.pk)
    assert row.table_id == match.pk and row.watch_url == ""


# --- Table invitations, notifications, mail -----------------------------------------------


def test_inviting_a_friend_to_a_forming_table_notifies_them_with_join(user, bob, carol):
    befriend(user, bob)
    match = tables.do_create_table(user, rules_spec="house")
    note = services.do_invite_to_table(user, match_id=match.pk, name="bob")
    assert note.user == bob and note.action_label == "Join"
    assert note.url == reverse("invite", args=[match.invite_code])
    with pytest.raises(Forbidden):  # not a friend
        services.do_invite_to_table(user, match_id=match.pk, name="carol")
    befriend(carol, bob)
    with pytest.raises(NotFound):  # carol does not sit at alice's table
        services.do_invite_to_table(carol, match_id=match.pk, name="bob")
    tables.do_sit(match.pk, user=bob, position="W")
    with pytest.raises(GameError, match="already sits"):  # bob is here: no invitation
        services.do_invite_to_table(user, match_id=match.pk, name="bob")


def test_a_chosen_kind_comes_by_mail_too_and_the_others_do_not(
    user, bob, mailoutbox, django_capture_on_commit_callbacks
):
    bob.email = "bob@example.com"
    bob.save()
    services.do_set_mail_choices(bob, kinds=["table_invite", "no-such-kind"])
    assert set(MailChoice.objects.filter(user=bob).values_list("kind", flat=True)) == {
        "table_invite"
    }
    with django_capture_on_commit_callbacks(execute=True):
        befriend(user, bob)  # a friend request: not chosen, no mail
        match = tables.do_create_table(user, rules_spec="house")
        services.do_invite_to_table(user, match_id=match.pk, name="bob")
    assert dispatch.wait_for_in_process_tasks()
    [sent] = django_mail.outbox
    assert sent.to == ["bob@example.com"]
    assert "alice invites you to table" in sent.body and match.invite_code in sent.body


def test_mark_read_one_and_all(user, bob):
    services.do_ask_friend(user, name="bob")
    services.do_ask_friend(user.__class__.objects.create_user("dave"), name="bob")
    first = Notification.objects.filter(user=bob).first()
    assert selectors.unread_count(bob.pk) == 2
    assert services.do_mark_read(user, notification_id=first.pk) == 0  # not alice's
    assert services.do_mark_read(bob, notification_id=first.pk) == 1
    assert services.do_mark_read(bob) == 1 and selectors.unread_count(bob.pk) == 0


# --- Clubs ------------------------------------------------------------------------------------


def test_a_club_from_creation_to_deletion(user, bob, carol):
    club = services.do_create_club(
        user, name="  Tuesday   Pitch ", description="Lunch table", public=False
    )
    assert club.name == "Tuesday Pitch"
    with pytest.raises(GameError, match="already a club"):
        services.do_create_club(bob, name="tuesday pitch")
    # Invite-only: bob cannot ask; an invitation lets him in.
    with pytest.raises(NotFound):
        services.do_ask_to_join(bob, club_id=club.pk)
    services.do_invite_to_club(user, club_id=club.pk, name="bob")
    assert Notification.objects.filter(user=bob, kind="club_invite").exists()
    services.do_answer_club_invite(bob, club_id=club.pk, accept=True)
    assert selectors.membership(club.pk, bob).role == "member"
    with pytest.raises(Forbidden):  # a member cannot invite
        services.do_invite_to_club(bob, club_id=club.pk, name="carol")
    services.do_set_role(user, club_id=club.pk, name="bob", role="admin")
    services.do_invite_to_club(bob, club_id=club.pk, name="carol")
    services.do_join_by_link(carol, token=club.invite_token)  # the link works as well
    assert selectors.member_ids(club.pk) == {user.pk, bob.pk, carol.pk}
    with pytest.raises(Forbidden):  # an admin cannot remove the owner
        services.do_remove_member(bob, club_id=club.pk, name="alice")
    services.do_remove_member(bob, club_id=club.pk, name="carol", ban=True)
    with pytest.raises(Forbidden):
        services.do_join_by_link(carol, token=club.invite_token)
    assert selectors.visible_club(club.pk, carol) is None
    with pytest.raises(GameError):
        services.do_leave_club(user, club_id=club.pk)  # the owner hands over first
    services.do_hand_over(user, club_id=club.pk, name="bob")
    assert selectors.membership(club.pk, bob).role == "owner"
    assert selectors.membership(club.pk, user).role == "admin"
    services.do_leave_club(user, club_id=club.pk)
    with pytest.raises(NotFound):  # no longer a member of an invite-only club: none for her
        services.do_delete_club(user, club_id=club.pk)
    services.do_delete_club(bob, club_id=club.pk)
    assert not Club.objects.exists() and not Membership.objects.exists()


def test_asking_to_join_a_public_club_waits_for_an_admin(user, bob):
    club = services.do_create_club(user, name="Open Pitch")
    services.do_ask_to_join(bob, club_id=club.pk)
    assert Notification.objects.filter(user=user, kind="club_event").exists()
    assert selectors.membership(club.pk, bob) is None
    services.do_answer_join_request(user, club_id=club.pk, name="bob", accept=True)
    assert selectors.membership(club.pk, bob) is not None
    assert not ClubRequest.objects.exists()


def test_a_club_table_is_known_to_members_seats_members_only(user, bob, carol):
    club = services.do_create_club(user, name="Table Club")
    services.do_join_by_link(bob, token=club.invite_token)
    match = services.do_create_club_table(user, club_id=club.pk, rules_spec="house")
    assert not match.public
    assert game_selectors.came_through_invite(match, bob)
    assert not game_selectors.came_through_invite(match, carol)
    tables.do_sit(match.pk, user=bob, position="W")
    with pytest.raises(Forbidden, match="members of Table Club"):
        tables.do_sit(match.pk, user=carol, position="E")
    [listed] = selectors.open_club_tables([club.pk])
    assert listed.match_id == match.pk


def test_a_club_game_in_play_replays_its_finished_deals_to_members_only(client, user, bob, carol):
    club = services.do_create_club(user, name="Open Book Club")
    services.do_join_by_link(bob, token=club.invite_token)
    match = services.do_create_club_table(user, club_id=club.pk, rules_spec="house")
    tables.do_sit(match.pk, user=bob, position="W")
    tables.do_fill_with_bots(match.pk, host=user, level="easy")
    tables.do_start_table(match.pk, host=user)
    match = play_until(match, stop=lambda m: m.deals.filter(number=2).exists())
    assert match.status == Match.Status.PLAYING  # the game goes on; its first deal is over
    client.force_login(bob)
    club_page = client.get(reverse("social:club", args=[club.pk])).content.decode()
    assert f'data-club-game="{match.pk}"' in club_page and "in play" in club_page
    game = client.get(reverse("social:club_game", args=[club.pk, match.pk]))
    assert game.status_code == 200 and 'data-deal="1"' in game.content.decode()
    step = reverse("social:club_step", args=[club.pk, match.pk, 1, 0])
    assert client.get(step).status_code == 200
    playing = reverse("social:club_step", args=[club.pk, match.pk, 2, 0])
    assert client.get(playing).status_code == 404  # the deal in play stays hidden
    client.force_login(carol)  # not a member
    assert client.get(step).status_code == 404


def test_the_club_leaderboard_rates_club_games_between_members(user, bob, carol):
    club = services.do_create_club(user, name="Rated Club")
    services.do_join_by_link(bob, token=club.invite_token)
    match = services.do_create_club_table(user, club_id=club.pk, rules_spec="house")
    tables.do_sit(match.pk, user=bob, position="W")
    tables.do_fill_with_bots(match.pk, host=user, level="easy")
    tables.do_start_table(match.pk, host=user)
    assert play_until(match).status == Match.Status.FINISHED
    board = selectors.leaderboard(club)
    assert {row.name for row in board} == {"alice", "bob"}
    winner, loser = board
    assert winner.rating > 1500 > loser.rating and winner.won == 1 and loser.won == 0
    [game] = selectors.recent_games(club)
    assert game.replay_allowed
    user.history_public = False
    user.save()
    [game] = selectors.recent_games(club)
    assert not game.replay_allowed


# --- A person's data --------------------------------------------------------------------------


def test_download_holds_friends_notifications_and_clubs(user, bob):
    befriend(user, bob)
    club = services.do_create_club(user, name="Data Club")
    services.do_invite_to_club(user, club_id=club.pk, name="bob")
    archive = zipfile.ZipFile(io.BytesIO(data_zip(bob)))
    social = json.loads(archive.read("social.json"))
    assert social["friends"] == [{"player": "alice", "online": False}]
    assert {n["kind"] for n in social["notifications"]} == {"friend_request", "club_invite"}
    assert social["club_requests"] == [
        {"club": "Data Club", "kind": "invite", "at": social["club_requests"][0]["at"]}
    ]
    mine = json.loads(zipfile.ZipFile(io.BytesIO(data_zip(user))).read("social.json"))
    assert mine["clubs"][0]["club"] == "Data Club" and mine["clubs"][0]["role"] == "owner"


def test_deleting_an_account_takes_its_social_rows_and_name(user, bob, carol, password):
    befriend(user, bob)
    club = services.do_create_club(user, name="Heirs Club")
    services.do_join_by_link(bob, token=club.invite_token)
    solo = services.do_create_club(user, name="Solo Club")
    services.do_come_online(user.pk)
    do_delete_account(user, password=password)
    assert not Friendship.objects.exists() and not Presence.objects.filter(user=user).exists()
    assert not Notification.objects.filter(user=user).exists()
    assert selectors.membership(club.pk, bob).role == "owner"  # handed to the one left
    assert not Club.objects.filter(pk=solo.pk).exists()
    for note in Notification.objects.filter(user=bob):
        assert "alice" not in note.text


# --- Pages ------------------------------------------------------------------------------------


def test_home_shows_friends_online_and_only_public_results(client, user, bob, carol):
    befriend(user, bob)
    befriend(user, carol)
    services.do_come_online(bob.pk)
    for person in (bob, carol):
        match = tables.do_create_table(person, rules_spec="house")
        tables.do_fill_with_bots(match.pk, host=person, level="easy")
        tables.do_start_table(match.pk, host=person)
        play_until(match)
    carol.history_public = False
    carol.save()
    client.force_login(user)
    html = client.get(reverse("home")).content.decode()
    assert 'data-friend="bob"' in html and 'data-friend="carol"' not in html  # carol is offline
    assert 'data-friend-result="bob"' in html
    assert 'data-friend-result="carol"' not in html  # her history is private


def test_the_player_page_offers_add_friend_and_the_lobby_lists_club_tables(client, user, bob):
    client.force_login(user)
    html = client.get(reverse("player", args=["bob"])).content.decode()
    assert "data-add-friend" in html
    club = services.do_create_club(bob, name="Lobby Club")
    match = services.do_create_club_table(bob, club_id=club.pk, rules_spec="house")
    assert (
        f'data-club-table="{match.pk}"' not in client.get(reverse("lobby:lobby")).content.decode()
    )
    services.do_join_by_link(user, token=club.invite_token)
    assert f'data-club-table="{match.pk}"' in client.get(reverse("lobby:lobby")).content.decode()
    tables.do_set_personal_block(bob, other_name="alice", kind="block", on=True)
    html = client.get(reverse("player", args=["bob"])).content.decode()
    assert "data-add-friend" not in html


def test_friend_requests_are_limited_by_the_hour(client, user, settings, make_user):
    settings.REQUEST_LIMITS_PER_HOUR = {"friend_request": 2, "invite": 2}
    for name in ("p1", "p2", "p3"):
        make_user(name)
    client.force_login(user)
    url = reverse("social:ask_friend")
    assert client.post(url, {"name": "p1"}).status_code == 302
    assert client.post(url, {"name": "p2"}).status_code == 302
    refused = client.post(url, {"name": "p3"})
    assert refused.status_code == 429 and refused["Retry-After"] == "3600"
    assert "at most 2 an hour" in refused.content.decode()
    assert not Friendship.objects.filter(high__username="p3").exists()
