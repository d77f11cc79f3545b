"""All cards face up in a player's replay: each play step of a finished deal is solved once in
a worker, stored, and shown on the cards with the card really played marked. Nothing for a
deal still in play, for someone else's match, or for a bid."""

import pytest
from django.test import Client
from django.urls import reverse

from games import engine
from games.coach.models import Advice, Work
from games.core import dispatch, selectors
from games.core import services as game_services
from games.engine.solver import analyse
from games.replay import services, tasks
from games.replay.models import FaceUpAnalysis
from setback_site.celery import app

from .replays import into_a_new_deal, play_deals, played_deals

pytestmark = pytest.mark.django_db


@pytest.fixture
def enqueued(monkeypatch):
    calls = []
    monkeypatch.setattr(
        dispatch, "enqueue", lambda task, *args, **kw: calls.append((task.name, args))
    )
    return calls


@pytest.fixture
def match(user):
    match = play_deals(user, "house", played=1, seed=5)
    into_a_new_deal(match, actions=2, seed=5)
    return match


def _play_steps(deal_row):
    """(step, state) for every card played in the deal (the position before it)."""
    final = selectors.deal_state(deal_row)
    state = selectors.deal_state(deal_row, upto=0)
    steps = []
    for step, (seat, token) in enumerate(final.history):
        if state.phase == engine.PLAY:
            steps.append((step, state.copy()))
        state.apply(token, seat)
    return steps


def _url(match, deal_row, step):
    return reverse("replay:faceup", args=[match.pk, deal_row.number, step])


def test_a_play_step_is_solved_once_in_a_worker_and_shown_on_the_cards(
    logged_in_client, match, enqueued, django_capture_on_commit_callbacks
):
    deal_row = played_deals(match)[0]
    step, state = _play_steps(deal_row)[8]  # the first card of the third trick
    url = _url(match, deal_row, step)
    with django_capture_on_commit_callbacks(execute=True):
        first = logged_in_client.post(url)
        again = logged_in_client.post(url)
    assert first.status_code == again.status_code == 200
    assert "Solving this position" in first.content.decode()
    row = FaceUpAnalysis.objects.get(deal=deal_row, step=step)
    assert enqueued[0] == ("games.replay.tasks.analyse_faceup", (row.pk,))
    assert len(enqueued) == FaceUpAnalysis.objects.count()  # each step enqueued once

    assert tasks.analyse_faceup(row.pk) != "done"
    assert tasks.analyse_faceup(row.pk) == "done"  # solved once

    page = logged_in_client.get(url).content.decode()
    truth = analyse(state)
    played = deal_row.actions.get(sequence=step).token
    for line in truth.lines:
        assert f'data-card="{line.card}"' in page
    assert page.count("faceup-actual") == 1
    actual_item = page.split(f'data-card="{played}"')[0].rsplit("<li", 1)[1]
    assert "faceup-actual" in actual_item
    assert page.count("faceup-best") == sum(1 for line in truth.lines if line.best)


def test_the_replay_step_asks_for_the_analysis_only_at_a_card_to_play(logged_in_client, match):
    deal_row = played_deals(match)[0]
    step, _ = _play_steps(deal_row)[0]
    play_page = logged_in_client.get(
        reverse("replay:deal_step", args=[match.pk, deal_row.number, step])
    )
    assert _url(match, deal_row, step) in play_page.content.decode()
    bid_page = logged_in_client.get(
        reverse("replay:deal_step", args=[match.pk, deal_row.number, 0])
    )
    assert "/faceup/" not in bid_page.content.decode()


def test_nothing_is_solved_for_a_bid_a_deal_in_play_or_someone_elses_match(
    logged_in_client, match, make_user, password, enqueued, django_capture_on_commit_callbacks
):
    other = Client()
    deal_row = played_deals(match)[0]
    in_play = selectors.current_deal(match)
    with django_capture_on_commit_callbacks(execute=True):
        bid = logged_in_client.post(_url(match, deal_row, 0))
        assert bid.status_code == 200
        assert logged_in_client.post(_url(match, in_play, 2)).status_code == 404
        make_user("mallory")
        other.login(username="mallory", password=password)
        assert other.post(_url(match, deal_row, _play_steps(deal_row)[0][0])).status_code == 404
        assert logged_in_client.post(_url(match, deal_row, 999)).status_code == 404
    assert not FaceUpAnalysis.objects.exists()
    assert enqueued == []


def test_a_step_too_large_to_solve_says_from_which_trick_the_figures_are_exact(
    logged_in_client, match, enqueued, monkeypatch, django_capture_on_commit_callbacks
):
    deal_row = played_deals(match)[0]
    steps = _play_steps(deal_row)
    opening = steps[0][0]
    # A node limit that the second trick's lead just fits: the opening lead, with a trick more
    # to search, exceeds it; the later tricks' leads mostly fit. (Solving the opening lead
    # itself to find its count took most of a minute: this stops it after `limit` nodes.)
    second_lead = next(later for _, later in steps if len(later.tricks) == 1)
    limit = analyse(second_lead).nodes
    monkeypatch.setattr(tasks, "MAX_NODES", limit)
    expected = None
    for _step, later in reversed(steps[1:]):  # every trick from `expected` on fits
        if later.current_trick:
            continue
        try:
            analyse(later, max_nodes=limit)
        except engine.solver.TooLarge:
            break
        expected = len(later.tricks) + 1
    assert expected is not None and expected > 1
    with django_capture_on_commit_callbacks(execute=True):
        logged_in_client.post(_url(match, deal_row, opening))
    assert tasks.analyse_faceup(FaceUpAnalysis.objects.get(step=opening).pk) == "too large"
    page = logged_in_client.get(_url(match, deal_row, opening)).content.decode()
    assert "Too many cards left" in page
    assert f"exact from trick {expected} on" in page
    assert "faceup-choice" not in page


def test_the_solver_runs_on_the_coach_queue_never_delaying_a_bot():
    assert app.amqp.router.route({}, tasks.analyse_faceup.name)["queue"].name.endswith("coach")


def test_the_next_play_steps_are_solved_ahead_so_stepping_on_finds_them_ready(
    logged_in_client, match, enqueued, django_capture_on_commit_callbacks
):
    deal_row = played_deals(match)[0]
    steps = [step for step, _ in _play_steps(deal_row)]
    with django_capture_on_commit_callbacks(execute=True):
        logged_in_client.post(_url(match, deal_row, steps[4]))
    asked = sorted(FaceUpAnalysis.objects.values_list("step", flat=True))
    assert asked == steps[4 : 5 + services.FACEUP_AHEAD]
    for row in FaceUpAnalysis.objects.all():
        tasks.analyse_faceup(row.pk)
    page = logged_in_client.get(_url(match, deal_row, steps[5])).content.decode()
    assert "faceup-choice" in page  # already solved when the player steps on


def test_one_person_has_a_few_steps_in_flight_and_asking_for_more_waits_without_solving(
    logged_in_client, match, enqueued, django_capture_on_commit_callbacks
):
    deal_row = played_deals(match)[0]
    steps = [step for step, _ in _play_steps(deal_row)]
    with django_capture_on_commit_callbacks(execute=True):
        answers = [logged_in_client.post(_url(match, deal_row, step)) for step in steps]
    assert FaceUpAnalysis.objects.count() == services.FACEUP_IN_FLIGHT_PER_PERSON
    assert len(enqueued) == services.FACEUP_IN_FLIGHT_PER_PERSON
    waiting = answers[-1].content.decode()
    assert answers[-1].status_code == 200
    assert "still being solved" in waiting and 'hx-trigger="load delay:1s"' in waiting
    # Once one is solved, the next request is taken.
    tasks.analyse_faceup(FaceUpAnalysis.objects.order_by("pk").first().pk)
    with django_capture_on_commit_callbacks(execute=True):
        logged_in_client.post(_url(match, deal_row, steps[-1]))
    assert FaceUpAnalysis.objects.filter(step=steps[-1]).exists()


def test_a_practice_copy_of_a_deal_gets_the_solved_steps_it_shares_without_solving_again(
    user, logged_in_client, match, enqueued, django_capture_on_commit_callbacks
):
    deal_row = played_deals(match)[0]
    steps = [step for step, _ in _play_steps(deal_row)]
    # A step of the last trick, which every solve finishes exactly: an early step may run out
    # of its time on a busy machine and show "too many cards left" instead of its choices.
    asked = steps[-2]
    with django_capture_on_commit_callbacks(execute=True):
        logged_in_client.post(_url(match, deal_row, asked))
    for row in FaceUpAnalysis.objects.all():
        tasks.analyse_faceup(row.pk)
    # Play on from a later step, to the end of the deal, as it was really played.
    copy = game_services.do_start_practice(
        user, match_id=match.pk, number=deal_row.number, step=steps[-1], bot_level="easy"
    )
    copy_deal = selectors.current_deal(copy)
    final = selectors.deal_state(deal_row)
    seat, token = final.history[steps[-1]]
    game_services.do_act(
        copy.pk, seat=seat, token=token, version=copy.version, actor=game_services.Actor.bot("easy")
    )
    copy.refresh_from_db()
    assert copy.status == copy.Status.FINISHED
    enqueued.clear()
    with django_capture_on_commit_callbacks(execute=True):
        page = logged_in_client.post(_url(copy, copy_deal, asked)).content.decode()
    assert enqueued == []  # nothing solved again
    assert "faceup-choice" in page


def test_where_the_coachs_card_is_not_best_with_every_card_known_the_panel_says_why(
    logged_in_client, user, match, enqueued, django_capture_on_commit_callbacks
):
    """Issue 47: the coach and the face-up analysis may differ; the panel says why, once."""
    deal_row = played_deals(match)[0]
    mine = match.seats.get(user=user).position
    step, state = next(
        (s, st)
        for s, st in _play_steps(deal_row)
        if st.to_act == mine
        and len(st.legal_actions()) > 1
        and not all(line.best for line in analyse(st).lines)
    )
    url = _url(match, deal_row, step)
    with django_capture_on_commit_callbacks(execute=True):
        logged_in_client.post(url)
    tasks.analyse_faceup(FaceUpAnalysis.objects.get(deal=deal_row, step=step).pk)
    truth = analyse(state)
    not_best = next(line.card for line in truth.lines if not line.best)
    best = next(line.card for line in truth.lines if line.best)
    advice = Advice.objects.create(
        deal=deal_row,
        step=step,
        seat=mine,
        version=0,
        status=Work.READY,
        phase="play",
        options=[{"action": not_best, "label": "", "reason": "", "figures": {}}],
    )
    page = logged_in_client.get(url).content.decode()
    assert "With every card known" in page
    assert "faceup-why" in page and "does not see the hidden cards" in page
    advice.options = [{"action": best, "label": "", "reason": "", "figures": {}}]
    advice.save()
    assert "faceup-why" not in logged_in_client.get(url).content.decode()
