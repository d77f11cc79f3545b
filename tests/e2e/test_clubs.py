"""A club of three: alice makes an invite-only club and invites bob and carol, who accept from
their bells; alice makes a table "for the club", which the members find in the lobby and sit
at; the three play a club game, and the club page's leaderboard shows it afterwards. Dave, signed
in but no member, sees none of it: not the club page, not its table in the lobby nor the table
itself, not its replays.

The leaderboard counts finished matches (games.social.selectors.leaderboard), and a match to
11 takes several deals. The people play the first deal in the browser; the test then plays the
rest of the match through the same services (tests/db/play.py's first legal move for each
person), so the browser pass does not spend minutes clicking cards it has already shown work."""

import re

import pytest
from playwright.sync_api import expect

from games.core import selectors as game_selectors
from games.core import services as game_services
from games.models import Match
from tests.db.play import play_until

from .test_friends import play_a_deal_together
from .test_play_a_deal import sign_up
from .test_play_with_people import shot
from .test_replay import off_the_event_loop

pytestmark = pytest.mark.browser

CLUB = "Tuesday Pitch"


def test_a_club_of_three_plays_a_club_table_and_a_stranger_sees_none_of_it(
    site, browser, monkeypatch
):
    contexts = {name: browser.new_context() for name in ("alice", "bob", "carol", "dave")}
    pages = {name: ctx.new_page() for name, ctx in contexts.items()}
    alice, bob, carol, dave = (pages[n] for n in ("alice", "bob", "carol", "dave"))
    for name, page in pages.items():
        width = 390 if name == "bob" else 1280
        page.set_viewport_size({"width": width, "height": 844 if width == 390 else 900})
        sign_up(page, site, name)

    # Alice makes an invite-only club and invites the two by name.
    alice.goto(site + "/clubs/")
    alice.get_by_label("Name").fill(CLUB)
    alice.get_by_label("Short description").fill("Every Tuesday, after supper.")
    alice.get_by_label("Who may join").select_option("invite")
    alice.locator("[data-create-club]").click()
    expect(alice.locator("[data-club-name]")).to_have_text(CLUB)
    club_url = alice.url
    for name in ("bob", "carol"):
        alice.get_by_label("Player's name").fill(name)
        alice.locator("[data-invite-to-club]").click()
        expect(alice.get_by_text("Invitation sent.")).to_be_visible()

    # Each accepts from the bell: the notification's button opens the club, which lets them in.
    for page in (bob, carol):
        expect(page.locator("#bell-count")).to_have_text(re.compile(r"[1-9]"))
        page.locator("[data-bell]").click()
        expect(page.get_by_text(f"alice invites you to the club {CLUB}.")).to_be_visible()
        page.locator('[data-notification="club_invite"] [data-open-notification]').click()
        page.locator("[data-accept-club]").click()
        expect(page.locator('[data-member="alice"]')).to_be_visible()

    # The stranger: the club's page is not there for him.
    assert dave.goto(club_url).status == 404
    expect(dave.get_by_text("There is no such club.")).to_be_visible()
    assert CLUB not in dave.content()

    # A table for the club: partners, so that people sit on both sides (a bot in the fourth
    # seat) and the club's rating has someone to move.
    alice.goto(club_url)
    alice.locator("#club-preset").select_option("house")
    alice.locator("[data-new-club-table]").click()
    expect(alice.locator(".forming-seat").first).to_be_visible()
    match = Match.objects.get()
    table_url = f"{site}/matches/{match.pk}/"

    # Listed to the members in the lobby; they open it and sit.
    for name, page in (("bob", bob), ("carol", carol)):
        page.goto(site + "/lobby/")
        listed = page.locator(f'[data-club-table="{match.pk}"]')
        expect(listed).to_contain_text(CLUB)
        listed.get_by_role("link", name="Open").click()
        page.locator("[data-sit]:not([data-unarmed])").first.click()
        expect(alice.locator(".forming-seat", has_text=name)).to_be_visible()

    # Not to the stranger: not in his lobby, and its page does not seat or show him anything.
    dave.goto(site + "/lobby/")
    expect(dave.locator("h1").first).to_be_visible()
    assert dave.locator("[data-club-table]").count() == 0 and CLUB not in dave.content()
    assert dave.goto(table_url).status == 404
    assert dave.locator("[data-sit]").count() == 0
    assert "carol" not in dave.content() and CLUB not in dave.content()

    alice.get_by_label(re.compile("Fill 1 empty seat with")).select_option("easy")
    alice.locator("[data-fill-bots]").click()
    expect(alice.locator(".forming-seat", has_text="Bot (easy)")).to_be_visible()
    alice.locator("[data-start]").click()
    people = {"alice": alice, "bob": bob, "carol": carol}
    for page in people.values():
        expect(page.locator("#table[data-deal]")).to_be_visible(timeout=30_000)
    play_a_deal_together(people)

    # The rest of the match, through the services (see the module's note).
    with monkeypatch.context() as quiet:  # no pushes from this process to the pages
        quiet.setattr(game_services, "announce_after_commit", lambda match, deal_row=None: None)
        finished = off_the_event_loop(play_until, Match.objects.get())
    assert finished.status == Match.Status.FINISHED

    # The club page shows the game and its leaderboard: three members rated, one game each,
    # the winners above 1500 and the losers below.
    for page in people.values():
        page.goto(club_url)
    board = alice.locator("[data-club-board]")
    winners = {
        s.user.username
        for s in finished.seats.select_related("user")
        if s.user_id and game_selectors.rules_of(finished).side_of(s.position) == finished.winner
    }
    for name in people:
        row = board.locator(f'[data-board-row="{name}"]')
        expect(row.locator("td").nth(1)).to_have_text("1")  # played
        expect(row.locator("td").nth(2)).to_have_text("1" if name in winners else "0")  # won
        rating = int(row.locator("td").first.inner_text())
        assert (rating > 1500) if name in winners else (rating < 1500), (name, rating, winners)
    game = alice.locator(f'[data-club-game="{match.pk}"]')
    expect(game).to_contain_text("won by")
    shot(alice, "club-after-game-1280")
    shot(bob, "club-after-game-390")
    bob.locator(f'[data-club-game="{match.pk}"] [data-club-replay]').click()
    expect(bob.locator(".deal-links a").first).to_be_visible()
    replay_url = bob.url
    assert re.search(rf"/clubs/\d+/games/{match.pk}/$", replay_url), replay_url

    # The stranger sees none of it: the club page, its replays, its lobby listing.
    for url in (club_url, replay_url, f"{replay_url}1/0/", table_url):
        assert dave.goto(url).status == 404, url
        assert CLUB not in dave.content() and "carol" not in dave.content(), url
    dave.goto(site + "/clubs/")
    assert CLUB not in dave.content()
    for ctx in contexts.values():
        ctx.close()
