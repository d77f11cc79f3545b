"""Finding a game: public tables in the lobby, one-click seats, quick pairing, manners, and
the refusals (full or started table, a private table's number, pairing twice, blocked)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.core import hooks, presenters, services
from games.lobby import selectors as lobby_selectors
from games.lobby import services as lobby
from games.lobby.models import PairingTicket
from games.models import ChatMessage, Match
from games.tables import services as tables

pytestmark = pytest.mark.django_db


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


def listed_ids():
    return [t.match_id for t in lobby_selectors.open_tables()]


def open_table(host, **options):
    """A public table whose host has its page open (a listed table's host is present)."""
    match = tables.do_create_table(host, rules_spec="house", public=True, **options)
    tables.do_presence(match.pk, user=host, delta=+1)
    return match


def seats_of(match):
    return {
        s.position: (s.user.username if s.user_id else s.bot_level or "") for s in match.seats.all()
    }


# --- Open tables -------------------------------------------------------------------------------


def test_only_public_forming_tables_with_a_free_seat_and_their_host_are_listed(user, bob):
    public = open_table(user)
    private = tables.do_create_table(bob, rules_spec="house")
    tables.do_presence(private.pk, user=bob, delta=+1)
    assert listed_ids() == [public.pk]
    tables.do_presence(public.pk, user=user, delta=-1)
    assert listed_ids() == []  # the host closed the table's page: it leaves the list
    tables.do_presence(public.pk, user=user, delta=+1)
    assert listed_ids() == [public.pk]
    tables.do_fill_with_bots(public.pk, host=user, level="easy")
    assert listed_ids() == []  # full: nothing to sit at


def test_the_listing_shows_rules_free_seats_by_partnership_and_the_host(user, bob):
    match = open_table(user, allow_spectators=True)
    lobby.do_take_seat(match.pk, user=bob, side="EW")
    (row,) = lobby_selectors.open_tables()
    assert row.host_name == "alice" and row.allow_spectators
    sides = {s.label: (s.free, s.people) for s in row.sides}
    assert sides == {"North & South": (1, ("alice",)), "East & West": (1, ("bob",))}
    page = client_for(bob).get(reverse("lobby:lobby")).content.decode()
    assert f'data-table="{match.pk}"' in page and "House rules" in page
    assert reverse("player", args=["alice"]) in page


def test_one_click_takes_the_first_free_seat_of_the_chosen_side(user, bob, carol):
    match = open_table(user)
    response = client_for(bob).post(reverse("lobby:take_seat", args=[match.pk]), {"side": "NS"})
    assert response.status_code == 302 and response["Location"] == reverse("table", args=[match.pk])
    assert seats_of(match)["N"] == "bob"
    lobby.do_take_seat(match.pk, user=carol)
    assert seats_of(match)["E"] == "carol"


def test_a_private_tables_number_in_the_lobby_url_finds_nothing_and_changes_nothing(user, bob):
    private = tables.do_create_table(user, rules_spec="house")
    version = private.version
    response = client_for(bob).post(reverse("lobby:take_seat", args=[private.pk]), {"side": "EW"})
    assert response.status_code == 404
    assert f"No open table in the lobby has the number {private.pk}" in response.content.decode()
    private.refresh_from_db()
    assert private.version == version and "bob" not in seats_of(private).values()


def test_a_full_or_started_table_is_refused_with_a_clear_message(user, bob, carol, make_user):
    match = open_table(user)
    tables.do_sit(match.pk, user=bob, position="W")
    tables.do_sit(match.pk, user=carol, position="N")
    tables.do_sit(match.pk, user=make_user("dave"), position="E")
    # Full: it has left the list, and a click from a screen that still showed it says why.
    assert match.pk not in listed_ids()
    with pytest.raises(tables.TableFull, match="This table is full"):
        lobby.do_take_seat(match.pk, user=make_user("erin"))
    tables.do_leave(match.pk, user=carol)
    with pytest.raises(services.GameError, match="That side of the table is full"):
        lobby.do_take_seat(match.pk, user=make_user("fay"), side="EW")
    tables.do_set_seat_bot(match.pk, host=user, position="N", level="easy")
    tables.do_start_table(match.pk, host=user)
    response = client_for(make_user("gus")).post(
        reverse("lobby:take_seat", args=[match.pk]), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 404 and "No open table" in response.content.decode()
    with pytest.raises(services.GameError, match="already started"):
        tables.do_sit(match.pk, user=make_user("hal"), position="N")


# --- Manners -----------------------------------------------------------------------------------


def test_a_blocked_person_neither_sees_nor_sits_at_the_hosts_tables(user, bob, carol):
    match = open_table(user)
    response = client_for(user).post(reverse("manners", args=["bob"]), {"kind": "block", "on": "1"})
    assert response.status_code == 302
    assert (
        lobby_selectors.visible_tables(
            lobby_selectors.open_tables(), lobby_selectors.hosts_blocking(bob)
        )
        == []
    )
    assert [
        t.match_id
        for t in lobby_selectors.visible_tables(
            lobby_selectors.open_tables(), lobby_selectors.hosts_blocking(carol)
        )
    ] == [match.pk]
    with pytest.raises(services.GameError):
        lobby.do_take_seat(match.pk, user=bob)
    with pytest.raises(services.Forbidden, match="blocked you"):
        tables.do_sit(match.pk, user=bob, position="W")
    assert "bob" not in seats_of(match).values()
    refused = client_for(bob).get(reverse("table", args=[match.pk]))
    assert refused.status_code == 403 and "blocked you" in refused.content.decode()
    tables.do_set_personal_block(user, other_name="bob", kind="block", on=False)
    tables.do_sit(match.pk, user=bob, position="W")
    assert seats_of(match)["W"] == "bob"


def test_muting_hides_a_persons_chat_for_the_muter_only(user, bob, carol):
    match = tables.do_create_table(user, rules_spec="house")
    tables.do_sit(match.pk, user=bob, position="W")
    tables.do_sit(match.pk, user=carol, position="N")
    tables.do_chat(match.pk, user=bob, text="hello from bob")
    tables.do_chat(match.pk, user=carol, text="hi from carol")
    tables.do_set_personal_block(user, other_name="bob", kind="mute", on=True)
    assert [line.text for line in presenters.chat_lines(match, user)] == ["hi from carol"]
    assert [line.text for line in presenters.chat_lines(match, carol)] == [
        "hello from bob",
        "hi from carol",
    ]
    assert ChatMessage.objects.count() == 2  # nothing is deleted
    with pytest.raises(services.GameError, match="yourself"):
        tables.do_set_personal_block(user, other_name="alice", kind="mute", on=True)


def test_the_host_removes_a_person_from_a_forming_table_and_only_the_host(user, bob, carol):
    match = open_table(user)
    tables.do_sit(match.pk, user=bob, position="W")
    tables.do_sit(match.pk, user=carol, position="N")
    response = client_for(carol).post(
        reverse("remove_from_table", args=[match.pk]), {"position": "W"}
    )
    assert response.status_code == 302 and seats_of(match)["W"] == "bob"
    client_for(user).post(reverse("remove_from_table", args=[match.pk]), {"position": "W"})
    assert seats_of(match)["W"] == ""
    with pytest.raises(services.GameError, match="cannot remove yourself"):
        tables.do_remove_from_table(match.pk, host=user, position="S")


# --- Quick pairing -----------------------------------------------------------------------------


TWO_HANDED = {"preset": "family", "cutthroat": True, "players": 2}


def test_two_people_asking_for_the_same_rules_are_seated_together(user, bob):
    first = lobby.do_find_players(user, rules_spec=TWO_HANDED, bot_level="easy", wait_seconds=30)
    assert first.status == PairingTicket.Status.WAITING and first.match_id is None
    second = lobby.do_find_players(bob, rules_spec=TWO_HANDED, bot_level="easy", wait_seconds=30)
    first.refresh_from_db()
    assert second.status == first.status == PairingTicket.Status.SEATED
    assert second.match_id == first.match_id
    match = Match.objects.get(pk=first.match_id)
    assert match.status == Match.Status.PLAYING and seats_of(match) == {"P1": "alice", "P2": "bob"}


def test_different_rules_do_not_pair(user, bob):
    lobby.do_find_players(user, rules_spec=TWO_HANDED, bot_level="easy", wait_seconds=30)
    other = lobby.do_find_players(bob, rules_spec="house", bot_level="easy", wait_seconds=30)
    assert other.status == PairingTicket.Status.WAITING
    assert not Match.objects.exists()


def test_pairing_twice_is_refused_and_changes_nothing(user):
    lobby.do_find_players(user, rules_spec="house", bot_level="easy", wait_seconds=30)
    with pytest.raises(services.GameError, match="already looking for players"):
        lobby.do_find_players(user, rules_spec=TWO_HANDED, bot_level="easy", wait_seconds=30)
    assert PairingTicket.objects.count() == 1
    response = client_for(user).post(
        reverse("lobby:find_players"),
        {
            "preset": "house",
            "seating": "partners",
            "players": 3,
            "bot_level": "easy",
            "wait_seconds": 30,
        },
    )
    assert (
        response.status_code == 400 and "already looking for players" in response.content.decode()
    )


def test_a_second_person_asking_is_seated_at_once_with_bots_of_the_first_ones_level(user, bob):
    """Issue 44: the second person sat out the first one's whole wait for two more people."""
    ticket = lobby.do_find_players(user, rules_spec="house", bot_level="hard", wait_seconds=30)
    second = lobby.do_find_players(bob, rules_spec="house", bot_level="easy", wait_seconds=30)
    match = Match.objects.get()
    assert second.status == PairingTicket.Status.SEATED and second.match == match
    # The two people play each other, each with a bot partner of the first one's level.
    assert seats_of(match) == {"S": "alice", "W": "bob", "N": "hard", "E": "hard"}
    assert set(PairingTicket.objects.values_list("status", flat=True)) == {"seated"}
    assert lobby.do_pairing_due(ticket.pk) == match  # its timer, when it fires, changes nothing
    assert Match.objects.count() == 1


def test_after_the_wait_bots_of_the_chosen_level_fill_the_empty_seats(user):
    ticket = lobby.do_find_players(user, rules_spec="house", bot_level="hard", wait_seconds=30)
    assert (
        lobby.do_pairing_due(ticket.pk) is None
    )  # too early: a timer that fired early does nothing
    PairingTicket.objects.filter(pk=ticket.pk).update(due_at=timezone.now() - timedelta(seconds=1))
    match = lobby.do_pairing_due(ticket.pk)
    assert sorted(seats_of(match).values()) == ["alice", "hard", "hard", "hard"]
    assert lobby.do_pairing_due(ticket.pk) == match  # a repeated timer changes nothing
    assert Match.objects.count() == 1


def test_a_long_wait_is_a_due_time_the_sweepers_tick_acts_on(user, bob):
    """Two minutes is longer than a broker timer may safely be: no timer, the sweeper seats it."""

    ticket = lobby.do_find_players(user, rules_spec="house", bot_level="easy", wait_seconds=120)
    hooks.sweeping.call_each()
    assert PairingTicket.objects.get(pk=ticket.pk).status == "waiting"  # not due yet
    PairingTicket.objects.filter(pk=ticket.pk).update(due_at=timezone.now() - timedelta(seconds=1))
    hooks.sweeping.call_each()
    seated = PairingTicket.objects.get(pk=ticket.pk)
    assert seated.status == "seated" and seated.match is not None
    assert Match.objects.count() == 1


def test_cancelling_leaves_the_queue_and_later_askers_do_not_meet_the_canceller(user, bob):
    client = client_for(user)
    response = client.post(
        reverse("lobby:find_players"),
        {
            "preset": "family",
            "seating": "cutthroat",
            "players": 2,
            "bot_level": "easy",
            "wait_seconds": 30,
        },
    )
    assert response.status_code == 302 and response["Location"] == reverse("lobby:pairing")
    assert "Finding players" in client.get(reverse("lobby:pairing")).content.decode()
    client.post(reverse("lobby:cancel_pairing"))
    ticket = lobby.do_find_players(bob, rules_spec=TWO_HANDED, bot_level="easy", wait_seconds=30)
    assert ticket.status == PairingTicket.Status.WAITING
    with pytest.raises(services.GameError, match="not looking for players"):
        lobby.do_cancel_pairing(user)


def test_a_wait_outside_the_allowed_range_is_refused(user):
    with pytest.raises(services.GameError, match="between"):
        lobby.do_find_players(user, rules_spec="house", bot_level="easy", wait_seconds=100000)
    assert not PairingTicket.objects.exists()


def test_a_person_waiting_can_start_at_once_with_bots(user, bob, carol):
    """Issue 28: a person waiting for a table of four sat out the whole wait they chose."""
    lobby.do_find_players(bob, rules_spec="house", bot_level="easy", wait_seconds=120)
    response = client_for(bob).post(reverse("lobby:start_now"))
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("table", args=[match.pk])
    # The person is seated, bots of their level in the other seats.
    assert sorted(v for v in seats_of(match).values()) == ["bob", "easy", "easy", "easy"]
    assert set(PairingTicket.objects.values_list("status", flat=True)) == {"seated"}
    # Asking again, or someone who is not waiting: told so, nothing made.
    again = client_for(carol).post(reverse("lobby:start_now"))
    assert again.status_code == 302 and Match.objects.count() == 1
