"""Issue 44 item 10: the site keeps two ratings, and wherever one is shown it is named
("Overall rating", "People rating") and explained in one sentence, the same everywhere."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.db.replays import finish_match
from tests.db.stats.test_players import finished

pytestmark = pytest.mark.django_db

OVERALL = "<strong>Overall rating</strong>: from every finished match, all rules, the computer"
PEOPLE = "<strong>People rating</strong>: one for each set of rules, only from matches where"


def client_for(user):
    client = Client()
    client.force_login(user)
    return client


def test_statistics_name_the_overall_rating_and_explain_it(user):
    finish_match(user, "house", seed=6)
    page = client_for(user).get(reverse("my_stats")).content.decode()
    assert re.search(
        r'<span class="stat-label">Overall rating</span>\s*<span[^>]*data-figure="rating">\d+<',
        page,
    )
    assert OVERALL in page and "everyone starts at 1000" in page
    assert ">Rating<" not in page


def test_the_player_page_names_both_and_explains_each(user, bob):
    finished(user, bob)
    page = client_for(bob).get(reverse("player", args=["alice"])).content.decode()
    assert re.search(r"Overall rating <strong data-overall-rating>\d+</strong>", page)
    assert "People ratings</h2>" in page and PEOPLE in page and OVERALL in page
    assert "Ratings against people" not in page


def test_the_leaderboard_and_the_account_page_say_which_rating(user, bob):
    for _ in range(10):  # the fewest matches to be listed
        finished(user, bob)
    board = client_for(bob).get(reverse("leaderboard") + "?preset=family").content.decode()
    assert "<th>People rating</th>" in board and PEOPLE in board
    account = client_for(user).get(reverse("account")).content.decode()
    assert re.search(r">overall rating \d+</span>", account)
