"""Hand-built histories for the statistics tests: matches, seats and finished deals as rows.

Each deal's result is written by hand in the engine's result-JSON shape (the statistics read
only that), then recorded through the same service call `games.core.services._finish_deal` makes.
"""

from datetime import UTC, datetime, timedelta

from games import engine
from games.models import Deal, Match, Seat
from games.stats import services as stats_services

POINTS = ("high", "low", "jack", "game")


def at(day: str, minutes: int = 0) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC) + timedelta(minutes=minutes)


class History:
    """One match: `players` maps each seat to a user or a bot level ("easy", "medium", "hard")."""

    def __init__(self, rules_spec, players: dict, day: str = "2024-03-01"):
        self.rules = engine.Rules.from_spec(rules_spec)
        host = next(p for p in players.values() if not isinstance(p, str))
        self.match = Match.objects.create(
            rules=self.rules.to_spec(),
            host=host,
            first_dealer=self.rules.seats[0],
            totals={side: 0 for side in self.rules.sides},
        )
        for position in self.rules.seats:
            player = players[position]
            if isinstance(player, str):
                Seat.objects.create(match=self.match, position=position, bot_level=player)
            else:
                Seat.objects.create(match=self.match, position=position, user=player)
        self.day = day
        self.deals: list[Deal] = []

    def deal(self, pitcher=None, bid=None, made=None, score=None, **points) -> Deal:
        """A finished deal. No pitcher: thrown in. `points` names the side taking each point
        (high=..., low=..., jack=None for not in play, game=None for a tie); `score` is the
        deal's change by side, every side not named scoring 0."""
        thrown_in = pitcher is None
        result = {
            "thrown_in": thrown_in,
            "trump": None if thrown_in else "S",
            "pitcher": pitcher,
            "bid": bid,
            "made": made,
            "points": {kind: points.get(kind) for kind in POINTS},
            "game_points": {side: 0 for side in self.rules.sides},
            "tricks": [],
            "score": {side: (score or {}).get(side, 0) for side in self.rules.sides},
        }
        number = len(self.deals) + 1
        deal_row = Deal.objects.create(
            match=self.match,
            number=number,
            dealer=self.rules.seats[0],
            hands={},
            stock=[],
            phase="over",
            pitcher=pitcher or "",
            bid=bid,
            result=result,
            finished_at=at(self.day, minutes=number),
        )
        for side, change in result["score"].items():
            self.match.totals[side] += change
        stats_services.do_record_deal(deal_row, result)
        self.deals.append(deal_row)
        return deal_row

    def finish(self, winner: str) -> Match:
        """End the match with `winner` (its totals are the deals' sums) and rate it."""
        self.match.status = Match.Status.FINISHED
        self.match.winner = winner
        self.match.finished_at = at(self.day, minutes=len(self.deals) + 1)
        stats_services.do_record_match(self.match)
        self.match.save()
        return self.match
