"""The coach's panel and review pages: who may see them, what they show, and never a hidden card."""

import re

import pytest
from django.urls import reverse

from games.coach import services as coach_services
from games.coach import tasks as coach_tasks
from games.coach.models import Advice, Review, Work
from games.coach.views import panel_html
from games.core import presenters, selectors, services
from tests.hidden import hidden_cards

from .play import opened_by, person_move, play_until
from .test_coach_services import at_a_choice

pytestmark = pytest.mark.django_db

PANEL_MOMENT = re.compile(r'id="coach-panel"[^>]*data-deal="(\d+)" data-step="(\d+)"')


def panel_leaks(html, match, seat):
    """Hidden cards named in a coach panel, by code or by name, at the panel's own moment."""
    deal_number, step = map(int, PANEL_MOMENT.search(html).groups())
    found = []
    for card in hidden_cards(match, deal_number, step, seat):
        if (
            re.search(rf"(?<![A-Za-z0-9]){card}(?![A-Za-z0-9])", html)
            or presenters.card_view(card).name in html
        ):
            found.append(card)
    return found


@pytest.fixture
def coached_client(logged_in_client, user):
    user.coach_enabled = True
    user.save()
    return logged_in_client


def panel_url(match):
    return reverse("coach:panel", args=[match.pk])


def test_the_table_page_has_the_switch_and_the_panel_as_it_stands(logged_in_client, user):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    page = logged_in_client.get(reverse("table", args=[match.pk])).content.decode()
    assert 'id="coach-toggle"' in page
    assert 'id="coach-panel" class="coach-panel coach-off' in page and "Switch the coach on" in page
    # Drawn with the page, then changed only by the table's socket: the page fetches nothing that
    # could arrive after a newer panel.
    assert "hx-get" not in page[page.index('id="coach-panel"') :].split("</section>")[0]


def test_switching_the_coach_answers_the_switch_only(logged_in_client, user):
    response = logged_in_client.post(
        reverse("toggle_coach"), {"enabled": "on"}, HTTP_HX_REQUEST="true"
    )
    assert 'id="coach-toggle"' in response.content.decode()
    assert "HX-Trigger" not in response  # the panel comes over the table's socket
    user.refresh_from_db()
    assert user.coach_enabled


def test_switching_the_coach_on_asks_it_only_at_ones_own_table(client, make_user, user):
    user.coach_enabled = True
    user.save()
    match = at_a_choice(services.do_start_match(user, rules_spec="house", bot_level="easy"))
    client.force_login(make_user("mallory"))
    client.post(reverse("toggle_coach"), {"enabled": "on", "match": match.pk})
    assert not Advice.objects.exists()  # no work for the coach at a table mallory does not play at
    client.force_login(user)
    assert "The coach is weighing your options" in client.get(panel_url(match)).content.decode()
    assert not Advice.objects.exists()  # the panel only shows; the coach was asked by nobody


def test_the_panel_is_only_for_the_tables_players(client, make_user, user):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    assert client.get(panel_url(match)).status_code == 302  # to the log-in page
    client.force_login(make_user("mallory"))
    assert client.get(panel_url(match)).status_code == 404  # as for a match that does not exist
    assert client.get(reverse("coach:panel", args=[match.pk + 100])).status_code == 404


def test_with_the_coach_off_the_panel_invites_and_asks_nothing(logged_in_client, user):
    match = at_a_choice(services.do_start_match(user, rules_spec="house", bot_level="easy"))
    html = logged_in_client.get(panel_url(match)).content.decode()
    assert "Switch the coach on" in html and "coach-off" in html
    assert not Advice.objects.exists()


def test_at_the_players_turn_the_panel_thinks_then_ranks_the_options_with_figures(
    logged_in_client, user
):
    # The player opens the auction: the panel's first choice is a call.
    match = services.do_start_match(user, rules_spec="house", bot_level="easy", rng=opened_by("S"))
    assert at_a_choice(match).version == 0
    logged_in_client.post(
        reverse("toggle_coach"), {"enabled": "on", "match": match.pk}, HTTP_HX_REQUEST="true"
    )
    html = logged_in_client.get(panel_url(match)).content.decode()
    assert "The coach is weighing your options" in html
    advice = Advice.objects.get()  # switched on at the table, the coach was asked at once
    coach_tasks.advise_position(advice.pk)

    html = logged_in_client.get(panel_url(match)).content.decode()
    advice.refresh_from_db()
    options = advice.options
    shown = re.findall(r'class="coach-option[^"]*" data-action="([^"]+)"', html)
    assert shown == [o["action"] for o in options]  # every option, best first
    assert 'class="coach-option coach-best"' in html
    first = options[0]
    assert first["reason"].replace("'", "&#x27;") in html
    assert f"{first['figures']['expected_points']:+.2f}" in html
    for name in ("High", "Low", "Jack", "Game"):
        assert f"<span>{name}</span> {round(100 * first['figures'][f'p_{name.lower()}'])}%" in html
    assert re.search(r"<span>(Make|Set)</span> \d+%", html)
    assert advice.phase == "auction" and "Chance of making each bid" in html
    assert not panel_leaks(html, match, "S")


def test_advice_for_an_old_position_is_not_shown(coached_client, user):
    match = at_a_choice(services.do_start_match(user, rules_spec="house", bot_level="easy"))
    advice = coach_services.do_request_advice(match)
    coach_tasks.advise_position(advice.pk)
    services.do_act(
        match.pk,
        seat="S",
        token=person_move(match, "S"),
        version=match.version,
        actor=services.Actor(user=user),
    )
    match.refresh_from_db()
    html = panel_html(match, "S")
    assert "coach-option" not in html
    assert f'data-version="{match.version}"' in html


def test_a_whole_deal_of_panels_never_shows_a_hidden_card(coached_client, user):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    panels = []

    def person(m, seat):
        advice = coach_services.do_request_advice(m)
        if advice is not None:
            coach_tasks.advise_position(advice.pk)
        panels.append(panel_html(m, seat))
        return person_move(m, seat)

    def stop(m):
        panels.append(panel_html(m, "S"))
        return selectors.current_deal(m).is_over

    play_until(match, stop=stop, person=person)
    assert any("coach-option" in html for html in panels)
    for html in panels:
        assert not panel_leaks(html, match, "S")


# --- The review -------------------------------------------------------------------------------


@pytest.fixture
def finished_deal(user):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    match = play_until(
        match,
        stop=lambda m: (
            selectors.current_deal(m).is_over
            and not selectors.current_deal(m).result.get("thrown_in")
        ),
    )
    return selectors.current_deal(match)


def test_the_review_page_is_only_for_the_deals_players(client, make_user, finished_deal):
    url = reverse("coach:review", args=[finished_deal.pk])
    assert client.get(url).status_code == 302
    client.force_login(make_user("mallory"))
    assert client.get(url).status_code == 404
    assert client.post(url).status_code == 404
    assert not Review.objects.exists()
    assert client.get(reverse("coach:review", args=[finished_deal.pk + 100])).status_code == 404


def test_a_deal_in_progress_has_no_review(logged_in_client, user):
    match = at_a_choice(services.do_start_match(user, rules_spec="house", bot_level="easy"))
    url = reverse("coach:review", args=[selectors.current_deal(match).pk])
    assert logged_in_client.get(url).status_code == 404
    assert logged_in_client.post(url).status_code == 404
    assert not Review.objects.exists()


def test_a_player_asks_for_a_review_and_reads_it(logged_in_client, finished_deal):
    url = reverse("coach:review", args=[finished_deal.pk])
    assert "Review this deal" in logged_in_client.get(url).content.decode()
    response = logged_in_client.post(url)
    assert response.status_code == 302
    review = Review.objects.get(deal=finished_deal, seat="S")
    assert 'hx-trigger="every 2s"' in logged_in_client.get(url).content.decode()  # still at work
    coach_tasks.review_deal(review.pk)
    page = logged_in_client.get(url).content.decode()
    review.refresh_from_db()
    assert f"<strong>{review.accuracy:.0f}%</strong> accuracy" in page
    for decision in review.decisions:
        moment = (
            f"/replay/matches/{finished_deal.match_id}/{finished_deal.number}/{decision['step']}/"
        )
        assert f'href="{moment}"' in page


def test_after_the_deal_the_panel_shows_the_review(coached_client, finished_deal):
    match = finished_deal.match
    coach_services.do_prepare(
        match.pk
    )  # what the deal's last move asks of the coach, once committed
    html = coached_client.get(panel_url(match)).content.decode()
    assert "reviewing the deal" in html
    review = Review.objects.get(deal=finished_deal, seat="S")
    coach_tasks.review_deal(review.pk)
    html = coached_client.get(panel_url(match)).content.decode()
    review.refresh_from_db()
    assert review.status == Work.READY
    assert f"Your play in deal {finished_deal.number}" in html
    assert reverse("coach:review", args=[finished_deal.pk]) in html
