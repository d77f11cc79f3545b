"""Asking the coach: advice stored once per position, dropped when the table moves on, reviews
after each deal with marks and accuracy, and the coach's own Celery queue."""

import pytest
from django.test import Client

from games.coach import selectors as coach_selectors
from games.coach import services as coach_services
from games.coach import tasks as coach_tasks
from games.coach.models import Advice, Review, Work
from games.core import dispatch, selectors, services, turns
from games.core.turns import WaitingFor
from games.engine import Deal
from games.engine.bots import choose
from games.engine.coach.advice import advise
from games.models import Action
from games.models import Deal as DealRow
from games.stats.models import DealSummary
from games.web.tasks import play_bot_turn
from setback_site.celery import app

from .play import person_move, play_until

pytestmark = pytest.mark.django_db


@pytest.fixture
def coached(user):
    user.coach_enabled = True
    user.save()
    return user


def at_a_choice(match, seat="S"):
    """Play on until the person at `seat` has a decision with more than one legal move."""

    def stop(m):
        turn = turns.waiting_on(m.pk)
        if turn.kind != WaitingFor.PERSON:
            return False
        state = selectors.deal_state(selectors.current_deal(m))
        return len(state.observation(seat).legal_actions()) > 1

    return play_until(match, stop=stop)


@pytest.fixture
def enqueued(monkeypatch):
    """Record what is enqueued instead of running it."""
    calls = []
    monkeypatch.setattr(
        dispatch, "enqueue", lambda task, *args, **kw: calls.append((task.name, args))
    )
    return calls


def test_the_coachs_tasks_go_to_the_coach_queue_and_the_bots_to_theirs():
    def queue_of(task):
        return app.amqp.router.route({}, task.name)["queue"].name

    assert coach_tasks.advise_position.name == "games.coach.tasks.advise_position"
    assert queue_of(coach_tasks.advise_position).endswith("coach")
    assert queue_of(coach_tasks.review_deal).endswith("coach")

    assert queue_of(play_bot_turn).endswith("bots")


def test_no_advice_is_asked_for_when_the_coach_is_off(
    user, enqueued, django_capture_on_commit_callbacks
):
    match = at_a_choice(services.do_start_match(user, rules_spec="house", bot_level="easy"))
    with django_capture_on_commit_callbacks(execute=True):
        assert coach_services.do_request_advice(match) is None
        services.announce_change(match.pk, match.version)
    assert not Advice.objects.exists() and not enqueued


def test_a_persons_turn_asks_for_advice_once(coached, enqueued, django_capture_on_commit_callbacks):
    match = at_a_choice(services.do_start_match(coached, rules_spec="house", bot_level="easy"))
    with django_capture_on_commit_callbacks(execute=True):
        services.announce_change(match.pk, match.version)  # what every move ends with
        services.announce_change(match.pk, match.version)  # the same position again
        coach_services.do_request_advice(match)  # and the table's socket opening, or the switch
    advice = Advice.objects.get()
    assert (advice.seat, advice.version, advice.status) == ("S", match.version, Work.PENDING)
    assert advice.step == selectors.deal_state(selectors.current_deal(match)).version
    assert enqueued == [("games.coach.tasks.advise_position", (advice.pk,))]


def test_advice_is_the_coachs_search_of_the_position_and_is_never_computed_twice(
    searches_in_this_process, coached, monkeypatch
):
    match = at_a_choice(services.do_start_match(coached, rules_spec="house", bot_level="easy"))
    advice = coach_services.do_request_advice(match)
    first = coach_tasks.advise_position(advice.pk)

    advice.refresh_from_db()
    assert advice.status == Work.READY and advice.seconds > 0
    obs = selectors.deal_state(selectors.current_deal(match)).observation(
        "S", match_totals=dict(match.totals)
    )
    assert first == advice.options[0]["action"]
    # The same search again (seeded by the position, the easy bots seated as easy bots) gives
    # the same card: a review or an exercise of this moment shows these very figures.
    again = advise(
        obs, seat_models=coach_selectors.seat_models(match, "S", selectors.current_deal(match))
    )
    assert [o.action for o in again] == [o["action"] for o in advice.options]
    assert {o["action"] for o in advice.options} == set(obs.legal_actions())

    def must_not_search(*args, **kwargs):
        raise AssertionError("the position was searched again")

    monkeypatch.setattr(coach_tasks, "advise", must_not_search)
    assert coach_tasks.advise_position(advice.pk) == "done"
    assert coach_services.do_request_advice(match).pk == advice.pk


def test_advice_for_a_position_the_table_has_left_is_dropped(coached):
    match = at_a_choice(services.do_start_match(coached, rules_spec="house", bot_level="easy"))
    advice = coach_services.do_request_advice(match)
    services.do_act(
        match.pk,
        seat="S",
        token=person_move(match, "S"),
        version=match.version,
        actor=services.Actor(user=coached),
    )
    assert coach_tasks.advise_position(advice.pk) == "stale"
    advice.refresh_from_db()
    assert advice.status == Work.PENDING and advice.options == []
    match.refresh_from_db()
    assert coach_selectors.coach_panel(match, "S").state in (
        "waiting",
        "thinking",
        "forced",
        "reviewing",
    )


def test_a_lost_claim_can_be_taken_again_but_a_live_one_cannot(coached):
    match = at_a_choice(services.do_start_match(coached, rules_spec="house", bot_level="easy"))
    advice = coach_services.do_request_advice(match)
    assert coach_services.do_claim(Advice, pk=advice.pk) is not None
    assert coach_services.do_claim(Advice, pk=advice.pk) is None  # another worker has it
    Advice.objects.filter(pk=advice.pk).update(
        started_at=advice.requested_at.replace(year=advice.requested_at.year - 1)
    )
    assert coach_services.do_claim(Advice, pk=advice.pk) is not None  # its worker died


def test_the_match_version_of_every_decision_can_be_found_again(user):
    seen = []

    def person(match, seat):
        deal_row = selectors.current_deal(match)
        seen.append((deal_row.pk, deal_row.actions.count(), match.version))
        return person_move(match, seat)

    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    play_until(match, stop=lambda m: m.deals.count() == 3, person=person)
    assert len({deal for deal, _, _ in seen}) >= 2
    for deal_id, step, version in seen:
        assert coach_selectors.version_at(DealRow.objects.get(pk=deal_id), step) == version


# --- Reviews ----------------------------------------------------------------------------------


def rig_first_deal(match, dealer, hands):
    """Give the match's first deal chosen cards (the rest of the deck is the stock)."""
    state = Deal(selectors.rules_of(match), dealer, {s: c.split() for s, c in hands.items()}, None)
    deal_row = selectors.current_deal(match)
    deal_row.dealer, deal_row.hands = dealer, {s: list(c) for s, c in state.dealt_hands.items()}
    deal_row.stock = list(state.stock)
    deal_row.to_act = state.to_act
    deal_row.save()
    match.first_dealer = dealer
    match.save()
    return deal_row


def test_a_review_marks_an_overbid_as_a_blunder_and_links_to_the_moment(
    coached, django_capture_on_commit_callbacks, enqueued
):
    # W deals; N passes, E bids 3. S holds J-9-3-2 of hearts with the ace, king and queen out:
    # a bid of 4 (all four points) is a blunder.
    match = services.do_start_match(coached, rules_spec="house", bot_level="easy")
    deal_row = rig_first_deal(
        match,
        "W",
        {
            "N": "AS 9S 5C 7D 8D 4S",
            "E": "AH KH 8H TD 9D 3C",
            "S": "JH 9H 3H 2H 9C 4D",
            "W": "KS QS TS 6H 5H AC",
        },
    )
    services.do_act(match.pk, seat="N", token="pass", version=0, actor=services.Actor.bot("easy"))
    services.do_act(match.pk, seat="E", token="3", version=1, actor=services.Actor.bot("easy"))
    services.do_act(match.pk, seat="S", token="4", version=2, actor=services.Actor(user=coached))
    with django_capture_on_commit_callbacks(execute=True):
        play_until(match, stop=lambda m: selectors.current_deal(m).is_over)
    review = Review.objects.get(deal=deal_row, seat="S")
    assert ("games.coach.tasks.review_deal", (review.pk,)) in enqueued

    assert coach_tasks.review_deal(review.pk).endswith("decisions")
    review.refresh_from_db()
    assert review.status == Work.READY and review.blunders >= 1
    # No advice was shown during the deal: the review says its figures came afterwards.
    assert {d["origin"] for d in review.decisions} == {"computed"}
    marks = coach_selectors.decision_marks(deal_row, "S")
    overbid = marks[0]
    assert (overbid.step, overbid.moment, overbid.action, overbid.mark) == (
        2,
        "Auction",
        "4",
        "blunder",
    )
    assert overbid.better is not None and overbid.better != "4" and overbid.loss >= 1.0
    assert overbid.replay_url == f"/replay/matches/{deal_row.match_id}/{deal_row.number}/2/"
    # Every decision the person made with a choice is judged, in order.
    assert [m.step for m in marks] == sorted(m.step for m in marks)
    accuracy = coach_selectors.deal_accuracy(deal_row, "S")
    assert 0 <= accuracy < 100
    assert coach_selectors.accuracy_by_deal(coached)[0]["accuracy"] == accuracy

    # The same verdict reaches the replay of the deal and the player's statistics.

    client = Client()
    client.force_login(coached)
    frame = client.get(overbid.replay_url.replace("/2/", "/3/")).content.decode()
    assert "blunder" in frame.lower()
    summary = DealSummary.objects.get(deal=deal_row, seat="S")
    assert summary.coach_accuracy == pytest.approx(accuracy / 100)


def test_a_review_reuses_the_advice_the_player_saw(coached, monkeypatch, searches_in_this_process):
    match = services.do_start_match(coached, rules_spec="house", bot_level="easy")
    advised = []

    def person(m, seat):  # the coach is asked at every decision, as at a real table
        advice = coach_services.do_request_advice(m)
        if advice is not None:
            coach_tasks.advise_position(advice.pk)
            advised.append(advice.step)
        return person_move(m, seat)

    match = play_until(match, stop=lambda m: selectors.current_deal(m).is_over, person=person)
    deal_row = selectors.current_deal(match)
    review = coach_services.do_request_review(deal_row, seat="S")
    searched = []
    real_advise = coach_tasks.advise

    def counting(*args, **kwargs):
        searched.append(args)
        return real_advise(*args, **kwargs)

    monkeypatch.setattr(coach_tasks, "advise", counting)
    coach_tasks.review_deal(review.pk)
    review.refresh_from_db()
    assert not searched
    assert [d["step"] for d in review.decisions] == advised
    assert {d["origin"] for d in review.decisions} == {"shown"}
    assert (
        coach_services.do_request_review(deal_row, seat="S").pk == review.pk
    )  # asked again: the same


def test_decisions_a_bot_made_for_the_person_are_not_theirs(coached):
    match = at_a_choice(services.do_start_match(coached, rules_spec="house", bot_level="easy"))
    # The person is away; a bot stands in for the rest of the deal.
    match = play_until(
        match,
        stop=lambda m: selectors.current_deal(m).is_over,
        person=lambda m, seat: choose(
            selectors.deal_state(selectors.current_deal(m)).observation(seat), "easy"
        ),
    )
    Action.objects.filter(seat="S").update(user=None, bot_level="easy")
    deal_row = selectors.current_deal(match)
    review = coach_services.do_request_review(deal_row, seat="S")
    coach_tasks.review_deal(review.pk)
    review.refresh_from_db()
    assert review.decisions == [] and review.accuracy is None


def test_advice_whose_worker_died_is_asked_for_again(
    coached, enqueued, django_capture_on_commit_callbacks
):
    match = at_a_choice(services.do_start_match(coached, rules_spec="house", bot_level="easy"))
    with django_capture_on_commit_callbacks(execute=True):
        advice = coach_services.do_request_advice(match)
    assert len(enqueued) == 1
    coach_services.do_claim(Advice, pk=advice.pk)  # a worker took it ... and died
    with django_capture_on_commit_callbacks(execute=True):
        assert coach_services.do_request_advice(match).pk == advice.pk
    assert len(enqueued) == 1  # too soon to tell
    Advice.objects.filter(pk=advice.pk).update(
        started_at=advice.requested_at.replace(year=advice.requested_at.year - 1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        coach_services.do_request_advice(match)
    assert enqueued == [("games.coach.tasks.advise_position", (advice.pk,))] * 2
    assert coach_tasks.advise_position(advice.pk) != "done"  # the new task may claim it
