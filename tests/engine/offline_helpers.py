"""Offline deals for tests: played with the engine's offline driver as the page plays them, and
forged the ways a client could forge them."""

from __future__ import annotations

import copy

from games.engine import Deal, bots, deal_from_record, deal_to_record
from games.engine.offline import OfflineMatch


def play_deal(match: OfflineMatch, person_level: str = "easy") -> OfflineMatch:
    """Play the match's current deal to its end: the bots as the page's bots, the person as a
    bot of `person_level` would (any legal move would do; a sensible one keeps deals short)."""
    while not match.deal.is_over:
        if match.bot_to_act:
            match.play_bot()
        else:
            match.act(
                bots.choose(match.observation(match.seat), person_level, seed=match.deal.version)
            )
    return match


def offline_match(rules="house", level="easy", seed=11, key="match-0001") -> OfflineMatch:
    return OfflineMatch(rules, level, seed, key, engine="test")


def played_envelope(rules="house", level="easy", seed=11, key="match-0001", upload_id="deal-0001"):
    """The envelope of the first deal of a new offline match, played to its end."""
    return play_deal(offline_match(rules, level, seed, key)).envelope(upload_id)


def with_bot_move_changed(envelope: dict) -> dict:
    """The same deal, except that at the first bot card play with a choice another legal card
    was played, and the deal then finished legally: a record the engine accepts, and whose
    score is right for its own cards, but whose bot did not play what it would have."""
    deal = deal_from_record(envelope["record"])
    bot_seats = set(envelope["bots"])
    replay = Deal(deal.rules, deal.dealer, deal.dealt_hands, deal.stock)
    forged_at = None
    for step, (seat, token) in enumerate(deal.history):
        legal = replay.legal_actions()
        if forged_at is None and seat in bot_seats and replay.phase == "play" and len(legal) > 1:
            token = next(t for t in legal if t != token)
            forged_at = step
        if forged_at is not None and step > forged_at:
            break
        replay.apply(token, seat)
    assert forged_at is not None, "no bot card with a choice in this deal"
    while not replay.is_over:
        replay.apply(replay.legal_actions()[0])
    forged = copy.deepcopy(envelope)
    forged["record"] = deal_to_record(replay)
    forged["score"] = dict(replay.result().score)
    return forged


def with_score_changed(envelope: dict) -> dict:
    forged = copy.deepcopy(envelope)
    side = next(iter(forged["score"]))
    forged["score"][side] += 1
    return forged
