"""The movements of a Setback night (games/events/movements.py): who sits where each round,
and the standings. Pure Python, no database."""

import ast
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.events import movements
from games.events.movements import (
    BOT_PAIR,
    SEATS,
    Result,
    Table,
    first_tables,
    individual_tables,
    oppositions,
    partnerships,
    refill,
    rotate,
    standings,
    swiss_tables,
    winners_move_up,
)

ROOT = Path(__file__).resolve().parents[2]


def people(count: int) -> list[str]:
    return [f"p{number:02}" for number in range(1, count + 1)]


def where(tables: list[Table], key: str) -> tuple[int, str]:
    """(table number, seat) of the key; fails if it is not seated exactly once."""
    found = [(table.number, seat) for table in tables for seat in SEATS if table.seats[seat] == key]
    assert len(found) == 1, (key, found)
    return found[0]


def seated(tables: list[Table]) -> list[str]:
    return sorted(key for table in tables for key in table.players)


def opposite(side: str) -> str:
    return "EW" if side == "NS" else "NS"


# ------------------------------------------------------------------------ tables
def test_a_table_knows_sides_partners_and_opponents():
    table = Table.of(3, ["a", "b", "c"])  # W is a bot
    assert table.seats == {"N": "a", "E": "b", "S": "c", "W": None}
    assert table.side_of("a") == "NS" and table.side_of("b") == "EW"
    assert table.partner_of("a") == "c" and table.partner_of("b") is None
    assert table.opponents_of("c") == ("b", None)
    assert table.side_of("z") is None and table.partner_of("z") is None
    assert table.players == ["a", "b", "c"] and not table.all_bots


def test_first_tables_seat_everyone_once_four_a_table_bots_at_the_last():
    tables = first_tables(people(10), seed=7)
    assert [table.number for table in tables] == [1, 2, 3]
    assert seated(tables) == people(10)
    assert [len(table.players) for table in tables] == [4, 4, 2]
    assert tables[2].seats["S"] is None and tables[2].seats["W"] is None


def test_first_tables_depend_on_the_seed_not_on_the_order_of_the_keys():
    keys = people(12)
    assert first_tables(keys, seed=1) == first_tables(list(reversed(keys)), seed=1)
    assert first_tables(keys, seed=1) != first_tables(keys, seed=2)


def test_nobody_sits_twice():
    with pytest.raises(ValueError, match="one seat"):
        first_tables(["a", "b", "a"], seed=1)


# ---------------------------------------------------------------- movement 1: rotation
@pytest.mark.parametrize("count", [3, 4, 5])
def test_rotation_north_stays_south_down_one_east_up_one_west_up_two(count):
    tables = first_tables(people(4 * count), seed=count)
    after = rotate(tables)
    for table in tables:
        t = table.number
        assert where(after, table.seats["N"]) == (t, "N")
        assert where(after, table.seats["S"]) == ((t % count) + 1, "S")  # down, the foot wraps
        assert where(after, table.seats["E"]) == ((t - 2) % count + 1, "E")  # up, the head wraps
        assert where(after, table.seats["W"]) == ((t - 3) % count + 1, "W")


@pytest.mark.parametrize("count", [3, 4, 5, 6, 7])
def test_rotation_gives_everyone_a_new_partner_each_round_for_as_many_rounds_as_tables(count):
    tables = first_tables(people(4 * count), seed=count)
    every_round = []
    for _ in range(count):
        every_round.append(partnerships(tables))
        tables = rotate(tables)
    had = [pair for partners in every_round for pair in partners]
    assert len(had) == 2 * count * count  # two partnerships a table, every round
    assert len(set(had)) == len(had)
    # and the next round brings back the first round's partners: the cycle is that long
    assert partnerships(tables) == every_round[0]


@pytest.mark.parametrize("count", [1, 2])
def test_rotation_with_one_or_two_tables_keeps_everyone_seated_once(count):
    tables = first_tables(people(4 * count), seed=3)
    for _ in range(4):
        tables = rotate(tables)
        assert seated(tables) == people(4 * count)
        assert [table.number for table in tables] == list(range(1, count + 1))


def test_rotation_moves_a_bot_seat_like_a_player():
    tables = [Table.of(1, ["a", "b", None, "d"]), *first_tables(people(8), seed=1)[:2]]
    tables = [Table(number, table.seats) for number, table in enumerate(tables, start=1)]
    after = rotate(tables)
    assert after[1].seats["S"] is None  # table 1's South seat, a bot's, moved down to table 2
    assert seated(after) == seated(tables)


# ------------------------------------------------------- movement 2: winners move up
def results_for(tables: list[Table], winners: list[str]) -> list[Result]:
    """A result per table, the given side winning 5 to 3 (or "tie": 4 all)."""
    results = []
    for table, winner in zip(tables, winners, strict=True):
        points = {"NS": 4, "EW": 4} if winner == "tie" else {winner: 5, opposite(winner): 3}
        results.append(Result(table, points))
    return results


def check_winners_moved_up(results: list[Result], after: list[Table]) -> None:
    count = len(results)
    keys = seated([result.table for result in results])
    assert seated(after) == keys  # everyone seated exactly once (where() checks "once")
    for result in results:
        t = result.table.number
        winners = result.table.pair(result.winners())
        losers = result.table.pair(result.losers())
        winners_go = t if t == 1 else t - 1
        losers_go = count if t == 1 else t
        for pair, goes_to in ((winners, winners_go), (losers, losers_go)):
            first, second = (where(after, key) for key in pair)
            assert first[0] == second[0] == goes_to
            # the old pair is split: at the same table, on opposite sides
            assert after[goes_to - 1].side_of(pair[0]) != after[goes_to - 1].side_of(pair[1])


@pytest.mark.parametrize("count", [3, 4, 5])
def test_winners_move_up_losers_stay_head_losers_go_to_the_foot(count):
    tables = first_tables(people(4 * count), seed=count)
    winners = ["NS", "EW", "EW", "NS", "EW"][:count]
    results = results_for(tables, winners)
    check_winners_moved_up(results, winners_move_up(results))


@settings(max_examples=60)
@given(
    count=st.integers(1, 7),
    outcomes=st.lists(st.sampled_from(["NS", "EW", "tie"]), min_size=7, max_size=7),
    seed=st.integers(0, 1000),
)
def test_winners_move_up_for_any_outcome(count, outcomes, seed):
    tables = first_tables(people(4 * count), seed=seed)
    results = results_for(tables, outcomes[:count])
    check_winners_moved_up(results, winners_move_up(results))


def test_winners_move_up_seats_the_stayers_north_and_east_the_arrivals_south_and_west():
    head = Table.of(1, ["a", "b", "c", "d"])  # a+c against b+d
    foot = Table.of(2, ["e", "f", "g", "h"])  # e+g against f+h
    after = winners_move_up([Result(head, {"NS": 2, "EW": 6}), Result(foot, {"NS": 7, "EW": 1})])
    # head: b+d won and stay (b sat E, so takes N), e+g won below and arrive (e sat N: S)
    assert after[0].seats == {"N": "b", "E": "d", "S": "e", "W": "g"}
    # foot: f+h lost and stay, a+c lost at the head and come down
    assert after[1].seats == {"N": "f", "E": "h", "S": "a", "W": "c"}


def test_a_tied_table_is_won_by_north_south():
    table = Table.of(1, ["a", "b", "c", "d"])
    assert Result(table, {"NS": 4, "EW": 4}).winners() == "NS"
    assert Result(table, {"NS": 3, "EW": 4}).winners() == "EW"
    below = Table.of(2, ["e", "f", "g", "h"])
    after = winners_move_up([Result(table, {"NS": 0, "EW": 0}), Result(below, {"NS": 5, "EW": 5})])
    assert where(after, "e")[0] == where(after, "g")[0] == 1  # table 2's NS won the tie: up


# ------------------------------------------------------------------ movement 3: Swiss
def make_pairs(count: int) -> list[tuple[str, str]]:
    keys = people(2 * count)
    return [(keys[2 * i], keys[2 * i + 1]) for i in range(count)]


def matches_of(tables: list[Table]) -> list[frozenset]:
    return [frozenset((table.pair("NS"), table.pair("EW"))) for table in tables]


def fewest_rematches(pairs: list, met: set) -> int:
    """By brute force: the fewest rematches of any way to match these pairs two by two."""
    if not pairs:
        return 0
    top, rest = pairs[0], pairs[1:]
    return min(
        (frozenset((top, other)) in met) + fewest_rematches(rest[:index] + rest[index + 1 :], met)
        for index, other in enumerate(rest)
    )


def test_swiss_first_round_top_pairs_meet_the_higher_sits_north_south_the_lowest_has_the_bye():
    pairs = make_pairs(5)
    tables = swiss_tables(pairs, met=set(), had_bye=set())
    assert [(t.number, t.pair("NS"), t.pair("EW")) for t in tables] == [
        (1, pairs[0], pairs[1]),
        (2, pairs[2], pairs[3]),
        (3, pairs[4], BOT_PAIR),
    ]


def test_swiss_the_bye_goes_to_the_lowest_pair_that_has_not_had_one():
    pairs = make_pairs(5)
    tables = swiss_tables(pairs, met=set(), had_bye={pairs[4], pairs[3]})
    assert tables[-1].pair("NS") == pairs[2] and tables[-1].pair("EW") == BOT_PAIR
    everyone_had_one = swiss_tables(pairs, met=set(), had_bye=set(pairs))
    assert everyone_had_one[-1].pair("NS") == pairs[4]


def test_swiss_the_top_two_pairs_that_have_not_met_meet():
    a, b, c, d = make_pairs(4)
    tables = swiss_tables([a, b, c, d], met={frozenset((a, b))}, had_bye=set())
    assert matches_of(tables) == [frozenset((a, c)), frozenset((b, d))]
    assert tables[0].pair("NS") == a


@pytest.mark.parametrize("count", [5, 7])
def test_swiss_three_rounds_without_a_rematch_and_a_new_bye_each_round(count):
    pairs = make_pairs(count)
    rng = random.Random(count)
    met: set = set()
    had_bye: set = set()
    for _ in range(3):
        by_standing = rng.sample(pairs, len(pairs))
        tables = swiss_tables(by_standing, met, had_bye)
        played = matches_of(tables[:-1])
        assert not set(played) & met
        bye = tables[-1].pair("NS")
        assert tables[-1].pair("EW") == BOT_PAIR and bye not in had_bye
        assert bye == [pair for pair in by_standing if pair not in had_bye][-1]
        assert sorted(k for t in tables for k in t.players) == sorted(k for p in pairs for k in p)
        met |= set(played)
        had_bye.add(bye)
    assert len(had_bye) == 3


def test_swiss_when_a_rematch_cannot_be_avoided_the_two_pairs_still_play():
    a, b = make_pairs(2)
    tables = swiss_tables([b, a], met={frozenset((a, b))}, had_bye=set())
    assert len(tables) == 1 and tables[0].pair("NS") == b and tables[0].pair("EW") == a


@settings(max_examples=80)
@given(count=st.integers(2, 10), seed=st.integers(0, 10_000), history=st.integers(0, 14))
def test_swiss_plays_the_fewest_rematches_possible(count, seed, history):
    pairs = make_pairs(count)
    rng = random.Random(seed)
    met = {frozenset(rng.sample(pairs, 2)) for _ in range(history)}
    tables = swiss_tables(pairs, met, had_bye=set())
    bye = tables[-1].pair("NS") if count % 2 else None
    assert bye is None or bye == pairs[-1]
    played = matches_of([table for table in tables if table.pair("EW") != BOT_PAIR])
    matched = [pair for pair in pairs if pair != bye]
    assert sum(match in met for match in played) == fewest_rematches(matched, met)


def test_swiss_a_pair_with_a_bot_partner_keeps_the_bot_in_its_second_seat():
    tables = swiss_tables([("a", "b"), ("c", None)], met=set(), had_bye=set())
    assert tables[0].seats == {"N": "a", "E": "c", "S": "b", "W": None}


# ------------------------------------------------------------- movement 4: individual
@pytest.mark.parametrize("count", [8, 9, 12])
def test_individual_three_rounds_without_a_repeated_partner(count):
    keys = people(count)
    partnered: set = set()
    opposed: set = set()
    for number in range(3):
        tables = individual_tables(keys, partnered, opposed, seed=number)
        assert seated(tables) == keys
        assert all(None not in table.seats.values() for table in tables[:-1])  # bots: last
        assert not partnerships(tables) & partnered
        partnered |= partnerships(tables)
        opposed |= oppositions(tables)


def test_individual_avoids_old_opponents_too_when_it_can():
    # After one round, a round with no old partner and no old opponent exists for 8 people:
    # each table seats two from each first-round table, the two old opponents as partners.
    keys = people(8)
    first = individual_tables(keys, set(), set(), seed=5)
    second = individual_tables(keys, partnerships(first), oppositions(first), seed=5)
    assert not partnerships(second) & partnerships(first)
    assert not oppositions(second) & oppositions(first)


def test_individual_repeats_partners_only_when_it_must():
    keys = ["a", "b", "c", "d"]  # four people can be partnered only three ways
    partnered = {frozenset(p) for p in (("a", "b"), ("c", "d"), ("a", "c"), ("b", "d"))}
    tables = individual_tables(keys, partnered, set(), seed=1)
    assert partnerships(tables) == {frozenset(("a", "d")), frozenset(("b", "c"))}
    partnered |= partnerships(tables)
    fourth = individual_tables(keys, partnered, set(), seed=1)
    assert seated(fourth) == keys and len(partnerships(fourth)) == 2


def test_individual_is_the_same_for_the_same_seed_whatever_the_order():
    keys = people(12)
    partnered = partnerships(first_tables(keys, seed=9))
    one = individual_tables(keys, partnered, set(), seed=4)
    assert one == individual_tables(list(reversed(keys)), set(partnered), set(), seed=4)
    assert one != individual_tables(keys, partnered, set(), seed=5)


# ---------------------------------------------------------------- comings and goings
def test_refill_leavers_become_bots_arrivals_take_bot_seats_first():
    tables = [Table.of(1, ["a", "b", "c", "d"]), Table.of(2, ["e", "f", None, None])]
    present = {"a", "c", "d", "e", "f"}  # b left
    after = refill(tables, present, ["x", "y", "z"])
    assert after[0].seats == {"N": "a", "E": "x", "S": "c", "W": "d"}  # x: b's seat, head first
    assert after[1].seats == {"N": "e", "E": "f", "S": "y", "W": "z"}
    assert len(after) == 2


def test_refill_opens_new_tables_at_the_foot_and_keeps_a_table_of_bots():
    tables = [Table.of(1, ["a", "b", "c", "d"]), Table.of(2, ["e", "f", "g", "h"])]
    present = {"a", "b", "c", "d"}  # table 2 all left
    arrivals = ["v", "w", "x", "y", "z", "a"]  # a is seated already
    after = refill(tables, present, arrivals)
    assert after[1].seats == {"N": "v", "E": "w", "S": "x", "W": "y"}
    assert after[2] == Table.of(3, ["z"])
    assert seated(after) == sorted("abcdvwxyz")
    left = refill(after, {"a", "b", "c", "d", "z"}, [])
    assert [table.number for table in left] == [1, 2, 3] and left[1].all_bots


# ------------------------------------------------------------------------- standings
def test_standings_rank_by_rounds_won_then_net_then_points_for_and_share_places():
    t1 = Table.of(1, ["a", "b", "c", "d"])  # a+c v b+d
    t2 = Table.of(2, ["e", "f", "g", None])  # e+g v f+bot
    round_one = [Result(t1, {"NS": 7, "EW": 3}), Result(t2, {"NS": 7, "EW": 3})]
    t1b = Table.of(1, ["a", "e", "c", "g"])
    t2b = Table.of(2, ["b", "f", "d", None])
    round_two = [Result(t1b, {"NS": 2, "EW": 5}), Result(t2b, {"NS": 5, "EW": 5})]
    lines = standings([round_one, round_two])
    table = {line.key: (line.place, line.won, line.net, line.points_for) for line in lines}
    # e and g won twice; a and c once, net +1; b and d once (a tie goes to NS), net -4; f has
    # the points of b and d but never won. a and c are equal on all three, so are b and d.
    assert table == {
        "e": (1, 2, 7, 12),
        "g": (1, 2, 7, 12),
        "a": (3, 1, 1, 9),
        "c": (3, 1, 1, 9),
        "b": (5, 1, -4, 8),
        "d": (5, 1, -4, 8),
        "f": (7, 0, -4, 8),
    }
    assert [line.key for line in lines] == ["e", "g", "a", "c", "b", "d", "f"]
    assert None not in table  # the bots at table 2 are never ranked
    f = next(line for line in lines if line.key == "f")
    assert f.rounds[0].partner is None and f.rounds[0].opponents == ("e", "g")


def test_standings_net_points_decide_before_points_for_and_points_for_last():
    t1 = Table.of(1, ["a", "b", "c", "d"])
    t2 = Table.of(2, ["e", "f", "g", "h"])
    # a+c win 10-9 (net +1, 10 for); e+g win 3-1 (net +2, 3 for): net first, e+g ahead.
    # b+d lose 9-10 (net -1) and f+h lose 1-3 (net -2).
    lines = standings([[Result(t1, {"NS": 10, "EW": 9}), Result(t2, {"NS": 3, "EW": 1})]])
    assert [line.key for line in lines] == ["e", "g", "a", "c", "b", "d", "f", "h"]
    assert [line.place for line in lines] == [1, 1, 3, 3, 5, 5, 7, 7]
    # equal net: points for decides
    t3 = Table.of(3, ["i", "j", "k", "l"])
    lines = standings([[Result(t1, {"NS": 10, "EW": 8}), Result(t3, {"NS": 4, "EW": 2})]])
    assert [line.key for line in lines][:4] == ["a", "c", "i", "k"]
    assert [line.place for line in lines][:4] == [1, 1, 3, 3]


def test_standings_of_pairs_list_every_pair_and_skip_the_bots():
    ab, cd, ef = ("a", "b"), ("c", "d"), ("e", None)
    round_one = swiss_tables([ab, cd, ef], met=set(), had_bye=set())
    results = [
        Result(round_one[0], {"NS": 3, "EW": 6}),
        Result(round_one[1], {"NS": 4, "EW": 1}),  # e and a bot partner against bots
    ]
    lines = standings([results, []], units="pair", pairs=[ab, cd, ef, ("g", "h")])
    assert [(line.key, line.place, line.won) for line in lines] == [
        (cd, 1, 1),
        (ef, 2, 1),
        (("g", "h"), 3, 0),  # not played yet: net 0 is ahead of a loss
        (ab, 4, 0),
    ]
    assert lines[0].rounds[0].opponents == ab and lines[0].rounds[1] is None
    assert lines[2].key == ("g", "h") and lines[2].rounds == (None, None)


# --------------------------------------------------------------------- pure Python
def test_the_movements_import_only_the_standard_library():
    tree = ast.parse(Path(movements.__file__).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported and imported <= set(sys.stdlib_module_names) | {"__future__"}, imported


def test_importing_the_movements_loads_no_django():
    code = (
        "import sys, games.events.movements\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'channels'))\n"
        "assert not bad, bad\n"
        "print('ok')\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_swiss_looks_past_the_first_choices_for_a_pairing_without_rematches():
    a, b, c, d = make_pairs(4)
    met = {frozenset((a, b)), frozenset((a, c)), frozenset((b, d))}
    # a-c would leave b-d, a rematch: the search backs up and finds a-d, b-c
    tables = swiss_tables([a, b, c, d], met, had_bye=set())
    assert matches_of(tables) == [frozenset((a, d)), frozenset((b, c))]
    assert tables[0].seats == {"N": a[0], "E": d[0], "S": a[1], "W": d[1]}
