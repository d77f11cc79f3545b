"""The bots' subcommands of ``python -m games.engine``: ``arena`` and ``bench-bots``.

Registered with the engine's command line (games/engine/cli.py imports this module).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..cli import command
from ..rules import Rules
from .arena import run_arena
from .bench import run_bench_bots


def _rules(text: str) -> Rules:
    spec: Any = json.loads(text) if text.strip().startswith("{") else text
    return Rules.from_spec(spec)


def _arena_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--a",
        required=True,
        help="level A: random, easy, medium, hard (or a variant, e.g. hard+inference=0)",
    )
    parser.add_argument("--b", required=True, help="level B")
    parser.add_argument(
        "--rules", default="house", help='a preset name or a JSON spec (default "house")'
    )
    parser.add_argument(
        "--deals", type=int, default=200, help="duplicate pairs of deals (default 200)"
    )
    parser.add_argument(
        "--matches",
        type=int,
        default=None,
        help="duplicate pairs of matches from random scores, for the match win rate (default deals/10)",
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of the deals and the bots (default 1)"
    )
    parser.add_argument(
        "--budget-a", type=int, default=None, help="override A's search budget (simulated deals)"
    )
    parser.add_argument("--budget-b", type=int, default=None, help="override B's search budget")
    parser.add_argument("--json", action="store_true", help="print the report as JSON at the end")
    parser.add_argument("--progress", action="store_true", help="print progress to standard error")


@command(
    "arena",
    help="duplicate-deal arena: level A against level B on the same cards, sides swapped",
    configure=_arena_arguments,
)
def arena_command(args: argparse.Namespace) -> int:
    rules = _rules(args.rules)
    matches = args.matches if args.matches is not None else max(0, args.deals // 10)
    budgets = {}
    if args.budget_a is not None:
        budgets[args.a] = args.budget_a
    if args.budget_b is not None:
        budgets[args.b] = args.budget_b
    report = run_arena(
        rules,
        args.a,
        args.b,
        args.deals,
        args.seed,
        matches=matches,
        budgets=budgets,
        progress=args.progress,
    )
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


def _bench_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules", default="house", help='a preset name or a JSON spec (default "house")'
    )
    parser.add_argument(
        "--levels",
        default="easy,medium,hard",
        help="comma-separated levels (default easy,medium,hard)",
    )
    parser.add_argument("--deals", type=int, default=20, help="deals per level (default 20)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--budget", type=int, default=None, help="override the search budget (simulated deals)"
    )
    parser.add_argument("--json", action="store_true")


@command(
    "bench-bots",
    help="seconds per decision of each bot level (p50, p95) on one core",
    configure=_bench_arguments,
)
def bench_bots_command(args: argparse.Namespace) -> int:
    report = run_bench_bots(
        _rules(args.rules),
        [x.strip() for x in args.levels.split(",") if x.strip()],
        args.deals,
        args.seed,
        budget=args.budget,
    )
    if args.json:
        print(json.dumps(report, indent=2))
    return 0
