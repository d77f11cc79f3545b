"""The coach's reviews are in the same budget as the other expensive work (issue 45, finding 1).

A review searches afresh each of the person's decisions the coach did not advise on (a deal
played with the coach off: every one of them), on the analysis lane. Before, any number could be
asked for, one deal after another, each queued on the analysis lane in front of everyone's
face-up steps. Now a new review is admitted to the person's budget with its estimated cost
(`coach.selectors.review_cost`), and beyond the person's share or a full lane it is answered
"busy, try later" with nothing asked. These tests assert the bounds on queued work, not times.
"""

import pytest
from django.test import Client
from django.urls import reverse

from games.coach import selectors as coach_selectors
from games.coach import services as coach_services
from games.coach.models import Advice, Review, Work
from games.core import budget, dispatch
from games.replay import services as replay_services
from tests.db.play import play_until
from tests.db.replays import play_deals, played_deals

pytestmark = pytest.mark.django_db


@pytest.fixture
def enqueued(monkeypatch):
    calls = []
    monkeypatch.setattr(
        dispatch, "enqueue", lambda task, *args, **kw: calls.append((task.name, args))
    )
    return calls


def deals_of(person, count, seed=5):
    """`count` deals the person played out with the coach off (a match over sooner is followed
    by another), and the person's seat (the same in every solo match)."""
    deals = []
    while len(deals) < count:
        match = play_deals(person, "house", played=count - len(deals), seed=seed)
        deals += played_deals(match)[: count - len(deals)]
        seed += 1
    return deals, match.seats.get(user=person).position


def ask(client, deal_row, capture):
    with capture(execute=True):
        return client.post(reverse("coach:review", args=[deal_row.pk]))


def test_reviews_asked_for_beyond_the_person_s_share_answer_busy_and_ask_nothing(
    logged_in_client, user, enqueued, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(budget, "PER_PERSON_ITEMS", 2)
    deals, _ = deals_of(user, 3)
    answers = [ask(logged_in_client, d, django_capture_on_commit_callbacks) for d in deals]
    assert [a.status_code for a in answers] == [302, 302, 429]
    refused = answers[-1]
    assert "Busy" in refused.content.decode() and refused["Retry-After"]
    # The bound on queued work: no more reviews asked for than the person's share.
    assert Review.objects.count() == 2
    assert [name for name, _ in enqueued] == ["games.coach.tasks.review_deal"] * 2
    # The refused deal still offers to ask again.
    page = logged_in_client.get(reverse("coach:review", args=[deals[-1].pk])).content.decode()
    assert "Review this deal" in page


def test_reviews_in_flight_count_in_the_same_budget_as_face_up_steps(
    logged_in_client, user, enqueued, django_capture_on_commit_callbacks
):
    deals, seat = deals_of(user, 2)
    with django_capture_on_commit_callbacks(execute=True):
        replay_services.do_request_faceup(
            deals[0], step=8, user=user
        )  # and the next two play steps
    assert ask(logged_in_client, deals[0], django_capture_on_commit_callbacks).status_code == 302
    lanes = [work.lane for work in budget.in_flight(user.pk)]
    assert lanes == [budget.ANALYSIS] * budget.PER_PERSON_ITEMS
    # Three steps and a review in flight: the person's share is taken, the next review waits.
    assert ask(logged_in_client, deals[1], django_capture_on_commit_callbacks).status_code == 429
    assert not Review.objects.filter(deal=deals[1]).exists()


def test_the_analysis_lane_is_bounded_whoever_asks_for_a_review(
    logged_in_client,
    user,
    bob,
    password,
    enqueued,
    django_capture_on_commit_callbacks,
    monkeypatch,
):
    monkeypatch.setitem(budget.LANE_ITEMS, budget.ANALYSIS, 1)
    mine, _ = deals_of(user, 1)
    theirs, _ = deals_of(bob, 1, seed=6)
    assert ask(logged_in_client, mine[0], django_capture_on_commit_callbacks).status_code == 302
    other = Client()
    other.login(username=bob.username, password=password)
    answer = ask(other, theirs[0], django_capture_on_commit_callbacks)
    assert answer.status_code == 503 and "Busy" in answer.content.decode()
    assert len(enqueued) == 1


def test_a_review_with_more_to_search_counts_as_more_of_the_budget(
    logged_in_client, user, enqueued, django_capture_on_commit_callbacks, monkeypatch
):
    deals, seat = deals_of(user, 3)
    dear, also_dear, advised = deals
    # The coach was on for the third deal: advice is stored for each of the person's decisions.
    for step in advised.actions.filter(seat=seat, user__isnull=False).values_list(
        "sequence", flat=True
    ):
        Advice.objects.create(deal=advised, step=step, seat=seat, version=0, status=Work.READY)
    cost = coach_selectors.review_cost(dear, seat)
    assert cost > 0 and coach_selectors.review_cost(advised, seat) == 0
    # A budget that one review with everything to search fills.
    monkeypatch.setattr(budget, "PER_PERSON_SECONDS", cost + 0.01)
    assert ask(logged_in_client, dear, django_capture_on_commit_callbacks).status_code == 302
    assert Review.objects.get(deal=dear).cost == cost
    assert ask(logged_in_client, also_dear, django_capture_on_commit_callbacks).status_code == 429
    assert ask(logged_in_client, advised, django_capture_on_commit_callbacks).status_code == 302


def test_a_finished_deal_s_own_review_waits_for_room_and_never_stops_the_table(
    user, enqueued, django_capture_on_commit_callbacks, monkeypatch
):
    user.coach_enabled = True
    user.save()
    deals, seat = deals_of(user, 1)
    match = deals[0].match
    assert match.deals.latest("number") == deals[0]  # the deal is over, the next not dealt
    monkeypatch.setattr(budget, "PER_PERSON_ITEMS", 0)  # no room at all
    # The coach, told the deal is over, asks for no review and raises nothing into the table.
    with django_capture_on_commit_callbacks(execute=True):
        coach_services.do_prepare(match.pk)
    assert not Review.objects.exists() and enqueued == []
    play_until(match, stop=lambda m: m.deals.count() > deals[0].number)
    # With room again, asking (the review page's button, the table's socket) asks for it.
    monkeypatch.setattr(budget, "PER_PERSON_ITEMS", 4)
    with django_capture_on_commit_callbacks(execute=True):
        coach_services.do_request_review(deals[0], seat=seat)
    assert Review.objects.filter(deal=deals[0], seat=seat).exists()
    assert enqueued == [("games.coach.tasks.review_deal", (Review.objects.get().pk,))]
