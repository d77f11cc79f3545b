"""The table in words (issue 50): a person plays a whole deal with the keyboard alone, and the
page's live region, read from the accessibility tree as a screen reader reads it, says every
move in order, once each, as the deal's stored actions have it, with the cue of each of their
turns and the deal's end; the hand's cards are buttons named in full, and one that may not be
played is named so and described with why; keys A, S and T read the auction, the score and the
trick into the live region, their items apart."""

import re
import time

from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from games.engine.spoken import move_sentence, trick_sentence
from games.models import Action, Deal, Match

from .test_card_table import start_match
from .test_play_a_deal import sign_up, table_version, wait_for_the_table_to_move

CUE = re.compile(r"^(Your turn: .+|Your lead\.)$")
FULL_NAME = re.compile(
    r"(ace|king|queen|jack|ten|nine|eight|seven|six|five|four|three|two) of (hearts|diamonds|clubs|spades)"
)
MY_TURN = "#table.table-my-turn [data-action]"


def region_lines(region: Locator) -> list[str]:
    """The live region's lines as the accessibility tree holds them."""
    tree = region.aria_snapshot()
    return [
        line.split(": ", 1)[1].strip().strip('"')
        for line in tree.splitlines()
        if line.strip().startswith("- paragraph:")
    ]


class Listener:
    """What the live region said, line by line, in order. The region keeps only its latest
    lines (it drops the oldest), so it is read often and each reading is joined to the last:
    the new lines are those after the longest overlap of the old reading's end with the new
    reading's start."""

    def __init__(self, region: Locator):
        self.region = region
        self.last: list[str] = []  # all the region holds was said since the page opened
        self.heard: list[str] = []

    def listen(self) -> list[str]:
        now = region_lines(self.region)
        for dropped in range(len(self.last) + 1):
            kept = self.last[dropped:]
            if now[: len(kept)] == kept:
                self.heard.extend(now[len(kept) :])
                break
        self.last = now
        return self.heard

    def forget(self):
        """Start a new recording (a new deal), from what the region holds now."""
        self.listen()
        self.heard = []


def said_for_the_deal(deal: Deal, from_step: int, me: str) -> list[tuple[str, Action]]:
    """The lines the deal's stored actions should have been said as, from `from_step` on (the
    moves made before the page opened are not news), each with its action: each move, a trick's
    taker with the card that ended it, and the deal's end with its last move."""
    seats = {seat.position: seat for seat in deal.match.seats.all()}
    names = {position: "You" if position == me else s.display_name for position, s in seats.items()}
    trump = deal.trump or None
    trick: list[tuple[str, str]] = []
    lines = []
    actions = list(deal.actions.order_by("sequence"))
    first_claimed = next((a for a in actions if a.claimed), None)
    for action in actions:
        words = [move_sentence(action.token, names[action.seat], trump)]
        if action is first_claimed:  # a claim is said before its first card
            name = names[action.seat]
            words.insert(0, f"{name} claim{'' if name == 'You' else 's'} the rest.")
        if action.kind == "play":
            trick.append((action.seat, action.token))
            if len(trick) == len(seats):
                words.append(trick_sentence(tuple(trick), trump, names))
                trick = []
        if action is actions[-1] and deal.is_over:
            words.append("The deal is over.")
        if action.sequence >= from_step:
            lines.append((" ".join(words), action))
    return lines


def check_the_hand(page: Page):
    """Each card of the hand is a button named in full; one that may not be played is
    described with the reason."""
    version = table_version(page)
    hand = page.locator("#table form.hand")
    try:
        for card in hand.locator("[data-card]").all():
            expect(card).to_have_accessible_name(FULL_NAME, timeout=2000)
        idle = hand.locator(".card-idle[data-why]")
        for card in idle.all():
            why = card.get_attribute("data-why", timeout=2000)
            expect(card).to_have_accessible_description(why, timeout=2000)
            expect(card).to_have_accessible_name(
                re.compile(FULL_NAME.pattern + " ?, not playable now"), timeout=2000
            )
        return hand.aria_snapshot()
    except (AssertionError, PlaywrightTimeout):  # a card looked for may be gone with a redraw
        if table_version(page) != version:
            return None  # the table moved on under the check (the turn's cards changed)
        raise


def test_a_whole_deal_played_by_keyboard_is_said_in_order(site, page):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_up(page, site, "listener")
    start_match(page, site)
    page.wait_for_load_state("load")
    region = page.locator("#table-announcer")
    expect(region).to_have_attribute("role", "log")
    listener = Listener(region)
    match = Match.objects.get(seats__user__username="listener")
    me = match.seats.get(user__username="listener").position
    table = page.locator("#table")
    deal_number, from_step = (
        int(table.get_attribute("data-deal")),
        int(table.get_attribute("data-step")),
    )
    hands_seen: list[str] = []
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        version = table_version(page)
        listener.listen()
        result = page.locator(".deal-result")
        if result.count() and result.get_by_text(re.compile(r"made it|set back")).count():
            break
        if result.count() and page.get_by_text("Everyone passed").count():
            listener.forget()
            page.keyboard.press("n")
            expect(table).not_to_have_attribute("data-deal", str(deal_number))
            deal_number, from_step = int(table.get_attribute("data-deal")), 0
            continue
        if page.locator(MY_TURN).count():
            if page.locator("#table [data-card]").count() and (tree := check_the_hand(page)):
                hands_seen.append(tree)
            page.keyboard.press("1")  # the first legal call, suit or card
            wait_for_the_table_to_move(page, version)
        else:  # a bot's move, or the person's turn
            wait_for_the_table_to_move(page, version, or_shown=MY_TURN)
    else:
        raise AssertionError("no deal was scored in time")
    page.wait_for_function(
        "() => document.getElementById('table-announcer').textContent.includes('The deal is over.')"
    )
    heard = listener.listen()
    deal = Deal.objects.get(match=match, number=deal_number)
    expected = said_for_the_deal(deal, from_step, me)
    moves_heard = [line for line in heard if not CUE.match(line)]
    print("\n".join(heard))
    print("\n\n".join(t for t in hands_seen if "not playable" in t))
    assert moves_heard == [line for line, _ in expected]
    # Each move the person made came right after the cue of their turn, and each cue was
    # followed by their move: no turn unsaid, no cue said twice. (A bot that holds every
    # remaining trick claims them, playing the person's last cards too: no turn of theirs.)
    person = match.seats.get(position=me).user_id
    actions = iter(action for _, action in expected)
    for at, line in enumerate(heard):
        if CUE.match(line):
            assert not CUE.match(heard[at + 1]), heard[: at + 2]
            continue
        action = next(actions)
        by_the_person = action.user_id == person and not action.claimed
        assert by_the_person == (at > 0 and bool(CUE.match(heard[at - 1]))), (line, heard[: at + 1])
    assert heard[-1].endswith("The deal is over.")
    assert hands_seen

    # A, S and T read the auction, the score and the trick into the live region.
    def read_aloud(key: str) -> str:
        before = len(listener.listen())
        # The line said last is marked, to wait for the next one (the region keeps 20 lines).
        region.locator("p").last.evaluate("line => line.setAttribute('data-heard', '')")
        page.keyboard.press(key)
        expect(region.locator("p").last).not_to_have_attribute("data-heard", "")
        new = listener.listen()[before:]
        assert len(new) == 1, new
        return new[0]

    def items(selector: str) -> list[str]:
        return [re.sub(r"\s+", " ", t).strip() for t in page.locator(selector).all_text_contents()]

    auction = read_aloud("a")
    assert auction == ", ".join(items("#table .auction-list li")) + ".", auction
    score = read_aloud("s")
    assert score == ", ".join(items("#table .scoreboard li, #table .scoreboard .chip")) + "."
    trick = read_aloud("t")
    assert re.fullmatch(r"(\w+: \w+ of \w+, )+\w+: \w+ of \w+\. .*takes? the trick\.", trick), trick
    print("KEY A:", auction)
    print("KEY S:", score)
    print("KEY T:", trick)


# The text of each card of the hand as the text table shows it: its face's name, then why not.
SHOWN_CARDS = """() => Array.from(document.querySelectorAll('#table form.hand .card'), (card) => {
  const text = (el, where) => getComputedStyle(el, where).content.replace(/^"|"$/g, '');
  const after = text(card, '::after');
  const why = card.dataset.why ? '— ' + card.dataset.why : '';
  return [text(card.querySelector('.card-face'), '::before'), after === 'none' ? '' : after, why];
})"""


# The text table as the page shows it, read in one go.
TEXT_TABLE = (
    """() => {
  const table = document.getElementById('table');
  const shown = (el) => el && el.getBoundingClientRect().height > 0;
  const parts = ['[data-spoken]', '[data-turn-cue]', '.scoreboard', '.felt', '.me', '.table-side'];
  return {
    myTurn: table.classList.contains('table-my-turn') && !table.classList.contains('htmx-settling'),
    moves: Array.from(table.querySelectorAll('[data-spoken] li'), (li) => shown(li) && li.textContent),
    cue: shown(table.querySelector('[data-turn-cue]')) ? table.querySelector('[data-turn-cue]').textContent : '',
    tops: parts.map((part) => shown(table.querySelector(part)) ? table.querySelector(part).getBoundingClientRect().top : null),
    cards: ("""
    + SHOWN_CARDS
    + """)(),
  };
}"""
)


def test_the_text_table_lists_the_table_in_reading_order(site, page, screenshot):
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_up(page, site, "reader")
    start_match(page, site)
    page.wait_for_load_state("load")
    switch = page.get_by_label("Text table: the table in reading order, as text")
    expect(switch).not_to_be_checked()
    switch.check()
    expect(page.locator("body.text-table")).to_be_attached()  # at once, in the page
    expect(page.locator("[data-text-table-saved]")).to_have_text("Saved")
    # Played on by keyboard until the person's turn to play a card, then the page read at once
    # (a bot's quick move may swap the table under a slower look).
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, "never the person's turn to play"
        version = table_version(page)
        if page.locator("#table.table-my-turn [data-card]").count():
            seen = page.evaluate(TEXT_TABLE)
            if seen["myTurn"]:
                break
        if page.locator("[data-next-deal]").count():
            page.keyboard.press("n")
        elif page.locator(MY_TURN).count():
            page.keyboard.press("1")
        wait_for_the_table_to_move(page, version, or_shown="#table.table-my-turn [data-card]")
    # The moves and the turn shown, in reading order: the moves, the turn, the score, the other
    # seats and the trick, the hand, then the last trick and the auction.
    assert seen["moves"] and all(seen["moves"]) and CUE.match(seen["cue"]), seen
    assert None not in seen["tops"] and seen["tops"] == sorted(seen["tops"]), seen
    # Each card by its name and, when it may not be played, why: written by the stylesheet
    # from the card's name and its reason, so what is drawn is what is read.
    shown = seen["cards"]
    assert shown and all(FULL_NAME.fullmatch(name) for name, _, _ in shown), shown
    assert all(after == why for _, after, why in shown), shown
    screenshot("text-table")
    # Kept on the account: the next page is drawn as text from the start.
    page.reload()
    expect(page.locator("body.text-table")).to_be_attached()
    expect(page.get_by_label("Text table: the table in reading order, as text")).to_be_checked()
