"""A prepared query (games/core/prepared.py) answers what Django's own query answers, at every step of
a match, with its SQL built once; a prepared write leaves the row Django's `save` leaves."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models.signals import post_save, pre_save
from django.db.transaction import TransactionManagementError
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext

from games.core import prepared, selectors, services, turns
from games.core.prepared import PreparedQuery
from games.engine.bots import choose
from games.models import Action, Deal, Match, Seat

# On PostgreSQL too (CI's second pass): Django compiles a query there with each column's range
# in mind, and a marker outside it compiled the kept state's catch-up to no query at all.
pytestmark = [pytest.mark.django_db, pytest.mark.real_services]


def as_django_reads_it(match_id: int):
    deal = Deal.objects.select_related("match").filter(match_id=match_id).order_by("-number")
    seats = Seat.objects.select_related("user").filter(match_id=match_id)
    waiting = Seat.objects.filter(match_id=match_id).values_list(
        "position",
        "user_id",
        "bot_level",
        "connections",
        "user__coach_enabled",
        "last_seen_at",
        "user__left_at",
    )
    return deal.first(), list(seats), list(waiting)


def rows(instance) -> dict:
    return {**model_to_dict(instance), "pk": instance.pk}


def test_the_prepared_reads_agree_with_djangos_through_a_whole_match(bob):
    match = services.do_start_match(bob, rules_spec="house", bot_level="easy")
    for _ in range(400):
        ours = selectors.current_deal_with_match(match.pk)
        theirs, seats, waiting = as_django_reads_it(match.pk)
        assert rows(ours) == rows(theirs) and rows(ours.match) == rows(theirs.match)
        read = selectors.seats_of(ours.match)
        assert [rows(s) for s in read] == [rows(s) for s in seats]
        assert [rows(s.user) for s in read if s.user] == [rows(s.user) for s in seats if s.user]
        assert turns._SEATS_FOR_WAITING(match.pk) == waiting
        assert rows(selectors.match_or_none(match.pk)) == rows(theirs.match)
        mine = selectors.viewer_seat(ours.match, bob)
        assert rows(mine) == rows(ours.match.seats.get(user=bob)) and mine.match is ours.match
        first, end = ours.steps // 2, ours.steps
        assert selectors._ACTIONS_BETWEEN(ours.pk, first, end) == list(
            Action.objects.filter(deal=ours, sequence__gte=first, sequence__lt=end)
            .order_by("sequence")
            .values_list("token")
        )
        with CaptureQueriesContext(connection) as queries:
            assert ours.match.pk == match.pk and all(s.match is ours.match for s in read)
        assert not queries.captured_queries  # the related rows came with the query
        if ours.match.status == Match.Status.FINISHED:
            break
        turn = turns.waiting_on(match.pk)
        if turn.kind == turns.WaitingFor.NEXT_DEAL:
            services.do_next_deal(match.pk, version=turn.version)
            continue
        state = selectors.current_state(ours)
        token = choose(state.observation(turn.seat), "easy")
        services.do_act(
            match.pk,
            seat=turn.seat,
            token=token,
            version=turn.version,
            actor=services.Actor.bot("easy"),
        )
    assert ours.match.status == Match.Status.FINISHED


@pytest.mark.django_db(transaction=True)  # a test's own transaction would hide the refusal
def test_the_locking_read_needs_a_transaction_and_finds_nothing_for_an_unknown_match(bob):
    match = services.do_start_match(bob, rules_spec="house", bot_level="easy")
    with pytest.raises(TransactionManagementError):
        services._LOCKED_MATCH_WITH_DEAL(match.pk)
    with transaction.atomic():
        locked, deal = services.lock_match_with_deal(match.pk)
        assert (locked.pk, deal.pk) == (match.pk, selectors.current_deal(match).pk)
    with transaction.atomic(), pytest.raises(services.NotFound):
        services.lock_match_with_deal(match.pk + 1000)


def test_a_query_whose_argument_is_not_one_parameter_is_refused_when_first_run():
    twice = PreparedQuery(lambda pk: Match.objects.filter(pk=pk, version=pk))
    with pytest.raises(ValueError, match="once"):
        twice(1)


def test_no_match_and_no_seat_are_none(bob, carol):
    match = services.do_start_match(bob, rules_spec="house", bot_level="easy")
    assert selectors.match_or_none(match.pk + 1000) is None
    assert selectors.viewer_seat(match, carol) is None


def test_a_query_needs_one_distinct_marker_for_each_argument():
    for markers in [(5,), (5, 5)]:
        query = PreparedQuery(
            lambda pk, version: Match.objects.filter(pk=pk, version=version), markers
        )
        with pytest.raises(ValueError, match="distinct markers"):
            query(1, 2)


def stored(model, pk) -> dict:
    """Every column of the row, as the database holds it."""
    return model.objects.filter(pk=pk).values().get()


def test_a_prepared_update_leaves_the_row_that_djangos_save_leaves(bob):
    match = services.do_start_match(bob, rules_spec="house", bot_level="easy")
    ours, theirs = Match.objects.get(pk=match.pk), Match.objects.get(pk=match.pk)
    for instance in (ours, theirs):
        instance.version += 7
        instance.totals = {"NS": -3, "EW": 11, "note": "a 'quoted' \"text\""}
        instance.status, instance.winner = Match.Status.FINISHED, "EW"
    theirs.save(update_fields=services._MOVE_FIELDS)
    django_row = stored(Match, match.pk)
    prepared.save_fields(ours, services._MOVE_FIELDS)
    our_row = stored(Match, match.pk)
    assert our_row.pop("updated_at") > django_row.pop("updated_at")  # auto_now: stamped again
    assert our_row == django_row and django_row["totals"]["note"] == "a 'quoted' \"text\""
    ours.pk = match.pk + 1000
    with pytest.raises(Match.DoesNotExist):
        prepared.save_fields(ours, ("version",))


def test_a_prepared_insert_makes_the_row_that_create_makes_and_keeps_the_unique_step(bob):
    match = services.do_start_match(bob, rules_spec="house", bot_level="easy")
    deal = selectors.current_deal(match)
    made = dict(deal=deal, sequence=30, seat="N", kind="card", token="AS", user=bob)
    ours = prepared.insert(Action(**made))
    theirs = Action.objects.create(**{**made, "sequence": 31})
    assert ours.pk is not None and ours.pk != theirs.pk
    ours_read, theirs_read = Action.objects.get(pk=ours.pk), Action.objects.get(pk=theirs.pk)
    assert ours_read.created_at is not None
    assert {**rows(ours_read), "pk": 0, "id": 0, "sequence": 0, "created_at": 0} == {
        **rows(theirs_read),
        "pk": 0,
        "id": 0,
        "sequence": 0,
        "created_at": 0,
    }
    with pytest.raises(IntegrityError), transaction.atomic():
        prepared.insert(Action(**made))  # the same (deal, sequence): the constraint refuses it


def test_the_models_written_without_save_have_no_save_signals():
    """The prepared writes send no `pre_save`/`post_save`: a receiver for these models would
    silently miss the move's writes."""
    for model in (Match, Deal, Action):
        for signal in (pre_save, post_save):
            assert not signal.has_listeners(model), (signal, model)
