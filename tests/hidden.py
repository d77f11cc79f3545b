"""The check behind every hidden-information test: what a seat must not see at a moment."""

import re

from games.core import presenters, selectors
from games.models import Deal, Match

TABLE_MOMENT = re.compile(r'id="table"[^>]*data-deal="(\d+)" data-step="(\d+)"')


def hidden_cards(match: Match, deal_number: int, step: int, seat: str) -> set[str]:
    """Cards `seat` may not know at that moment: others' unplayed cards, their discards, the stock."""
    # A whole-match test checks hundreds of screens, many of the same moment: a moment's cards
    # never change (actions are only appended; the match's creation time tells an id used again).
    key = (match.pk, match.created_at, deal_number, step, seat)
    if key not in _hidden:
        _hidden[key] = frozenset(_hidden_cards(match, deal_number, step, seat))
    return set(_hidden[key])


_hidden: dict[tuple, frozenset[str]] = {}


def _hidden_cards(match: Match, deal_number: int, step: int, seat: str) -> set[str]:
    deal_row = Deal.objects.get(match=match, number=deal_number)
    state = selectors.deal_state(deal_row, upto=step)
    hidden = set(state.stock_remaining)
    for other in state.rules.seats:
        if other != seat:
            hidden |= set(state.hand(other))
            if state.phase != "over":
                hidden |= set(state.discards.get(other, ()))
    return hidden


def leaks(html: str, match: Match, seat: str) -> list[str]:
    """Every hidden card that appears in `html` as a code (attributes, URLs, text) or by name."""
    moments = TABLE_MOMENT.findall(html)
    assert moments, "the fragment names no moment of the table"
    found = []
    for deal_number, step in moments:
        for card in hidden_cards(match, int(deal_number), int(step), seat):
            name = presenters.card_view(card).name
            if re.search(rf"(?<![A-Za-z0-9]){card}(?![A-Za-z0-9])", html) or name in html:
                found.append(card)
    return found
