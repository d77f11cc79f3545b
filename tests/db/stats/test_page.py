"""The statistics page: what the user sees, its filters, bad input, and its query budget."""

import re

import pytest
from django.urls import reverse

from .history import History

pytestmark = pytest.mark.django_db

URL = reverse("my_stats")
# Session, user, the bell's count, and the page's own grouped reads; the same however long the
# history.
MAX_QUERIES = 11


def figure(html: str, name: str) -> str:
    found = re.search(rf'data-figure="{name}">([^<]*)<', html)
    return found.group(1).strip() if found else None


def play_history(user, matches: int, deals_per_match: int = 4):
    for n in range(matches):
        history = History(
            "house",
            {"N": "easy", "E": "medium", "S": user, "W": "hard"},
            day=f"2024-03-{n % 28 + 1:02d}",
        )
        for d in range(deals_per_match):
            if d % 4 == 3:
                history.deal()
            elif d % 2:
                history.deal(
                    pitcher="S",
                    bid=2 + d % 3,
                    made=d % 3 == 1,
                    high="NS",
                    low="EW",
                    jack="NS",
                    game="EW",
                    score={"NS": 2, "EW": 2},
                )
            else:
                history.deal(
                    pitcher="E",
                    bid=3,
                    made=False,
                    high="NS",
                    low="NS",
                    jack=None,
                    game="NS",
                    score={"NS": 3, "EW": -3},
                )
        history.finish("NS" if n % 2 else "EW")


def test_a_visitor_is_sent_to_log_in(client):
    response = client.get(URL)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_nav_links_to_the_statistics(logged_in_client):
    assert f'href="{URL}"' in logged_in_client.get(reverse("home")).content.decode()


def test_a_newcomer_is_told_to_play_first(logged_in_client):
    html = logged_in_client.get(URL).content.decode()
    assert "Nothing to count yet" in html and '<svg class="chart' not in html


def test_the_page_shows_true_figures_and_charts(logged_in_client, user):
    history = History("house", {"N": "easy", "E": "easy", "S": user, "W": "easy"})
    history.deal()
    history.deal(
        pitcher="S",
        bid=3,
        made=True,
        high="NS",
        low="NS",
        jack="NS",
        game="EW",
        score={"NS": 3, "EW": 1},
    )
    history.deal(
        pitcher="W",
        bid=2,
        made=False,
        high="NS",
        low="EW",
        jack=None,
        game="NS",
        score={"NS": 2, "EW": -2},
    )
    history.finish("NS")
    response = logged_in_client.get(URL)
    html = response.content.decode()
    assert response.status_code == 200
    assert figure(html, "deals") == "3"
    assert figure(html, "win-rate") == "100%"
    assert figure(html, "average-points") == "+2.5"
    assert figure(html, "made-rate") == "100%"
    assert figure(html, "set-rate") == "100%"
    assert int(figure(html, "rating")) > 1000
    assert "Easy bots" in html
    # Rating history, bids by level and points taken, as inline SVG with a title each.
    assert html.count('<svg class="chart') == 3
    assert "Your rating after each match" in html and "Bids made, by level" in html
    assert "How often your side took each point" in html
    assert "The coach" not in html  # no coach data, no coach chart


def test_filters_narrow_the_figures(logged_in_client, user):
    History("house", {"N": "easy", "E": "easy", "S": user, "W": "easy"}, day="2024-03-01").deal()
    auction = History(
        "auction", {"P1": user, "P2": "hard", "P3": "hard", "P4": "hard"}, day="2024-04-01"
    )
    auction.deal()
    auction.deal()
    html = logged_in_client.get(URL, {"preset": "auction"}).content.decode()
    assert figure(html, "deals") == "2"
    html = logged_in_client.get(
        URL, {"since": "2024-03-01", "until": "2024-03-31"}
    ).content.decode()
    assert figure(html, "deals") == "1"
    html = logged_in_client.get(URL, {"preset": "family"}).content.decode()
    assert "No deal of yours finished under these filters." in html


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            {"since": "2024-05-01", "until": "2024-04-01"},
            "The start date must not be after the end date.",
        ),
        ({"since": "2024-13-45"}, "Enter a valid date."),
        ({"preset": "poker"}, "Select a valid choice."),
    ],
)
def test_bad_filters_get_a_clear_error(logged_in_client, user, query, message):
    History("house", {"N": "easy", "E": "easy", "S": user, "W": "easy"}).deal()
    response = logged_in_client.get(URL, query)
    html = response.content.decode()
    assert response.status_code == 400
    assert message in html
    assert figure(html, "deals") is None


def test_the_query_count_does_not_grow_with_the_history(
    logged_in_client, user, django_assert_max_num_queries, django_assert_num_queries
):
    play_history(user, matches=1)
    with django_assert_max_num_queries(MAX_QUERIES) as small:
        assert logged_in_client.get(URL).status_code == 200
    play_history(user, matches=30)
    with django_assert_num_queries(len(small.captured_queries)):
        html = logged_in_client.get(
            URL, {"preset": "house", "since": "2024-03-01"}
        ).content.decode()
    assert figure(html, "deals") == str(31 * 4)
