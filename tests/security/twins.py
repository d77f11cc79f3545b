"""Twin deals: the same moment seen by one seat, with the cards it cannot see dealt differently.

`random_position` plays a random deal of some rules to a random moment. `twin_of` deals the
hidden cards again (the other hands and the stock) while keeping every card the seat has seen
where it was: its own hand and draws, every card played, every pitched card, and the others'
discards (their tokens must stay legal). The voids the play has proven are respected, and the
twin is checked by replaying every action: the seat's observation must be the same, and some
hidden card must lie elsewhere.
"""

import random
import secrets
from dataclasses import dataclass

from games import engine
from games.core import services
from games.engine.deal import parse_discard_token
from games.models import Action, Deal, Match, Seat

# Every preset, and the options that bring in the other phases (naming trump, discards, pitches).
RULE_SPECS = [
    "house",
    "classic",
    "auction",
    "family",
    {"preset": "classic", "draw": True},
    {"preset": "house", "six_players": True},
    {"preset": "auction", "pitch_to_bid": True, "players": 4},
    {"preset": "family", "no_trump_first_trick": True, "players": 3},
]


@dataclass
class Position:
    rules: engine.Rules
    dealer: str
    hands: dict  # seat -> cards as dealt
    stock: list
    tokens: list  # the actions taken, in order
    seat: str  # the seat whose view is compared

    def state(self) -> engine.Deal:
        deal = engine.Deal(self.rules, self.dealer, self.hands, self.stock)
        for token in self.tokens:
            deal.apply(token)
        return deal


def viewer_of(rules: engine.Rules) -> str:
    """Where the one person sits at a table against bots (games.core.services.human_seat)."""
    return "S" if "S" in rules.seats else rules.seats[0]


def random_position(
    rng: random.Random, spec, seat: str | None = None, my_turn: float = 0.8
) -> Position:
    """A random moment of a random deal before its end: mostly at `seat`'s turn."""
    rules = engine.Rules.from_spec(spec)
    seat = seat or viewer_of(rules)
    while True:
        dealer = rng.choice(rules.seats)
        deal = engine.Deal.new(rules, dealer, rng)
        moments = []  # (number of actions, seat's turn?)
        tokens = []
        while deal.phase != "over":
            moments.append((len(tokens), deal.to_act == seat))
            token = rng.choice(deal.legal_actions())
            deal.apply(token)
            tokens.append(token)
        want_turn = rng.random() < my_turn
        choices = [n for n, mine in moments if mine == want_turn] or [n for n, _ in moments]
        if not choices:
            continue  # thrown in before anyone spoke? (never: the first call is always a moment)
        n = rng.choice(choices)
        return Position(rules, dealer, dict(deal.dealt_hands), list(deal.stock), tokens[:n], seat)


def twin_of(position: Position, rng: random.Random, tries: int = 200) -> Position | None:
    """A deal the seat cannot tell from `position` at this moment, with hidden cards moved;
    None if every card is already known to the seat (nothing to move)."""
    state = position.state()
    rules, seat = position.rules, position.seat
    seen = set(state.plays) | set(state.hand(seat)) | set(state.dealt_hands[seat])
    seen |= {t[len("pitch:") :] for _, t in state.calls if t.startswith("pitch:")}
    for cards in state.discards.values():
        seen |= set(cards)  # the seat's own were seen; the others' keep their tokens legal
    drawn_by = _draws(state)  # stock index -> the seat that drew it
    seen |= {state.stock[i] for i, who in drawn_by.items() if who == seat}
    # Slots: (where, index). A slot whose card is not seen is free to take any hidden card.
    slots = [(s, i) for s in rules.seats for i in range(len(state.dealt_hands[s]))]
    slots += [("stock", i) for i in range(len(state.stock))]

    def card_at(slot):
        where, i = slot
        return state.stock[i] if where == "stock" else state.dealt_hands[where][i]

    def holder(slot):
        where, i = slot
        return drawn_by.get(i) if where == "stock" else where

    free = [slot for slot in slots if card_at(slot) not in seen]
    if len({holder(s) for s in free}) < 2 and not any(holder(s) is None for s in free):
        return None
    pool = [card_at(slot) for slot in free]
    if len(pool) < 2:
        return None
    voids = state.voids()
    original = {slot: card_at(slot) for slot in free}
    for _ in range(tries):
        placed = _deal_free_slots(free, pool, holder, voids, rng)
        if (
            placed is None
            or all(placed[s] == original[s] for s in free)
            or not _moved_between_places(placed, original, holder)
        ):
            continue
        hands = {s: list(cards) for s, cards in state.dealt_hands.items()}
        stock = list(state.stock)
        for (where, i), card in placed.items():
            if where == "stock":
                stock[i] = card
            else:
                hands[where][i] = card
        twin = Position(rules, position.dealer, hands, stock, list(position.tokens), seat)
        try:
            twin_state = twin.state()
        except engine.IllegalAction:
            continue
        if twin_state.observation(seat).to_json() == state.observation(seat).to_json():
            return twin
    return None


def _moved_between_places(placed, original, holder) -> bool:
    """Some hidden card now lies with another holder (another hand, or the stock)."""
    where_was = {card: holder(slot) for slot, card in original.items()}
    return any(where_was[card] != holder(slot) for slot, card in placed.items())


def _deal_free_slots(free, pool, holder, voids, rng):
    """Each free slot gets a card of the pool; a hand never gets a suit it has shown out of."""
    cards = list(pool)
    rng.shuffle(cards)
    order = list(free)
    rng.shuffle(order)
    # Most constrained slots first: those of seats with proven voids.
    order.sort(key=lambda slot: -len(voids.get(holder(slot)) or ()))
    placed = {}
    for slot in order:
        banned = voids.get(holder(slot)) or frozenset()
        pick = next((c for c in cards if c[1] not in banned), None)
        if pick is None:
            return None
        cards.remove(pick)
        placed[slot] = pick
    return placed


def _draws(state: engine.Deal) -> dict[int, str]:
    """Under draw: which stock card went to which seat (the dealer refills in discard order)."""
    drawn, next_index = {}, 0
    if state.rules.discard_kind != "draw":
        return drawn
    for seat, token in state.history:
        if token.startswith("discard:"):
            count = len(parse_discard_token(token))
            for i in range(next_index, next_index + count):
                drawn[i] = seat
            next_index += count
    return drawn


# --- Into the database: a table at exactly that moment --------------------------------------


def materialize(position: Position, people: dict, bot_level: str = "easy", shared: bool = False):
    """A match at the position's moment: `people` (seat -> user) sit where given, bots elsewhere.

    The rows are written as the services would have left them (the deal as dealt, one Action
    row per action, the cached columns, one version per action); a shared table has an invite
    code and a turn timer, as `games.tables` makes them.
    """

    rules = position.rules
    host = people[position.seat]
    match = Match.objects.create(
        rules=rules.to_spec(),
        host=host,
        first_dealer=position.dealer,
        totals=dict.fromkeys(rules.sides, 0),
        version=len(position.tokens),
        invite_code=secrets.token_hex(4).upper() if shared else None,
    )
    Seat.objects.bulk_create(
        Seat(match=match, position=seat, user=people[seat], connections=1 if shared else 0)
        if seat in people
        else Seat(match=match, position=seat, bot_level=bot_level)
        for seat in rules.seats
    )
    deal_row = Deal.objects.create(
        match=match,
        number=1,
        dealer=position.dealer,
        hands=position.hands,
        stock=position.stock,
    )
    replay = engine.Deal(rules, position.dealer, position.hands, position.stock)
    actions = []
    for sequence, token in enumerate(position.tokens):
        seat, phase = replay.to_act, replay.phase
        replay.apply(token)
        actions.append(
            Action(
                deal=deal_row,
                sequence=sequence,
                seat=seat,
                kind=services.ACTION_KINDS[phase],
                token=token,
                user=people.get(seat),
                bot_level="" if seat in people else bot_level,
            )
        )
    Action.objects.bulk_create(actions)
    services.save_state_columns(deal_row, replay)
    return match
