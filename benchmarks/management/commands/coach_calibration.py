"""``python manage.py coach_calibration``: are the coach's stated chances honest?

Self-play deals at the hard level; per tenth of stated chance, the mean stated beside what
happened, and the expected calibration error, for making the chosen bid and for each point;
plus any decision whose chances contradict (a higher bid in the same suit said to be more
likely made than a lower one). With ``--raw`` it measures the search's own chances and prints the
map fitted on them (for games/engine/coach/chances.py). See games/engine/coach/calibration.py.
"""

import json as json_module
import sys

from django.core.management.base import BaseCommand, CommandError

from games.engine.coach.calibration import KINDS, OPPONENTS, Calibration, run
from games.engine.coach.chances import TABLE_KNOTS


class Command(BaseCommand):
    help = "Calibration of the coach's stated chances on self-play deals at the hard level."

    def add_arguments(self, parser):
        parser.add_argument(
            "--rules", default="house", help='a preset name or a JSON spec (default "house")'
        )
        parser.add_argument("--deals", type=int, default=200, help="self-play deals (default 200)")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--budget", type=int, default=None, help="override the search budget (simulated deals)"
        )
        parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
        parser.add_argument("--progress", action="store_true")
        parser.add_argument(
            "--raw",
            action="store_true",
            help="measure the search's own chances (before the honest-chances map) and fit that map",
        )
        parser.add_argument(
            "--fit",
            action="store_true",
            help="print the map fitted on these chances (as --raw does): for a table's map "
            "(chances.TABLE_KNOTS), fitted on deals played with that map empty",
        )
        parser.add_argument(
            "--map-table",
            choices=sorted(TABLE_KNOTS),
            help="with --load: the chances as the table's map (chances.TABLE_KNOTS) states "
            "them; a map changes no move, so this checks a map on deals played without it",
        )
        parser.add_argument(
            "--opponents",
            choices=OPPONENTS,
            default="self",
            help="self-play, or one side the coach and the other the outside greedy player "
            "or a bot level (default self)",
        )
        parser.add_argument(
            "--seated",
            action="store_true",
            help="tell the coach who sits at the table (bots.seats), as the site's coach is",
        )
        parser.add_argument(
            "--save",
            metavar="FILE",
            help="append each finished deal's figures to FILE (JSON lines), as it ends",
        )
        parser.add_argument(
            "--load",
            metavar="FILE",
            nargs="+",
            help="play nothing: report on the deals saved in these files (by --save)",
        )

    def handle(
        self,
        *args,
        rules,
        deals,
        seed,
        budget,
        json: bool,
        progress: bool,
        raw: bool,
        save,
        load,
        opponents="self",
        seated=False,
        fit=False,
        map_table=None,
        **options,
    ):
        if load:
            cal = _load(load)
            raw = cal.raw  # the saved chances say whether they were the search's own
            if map_table:
                cal = cal.mapped(TABLE_KNOTS[map_table])
        else:
            cal = _play(rules, deals, seed, budget, progress, raw, save, opponents, seated)
        report = cal.report()
        fit = fit or raw
        if fit:
            report["fitted_knots"] = {kind: cal.fit_knots(kind) for kind in KINDS}
        if json:
            self.stdout.write(json_module.dumps(report, indent=2))
            return
        self.stdout.write(
            f"{report['deals']} deals, {report['decisions']} decisions with a choice "
            f"({report['bid_decisions']} in the auction)"
        )
        for kind in KINDS:
            data = report["kinds"][kind]
            self.stdout.write(
                f"\n{kind}: n={data['n']} ECE={data['ece']} (90% over resampled deals: "
                f"{data['ece_90']}; if every chance were right: {data['noise_floor']})"
            )
            self.stdout.write("  tenth      n   stated  happened")
            for row in data["tenths"]:
                if row["n"]:
                    self.stdout.write(
                        f"  {row['tenth']}  {row['n']:5d}  {row['stated']:.3f}   {row['happened']:.3f}"
                    )
        if fit:
            self.stdout.write(
                "\nfitted knots (stated, happened), for games/engine/coach/chances.py:"
            )
            for kind in KINDS:
                self.stdout.write(f"  {kind!r}: {report['fitted_knots'][kind]},")
        self.stdout.write(f"\ncontradictions: {len(report['contradictions'])}")
        for item in report["contradictions"][:10]:
            self.stdout.write(
                f"  deal {item['deal']} seat {item['seat']}: {item['higher']} said likelier made than {item['lower']}"
            )


def _play(rules, deals, seed, budget, progress, raw, save, opponents, seated) -> Calibration:
    spec = json_module.loads(rules) if rules.strip().startswith("{") else rules

    def tell(done: int) -> None:
        if progress and done % 10 == 0:
            print(f"{done} deals", file=sys.stderr, flush=True)

    if not save:
        return run(
            spec,
            deals,
            seed=seed,
            budget=budget,
            progress=tell,
            raw=raw,
            opponents=opponents,
            seated=seated,
        )
    with open(save, "a", encoding="utf-8") as out:

        def keep(figures: dict) -> None:
            out.write(json_module.dumps(figures) + "\n")
            out.flush()

        return run(
            spec,
            deals,
            seed=seed,
            budget=budget,
            progress=tell,
            raw=raw,
            save=keep,
            opponents=opponents,
            seated=seated,
        )


def _saved(paths):
    for path in paths:
        try:
            with open(path, encoding="utf-8") as saved:
                for number, line in enumerate(saved, 1):
                    if line.strip():
                        try:
                            yield json_module.loads(line)
                        except ValueError as error:
                            raise CommandError(f"{path}:{number}: not JSON ({error})") from error
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from error


def _load(paths) -> Calibration:
    try:
        return Calibration.from_saved(_saved(paths))
    except ValueError as error:
        raise CommandError(str(error)) from error
