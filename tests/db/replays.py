"""Finished deals to replay: matches played through the real services, for the replay tests."""

import random

from benchmarks.management.commands.bench_replay import write_history
from games.core import selectors, services
from games.models import Deal, Match

from .play import play_until


def random_person(seed: int):
    """A person who picks any legal move (pitches, steals and discards included), reproducibly."""
    rng = random.Random(seed)

    def move(match: Match, seat: str) -> str:
        state = selectors.deal_state(selectors.current_deal(match))
        return rng.choice(state.observation(seat).legal_actions())

    return move


def played_deals(match: Match) -> list[Deal]:
    """The match's finished deals that were played out (not thrown in)."""
    return [
        d for d in match.deals.filter(phase="over").order_by("number") if not d.result["thrown_in"]
    ]


def play_deals(user, rules, played: int = 1, seed: int = 1, level: str = "easy") -> Match:
    """A match under `rules` with at least `played` deals played out (or over, if sooner)."""
    match = services.do_start_match(user, rules_spec=rules, bot_level=level)
    return play_until(
        match, stop=lambda m: len(played_deals(m)) >= played, person=random_person(seed)
    )


def finish_match(user, rules, seed: int = 1, level: str = "easy") -> Match:
    match = services.do_start_match(user, rules_spec=rules, bot_level=level)
    return play_until(match, person=random_person(seed))


def into_a_new_deal(match: Match, actions: int = 2, seed: int = 1) -> Deal:
    """Play on until a deal is under way with `actions` taken; that deal, still in progress."""

    def under_way(m: Match) -> bool:
        deal_row = selectors.current_deal(m)
        return not deal_row.is_over and deal_row.actions.count() >= actions

    play_until(match, stop=under_way, person=random_person(seed))
    return selectors.current_deal(match)


def make_history(user, count: int, start: int = 0) -> list[Match]:
    """`count` matches for `user` written straight as rows, as the services leave them."""

    return write_history(user, count, start)
