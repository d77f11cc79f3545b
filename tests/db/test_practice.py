"""Play on from here: a practice deal from any step of one's own finished deal reproduces the
exact position (cards, history, whose turn, what the seat sees), plays on against bots, shows
the real result beside its own at the end, and never reaches statistics or ratings."""

import pytest
from django.test import Client
from django.urls import reverse

from games.core import presenters, selectors, services
from games.models import Match
from games.stats.models import DealSummary, MatchRecord, Rating

from .play import play_until
from .replays import into_a_new_deal, play_deals, played_deals, random_person

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(user):
    match = play_deals(user, "house", played=1, seed=21)
    return match, played_deals(match)[0]


def _steps_worth_checking(deal_row):
    """The deal as dealt, mid-auction, the opening lead, a card mid-trick, the last card."""
    final = selectors.deal_state(deal_row)
    kinds = list(deal_row.actions.order_by("sequence").values_list("kind", flat=True))
    first_play = kinds.index("play")
    return sorted({0, 2, first_play, first_play + 5, len(final.history) - 1})


def test_a_branch_reproduces_the_exact_position(user, finished):
    match, deal_row = finished
    for step in _steps_worth_checking(deal_row):
        practice = services.do_start_practice(
            user, match_id=match.pk, number=deal_row.number, step=step, bot_level="medium"
        )
        assert practice.is_practice and practice.practice_of == deal_row
        then = selectors.deal_state(deal_row, upto=step)
        now = selectors.deal_state(selectors.current_deal(practice))
        assert now.dealer == then.dealer
        assert now.dealt_hands == then.dealt_hands
        assert now.history == then.history
        assert now.to_act == then.to_act and now.phase == then.phase
        for seat in now.rules.seats:
            assert now.hand(seat) == then.hand(seat)
        me = practice.seats.get(user=user).position
        assert me == match.seats.get(user=user).position  # in your own seat
        assert now.observation(me) == then.observation(me)
        assert (
            practice.seats.exclude(user=user).filter(bot_level="medium").count()
            == len(now.rules.seats) - 1
        )
        # The table shows that seat only its own cards.
        view = presenters.table_view(practice, me)
        assert [c.code for c in view.hand] == sorted(
            then.hand(me), key=[c.code for c in view.hand].index
        )
        assert all(not s.revealed for s in view.seats)


def test_a_practice_deal_plays_to_its_end_beside_what_really_happened_and_is_never_counted(
    user, finished
):
    match, deal_row = finished
    counts = (
        DealSummary.objects.count(),
        MatchRecord.objects.count(),
        list(Rating.objects.values_list("mu", "sigma", "matches")),
    )
    step = _steps_worth_checking(deal_row)[2]
    practice = services.do_start_practice(
        user, match_id=match.pk, number=deal_row.number, step=step, bot_level="easy"
    )
    practice = play_until(practice, person=random_person(3))
    assert practice.status == Match.Status.FINISHED and practice.winner == ""
    assert practice.deals.count() == 1 and practice.deals.get().is_over
    assert (
        DealSummary.objects.count(),
        MatchRecord.objects.count(),
        list(Rating.objects.values_list("mu", "sigma", "matches")),
    ) == counts

    me = practice.seats.get(user=user).position
    view = presenters.table_view(practice, me)
    assert view.practice.really is not None
    really = {name: delta for name, delta, _shown in view.practice.really["score"]}
    original = deal_row.result["score"]
    assert sorted(really.values()) == sorted(original.values())


def test_the_real_result_stays_hidden_until_the_practice_deal_ends(user, finished):
    match, deal_row = finished
    practice = services.do_start_practice(
        user, match_id=match.pk, number=deal_row.number, step=0, bot_level="easy"
    )
    view = presenters.table_view(practice, practice.seats.get(user=user).position)
    assert view.practice is not None and view.practice.really is None


def test_play_from_here_on_the_replay_page_opens_the_practice_table(
    logged_in_client, user, finished
):
    match, deal_row = finished
    step_url = reverse("replay:deal_step", args=[match.pk, deal_row.number, 4])
    page = logged_in_client.get(step_url).content.decode()
    practice_url = reverse("replay:practice", args=[match.pk, deal_row.number, 4])
    assert practice_url in page
    response = logged_in_client.post(practice_url, {"bot_level": "hard"})
    practice = Match.objects.get(practice_step=4)
    assert response.status_code == 302 and response["Location"] == reverse(
        "table", args=[practice.pk]
    )
    table = logged_in_client.get(response["Location"]).content.decode()
    assert "Practice" in table and "Not counted in statistics" in table
    # Kept: replayable and exportable once over.
    play_until(practice, person=random_person(4))
    assert (
        logged_in_client.get(reverse("replay:deal_step", args=[practice.pk, 1, 0])).status_code
        == 200
    )
    assert (
        logged_in_client.get(reverse("replay:deal_record", args=[practice.pk, 1])).status_code
        == 200
    )
    # In the history as a practice, never among the matches lost.
    assert "Practice</span>" in logged_in_client.get(reverse("replay:history")).content.decode()
    lost = logged_in_client.get(reverse("replay:history") + "?outcome=lost").content.decode()
    assert reverse("replay:match", args=[practice.pk]) not in lost


def test_play_from_here_is_refused_for_others_a_deal_in_play_the_last_step_and_unknown_levels(
    logged_in_client, user, make_user, password, finished
):
    match, deal_row = finished
    in_play = into_a_new_deal(match, actions=2, seed=21)
    last = deal_row.actions.count()
    before = Match.objects.count()
    assert (
        logged_in_client.post(
            reverse("replay:practice", args=[match.pk, in_play.number, 1])
        ).status_code
        == 404
    )
    assert (
        logged_in_client.post(
            reverse("replay:practice", args=[match.pk, deal_row.number, last])
        ).status_code
        == 404
    )
    assert (
        logged_in_client.post(
            reverse("replay:practice", args=[match.pk, deal_row.number, 1]),
            {"bot_level": "godlike"},
        ).status_code
        == 400
    )
    assert (
        logged_in_client.get(
            reverse("replay:practice", args=[match.pk, deal_row.number, 1])
        ).status_code
        == 405
    )
    other = Client()
    make_user("mallory")
    other.login(username="mallory", password=password)
    assert (
        other.post(reverse("replay:practice", args=[match.pk, deal_row.number, 1])).status_code
        == 404
    )
    assert Match.objects.count() == before


def test_the_table_of_a_practice_deal_played_to_its_end_shows_both_results(
    user, finished, logged_in_client
):
    match, deal_row = finished
    step = _steps_worth_checking(deal_row)[2]
    practice = services.do_start_practice(
        user, match_id=match.pk, number=deal_row.number, step=step, bot_level="easy"
    )
    practice = play_until(practice, person=random_person(3))
    page = logged_in_client.get(reverse("table", args=[practice.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "This time" in text and "What really happened" in text
    assert "Back to the replay" in text


def test_play_from_here_counts_with_new_matches_against_the_limit(user, finished, settings):
    match, deal_row = finished
    client = Client()
    client.force_login(user)
    url = reverse("replay:practice", args=[match.pk, deal_row.number, 0])
    limit = settings.REQUEST_LIMITS_PER_MINUTE["new_match"]
    answers = [client.post(url, {"bot_level": "hard"}).status_code for _ in range(limit + 1)]
    assert answers[:limit] == [302] * limit
    assert answers[limit] == 429
    assert Match.objects.filter(practice_of=deal_row).count() == limit
