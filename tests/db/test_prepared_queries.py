"""A prepared query (games/prepared.py) answers what Django's own query answers, at every step of
a match, with its SQL built once."""

import pytest
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext

from games import selectors, services, turns
from games.engine.bots import choose
from games.models import Action, Deal, Match, Seat
from games.prepared import PreparedQuery

# On PostgreSQL too (CI's second pass): Django compiles a query there with each column's range
# in mind, and a marker outside it compiled the kept state's catch-up to no query at all.
pytestmark = [pytest.mark.django_db, pytest.mark.real_services]


def as_django_reads_it(match_id: int):
    deal = Deal.objects.select_related("match").filter(match_id=match_id).order_by("-number")
    seats = Seat.objects.select_related("user").filter(match_id=match_id)
    waiting = Seat.objects.filter(match_id=match_id).values_list(
        "position", "user_id", "bot_level", "connections", "user__coach_enabled"
    )
    return deal.first(), list(seats), list(waiting)


def rows(instance) -> dict:
    return {**model_to_dict(instance), "pk": instance.pk}


def test_the_prepared_reads_agree_with_djangos_through_a_whole_match(bob):
    match = services.do_start_match(bob, "house", "easy")
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
            services.do_next_deal(match.pk, turn.version)
            continue
        state = selectors.current_state(ours)
        token = choose(state.observation(turn.seat), "easy")
        services.do_act(match.pk, turn.seat, token, turn.version, services.Actor.bot("easy"))
    assert ours.match.status == Match.Status.FINISHED


@pytest.mark.django_db(transaction=True)  # a test's own transaction would hide the refusal
def test_the_locking_read_needs_a_transaction_and_finds_nothing_for_an_unknown_match(bob):
    match = services.do_start_match(bob, "house", "easy")
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
    match = services.do_start_match(bob, "house", "easy")
    assert selectors.match_or_none(match.pk + 1000) is None
    assert selectors.viewer_seat(match, carol) is None


def test_a_query_needs_one_distinct_marker_for_each_argument():
    for markers in [(5,), (5, 5)]:
        query = PreparedQuery(
            lambda pk, version: Match.objects.filter(pk=pk, version=version), markers
        )
        with pytest.raises(ValueError, match="distinct markers"):
            query(1, 2)
