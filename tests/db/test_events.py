"""Setback nights through the real services: scheduled, checked in, started, played round by
round in each movement (people's moves by the first legal card, the bots' by the bot task),
someone leaving mid-round, a round cut by its time limit, and the standings computed from the
stored deals."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.services import do_delete_account
from games.core import dispatch, turns
from games.core import services as core
from games.core.errors import Forbidden, GameError
from games.events import selectors, services
from games.events.models import Entry, Event, EventTable
from games.models import Match
from games.social.models import Club, Membership, Notification
from tests.db.play import play_round

pytestmark = pytest.mark.django_db


def _people(make_user, count: int, prefix: str = "p") -> list:
    return [make_user(f"{prefix}{i}") for i in range(count)]


def _schedule(organiser, movement: str, now, **changes) -> Event:
    options = dict(
        name="Friday night",
        preset="house",
        movement=movement,
        rounds=3,
        deals_per_round=1,
        minutes_per_round=20,
        bot_level="easy",
        starts_at=now + timedelta(minutes=40),
        now=now,
    )
    options.update(changes)
    return services.do_schedule_event(organiser, **options)


def _checked_in(event: Event, users) -> None:
    for user in users:
        services.do_check_in(event.pk, user=user, now=event.starts_at - timedelta(minutes=5))


def _round_tables(event: Event, number: int) -> list[EventTable]:
    return list(EventTable.objects.filter(event=event, round=number).order_by("number"))


def _play_round(event: Event, number: int) -> None:
    for table in _round_tables(event, number):
        if table.match_id is not None:
            assert play_round(Match.objects.get(pk=table.match_id)).status == "finished"


def _seated(tables: list[EventTable]) -> list[int]:
    return [uid for table in tables for uid in table.seats.values() if uid is not None]


@pytest.mark.parametrize("movement", ["rotation", "winners", "swiss", "individual"])
def test_eight_people_play_three_rounds_and_one_leaves_mid_round(make_user, movement):
    now = timezone.now()
    people = _people(make_user, 8)
    event = _schedule(people[0], movement, now)
    _checked_in(event, people)
    assert services.do_start_event(event.pk, now=event.starts_at - timedelta(seconds=1)) is None

    services.sweep_events(now=event.starts_at)  # the sweeper starts it at its time
    event.refresh_from_db()
    assert (event.status, event.round_number) == ("playing", 1)
    first = _round_tables(event, 1)
    assert len(first) == 2 and sorted(_seated(first)) == sorted(p.pk for p in people)
    for table in first:  # each table is a shared match of the event's rules, everyone seated
        match = Match.objects.get(pk=table.match_id)
        assert match.deals_limit == 1 and match.invite_code
        assert {s.position: s.user_id for s in match.seats.all()} == table.seats

    _play_round(event, 1)
    services.sweep_events(now=event.starts_at + timedelta(minutes=1))
    event.refresh_from_db()
    assert event.round_number == 2
    second = _round_tables(event, 2)
    assert sorted(_seated(second)) == sorted(p.pk for p in people)
    if movement == "rotation":  # North stays
        assert [t.seats["N"] for t in second] == [t.seats["N"] for t in first]

    # Someone leaves mid-round: a stand-in finishes their table's round, and they play no more.
    leaver = next(uid for uid in second[0].seats.values() if uid is not None)
    leaver_user = next(p for p in people if p.pk == leaver)
    services.do_leave_event(event.pk, user=leaver_user)
    seat = Match.objects.get(pk=second[0].match_id).seats.get(user=None, bot_level="medium")
    assert second[0].seats[seat.position] == leaver

    _play_round(event, 2)
    services.sweep_events(now=event.starts_at + timedelta(minutes=2))
    event.refresh_from_db()
    third = _round_tables(event, 3)
    assert leaver not in _seated(third)
    assert sorted(_seated(third)) == sorted(p.pk for p in people if p.pk != leaver)

    _play_round(event, 3)
    services.sweep_events(now=event.starts_at + timedelta(minutes=3))
    event.refresh_from_db()
    assert event.status == "finished" and event.finished_at is not None
    assert EventTable.objects.filter(event=event).count() == 6  # one round never made twice

    rows = selectors.standings(event)
    ranked = {uid for row in rows for uid in row.user_ids}
    assert ranked == {p.pk for p in people}  # the leaver keeps the rounds they played
    assert [row.place for row in rows] == sorted(row.place for row in rows)
    for row in rows:
        assert len(row.cells) == 3
        played = [cell for cell in row.cells if cell is not None]
        assert row.points_for == sum(cell.points_for for cell in played)
        assert row.won == sum(1 for cell in played if cell.won)
    # The standings are the stored deals' scores: each table's points are its match's totals.
    for table in EventTable.objects.filter(event=event):
        match = Match.objects.get(pk=table.match_id)
        for row in rows:
            cell = row.cells[table.round - 1]
            if cell is not None and cell.match_id == match.pk:
                side = "NS" if any(table.seats[p] in row.user_ids for p in "NS") else "EW"
                assert cell.points_for == match.totals[side]


def test_a_round_out_of_time_is_finished_by_stand_ins_and_the_next_one_made(make_user):
    now = timezone.now()
    people = _people(make_user, 4)
    event = _schedule(people[0], "rotation", now, deals_per_round=3, rounds=2)
    _checked_in(event, people)
    services.do_start_event(event.pk, now=event.starts_at)
    event.refresh_from_db()
    [table] = _round_tables(event, 1)
    match = Match.objects.get(pk=table.match_id)
    assert turns.waiting_on(match.pk).kind == turns.WaitingFor.PERSON

    assert not services.do_round_time_up(event.pk, now=event.round_ends_at - timedelta(seconds=1))
    services.sweep_events(now=event.round_ends_at)
    match.refresh_from_db()
    assert match.stand_ins_from is not None
    # Nobody is waited for: every person's turn is now a bot's.
    assert turns.waiting_on(match.pk).kind == turns.WaitingFor.BOT
    play_round(match)
    match.refresh_from_db()
    assert match.status == "finished" and match.deals.count() == 1
    # Every card played by a stand-in (a stand-in's claim records the others' cards as theirs).
    assert all(a.user_id is None for a in match.deals.get().actions.all() if not a.claimed)

    services.sweep_events(now=event.round_ends_at + timedelta(seconds=5))
    event.refresh_from_db()
    assert event.round_number == 2 and len(_round_tables(event, 2)) == 1


def test_the_last_table_to_finish_makes_the_next_round_at_once(
    make_user, django_capture_on_commit_callbacks
):
    now = timezone.now()
    people = _people(make_user, 4)
    event = _schedule(people[0], "individual", now, rounds=2)
    _checked_in(event, people)
    services.do_start_event(event.pk, now=event.starts_at)
    [table] = _round_tables(event, 1)
    match = Match.objects.get(pk=table.match_id)
    with django_capture_on_commit_callbacks(execute=True):
        play_round(match)
    dispatch.wait_for_in_process_tasks()
    event.refresh_from_db()
    assert event.round_number == 2  # no sweeper: the table's end made it


def test_a_late_arrival_plays_from_the_next_round(make_user):
    now = timezone.now()
    people = _people(make_user, 5)
    event = _schedule(people[0], "rotation", now)
    _checked_in(event, people[:4])
    services.do_start_event(event.pk, now=event.starts_at)
    late = services.do_check_in(event.pk, user=people[4], now=event.starts_at)
    assert late.first_round == 2
    event.refresh_from_db()
    assert selectors.my_place(event, people[4]).table is None
    _play_round(event, 1)
    services.end_round_if_done(event.pk, 1)
    event.refresh_from_db()
    assert people[4].pk in _seated(_round_tables(event, 2))


def test_check_in_opens_half_an_hour_before_and_is_done_once(make_user):
    now = timezone.now()
    people = _people(make_user, 2)
    event = _schedule(people[0], "rotation", now, starts_at=now + timedelta(hours=2))
    with pytest.raises(GameError, match="Check-in opens"):
        services.do_check_in(event.pk, user=people[1], now=now)
    opens = event.starts_at - timedelta(minutes=30)
    services.do_check_in(event.pk, user=people[1], now=opens)
    services.do_check_in(event.pk, user=people[1], now=opens)  # a double click
    assert Entry.objects.filter(event=event).count() == 1


def test_nobody_checked_in_cancels_the_event(make_user):
    now = timezone.now()
    [organiser] = _people(make_user, 1)
    event = _schedule(organiser, "swiss", now)
    services.sweep_events(now=event.starts_at)
    event.refresh_from_db()
    assert event.status == "cancelled" and not EventTable.objects.exists()


def test_a_clubs_event_is_scheduled_by_its_admins_and_played_by_its_members(make_user):
    now = timezone.now()
    owner, member, stranger = _people(make_user, 3)
    club = Club.objects.create(name="Hall", invite_token="t" * 32)
    Membership.objects.create(club=club, user=owner, role="owner")
    Membership.objects.create(club=club, user=member, role="member")
    with pytest.raises(Forbidden):
        _schedule(member, "rotation", now, club_id=club.pk)
    event = _schedule(owner, "rotation", now, club_id=club.pk)
    [news] = Notification.objects.filter(user=member)  # the members hear of it
    assert news.url == f"/events/{event.pk}/" and "Friday night" in news.text
    assert not Notification.objects.filter(user=owner).exists()
    services.do_check_in(event.pk, user=member, now=event.starts_at)
    with pytest.raises(Forbidden):
        services.do_check_in(event.pk, user=stranger, now=event.starts_at)
    assert selectors.visible_event(event.pk, stranger) is None
    assert selectors.visible_event(event.pk, member) is not None


def test_bad_schedules_are_refused_and_one_person_cannot_schedule_without_limit(make_user):
    now = timezone.now()
    [organiser] = _people(make_user, 1)
    for changes, words in [
        ({"preset": "auction"}, "played in pairs"),
        ({"rounds": 0}, "rounds"),
        ({"deals_per_round": "many"}, "deals"),
        ({"minutes_per_round": 1000}, "minutes"),
        ({"starts_at": now - timedelta(hours=1)}, "future"),
        ({"name": "   "}, "name"),
    ]:
        with pytest.raises(GameError, match=words):
            _schedule(organiser, "rotation", now, **changes)
    with pytest.raises(GameError, match="movements"):
        _schedule(organiser, "chaos", now)
    for _ in range(services.MOST_SCHEDULED):
        _schedule(organiser, "rotation", now)
    with pytest.raises(GameError, match="waiting to start"):
        _schedule(organiser, "rotation", now)
    assert Event.objects.count() == services.MOST_SCHEDULED


def test_deleting_an_account_leaves_its_events(make_user, password):
    now = timezone.now()
    people = _people(make_user, 5)
    playing = _schedule(people[1], "rotation", now)
    _checked_in(playing, people[:4])
    services.do_start_event(playing.pk, now=playing.starts_at)
    waiting = _schedule(people[0], "individual", now)
    _checked_in(waiting, [people[0], people[4]])
    do_delete_account(people[0], password=password)
    waiting.refresh_from_db()
    assert waiting.status == "cancelled"
    entry = Entry.objects.get(event=playing, user=people[0])
    assert entry.left_at is not None
    [table] = _round_tables(playing, 1)
    seat = Match.objects.get(pk=table.match_id).seats.get(position=_position_of(table, people[0]))
    assert seat.user_id is None and seat.bot_level  # a stand-in plays the rest of the round


def _position_of(table: EventTable, user) -> str:
    return next(position for position, uid in table.seats.items() if uid == user.pk)


def test_a_deal_everyone_passed_is_dealt_again_and_not_counted_in_the_round(make_user):
    now = timezone.now()
    people = _people(make_user, 4)
    event = _schedule(people[0], "rotation", now, deals_per_round=1)
    _checked_in(event, people)
    services.do_start_event(event.pk, now=event.starts_at)
    [table] = _round_tables(event, 1)
    match = Match.objects.get(pk=table.match_id)
    for _ in range(4):  # everyone passes: the deal is thrown in
        turn = turns.waiting_on(match.pk)
        seat = match.seats.get(position=turn.seat)
        core.do_act(
            match.pk,
            seat=turn.seat,
            token="pass",
            version=turn.version,
            actor=core.Actor(user=seat.user),
        )
    match.refresh_from_db()
    assert match.status == "playing" and match.deals.get().result["thrown_in"]
    assert turns.waiting_on(match.pk).kind == turns.WaitingFor.NEXT_DEAL
