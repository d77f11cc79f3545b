"""The engine's command line: ``python -m games.engine <command> ...``.

Commands register themselves with :func:`command`. Adding one (``arena``, ``bench-bots``, ...)
is a decorated function in any module, plus that module's name in ``COMMAND_MODULES``::

    # games/engine/bots/commands.py
    from ..cli import command

    def _arguments(parser):
        parser.add_argument("--games", type=int, default=100)

    @command("arena", help="play bots against each other", configure=_arguments)
    def arena(args):            # returns the exit status
        ...

Every command runs without Django. A bad record exits with status 2 and one line on stderr,
``error: <what and why>``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from typing import Any

from .bench import run_bench
from .errors import EngineError, RecordError
from .phases import DISCARD
from .records import deal_from_record, load_json, match_from_record
from .rules import Rules

EXIT_BAD_INPUT = 2

# Modules imported before the parser is built, so that their @command functions register.
COMMAND_MODULES: list[str] = [
    "games.engine.bots.commands",
    "games.engine.solver_bench",
]  # arena, bench-bots, bench-solver

# A subcommand: its function (args -> exit status) and what adds its arguments to a parser.
Run = Callable[[argparse.Namespace], int]
Configure = Callable[[argparse.ArgumentParser], None]
_COMMANDS: dict[str, tuple[Run, str, Configure | None]] = {}


def command(name: str, help: str, configure: Configure | None = None) -> Callable[[Run], Run]:
    """Register ``func(args) -> exit status`` as the subcommand ``name``.

    ``configure(parser)`` adds the command's arguments.
    """

    def register(func: Run) -> Run:
        _COMMANDS[name] = (func, help, configure)
        return func

    return register


def build_parser() -> argparse.ArgumentParser:
    for module in COMMAND_MODULES:
        importlib.import_module(module)
    parser = argparse.ArgumentParser(
        prog="python -m games.engine", description="The Setback rules engine."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (func, help_text, configure) in _COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if configure is not None:
            configure(p)
        p.set_defaults(_run=func)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status: int = args._run(args)
        return status
    except EngineError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT


# ---------------------------------------------------------------------- helpers for commands
def read_json(path: str) -> Any:
    """The JSON in file ``path`` (``-`` for stdin); RecordError if unreadable or malformed."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise RecordError(f"cannot read {path}: not UTF-8 text") from None
    return load_json(text)


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2))


def _file_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a JSON record, or - for standard input")


# ---------------------------------------------------------------------- the engine's commands
@command("score", help="score a complete deal record", configure=_file_argument)
def score_command(args: argparse.Namespace) -> int:
    deal = deal_from_record(read_json(args.file))
    if not deal.is_over:
        raise RecordError("the deal is not over")
    print_json(deal.result().to_json())
    return 0


@command("legal", help="list the legal actions of a deal in progress", configure=_file_argument)
def legal_command(args: argparse.Namespace) -> int:
    deal = deal_from_record(read_json(args.file))
    seat = deal.to_act
    if deal.phase == DISCARD:
        assert seat is not None  # a seat is to discard
        legal: list[str] = deal.discardable(seat)  # docs/rules.md: the cards it may discard
    else:
        legal = deal.legal_actions()
    print_json({"to_act": seat, "phase": deal.phase, "legal": legal})
    return 0


@command(
    "match",
    help="replay a match record: each deal's score, the totals, the winner",
    configure=_file_argument,
)
def match_command(args: argparse.Namespace) -> int:
    state = match_from_record(read_json(args.file))
    print_json(state.to_json())
    return 0


def _bench_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules", default="house", help='a preset name or a JSON spec (default "house")'
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="how long to run (default 3)")
    parser.add_argument("--seed", type=int, default=None, help="seed for the random deals")


@command(
    "bench",
    help="play random complete deals on one core; prints 'N deals/s' last",
    configure=_bench_arguments,
)
def bench_command(args: argparse.Namespace) -> int:
    spec: Any = args.rules
    if spec.startswith("{"):
        spec = json.loads(spec)
    return run_bench(Rules.from_spec(spec), seconds=args.seconds, seed=args.seed)
