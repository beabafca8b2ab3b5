"""Run the invariants against every planted bug under several seeds.

``python -m planted [--seeds N] [--profile dev] [--only NAME] [--jobs 2]``

For every bug in ``planted.bugs.BUGS`` and every seed, a fresh copy of the
bundled ``evaluator`` package gets the bug's one substitution and is judged by
``tests/invariants`` through ``--impl-path``, at hardened level. A bug is
caught under a seed when pytest exits 1 and the failing invariants include
one the catalogue expects. The unmodified copy is judged first: it must pass,
or the harness itself is wrong. The exit status is non-zero when the original
fails, a substitution no longer applies, or a bug escapes under any seed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from planted._runs import seed_unicode_tables
from planted.bugs import BUGS, TASKS, PlantedBug, PlantError, plant

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "evaluator"
INVARIANTS = ROOT / "tests" / "invariants"

# Seeds are fixed so a report can be reproduced; they are spread out so that
# consecutive runs do not share any structure of the random stream.
FIRST_SEED = 20250


@dataclass(frozen=True)
class Outcome:
    """What one pytest run over one (possibly bugged) copy said."""

    bug: str  # "" for the unmodified copy
    seed: int
    exit_code: int | None  # None: killed after the timeout
    failed: tuple[str, ...]  # invariant names that failed
    seconds: float
    output_tail: str

    @property
    def passed(self) -> bool:
        return self.exit_code == 0


def _copy_package(into: Path) -> Path:
    copy = into / "evaluator"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _plant_into(bug: PlantedBug, package: Path) -> None:
    module = package / bug.module
    text = module.read_text(encoding="utf-8")
    module.write_text(plant(bug, text), encoding="utf-8")


def _failed_invariants(report: Path) -> tuple[str, ...]:
    """Names of failed invariants in a ``--verification-json`` report."""
    try:
        data = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ()
    return tuple(
        sorted(
            {
                str(item["name"])
                for item in data.get("invariants", ())
                if str(item.get("status", "")).upper() == "FAIL"
            }
        )
    )


def _pytest_command(
    package: Path,
    seed: int,
    profile: str,
    report: Path,
    invariants: tuple[str, ...] | None,
    shrink: bool,
) -> list[str]:
    extra = ["-p", "planted._select"]
    if invariants is not None:
        extra += ["--planted-invariants", ",".join(invariants)]
    if not shrink:
        extra.append("--planted-no-shrink")
    return [
        sys.executable,
        "-m",
        "pytest",
        str(INVARIANTS),
        "--rootdir",
        str(ROOT),
        "-p",
        "no:cacheprovider",
        "-q",
        "--impl-path",
        str(package),
        "--level",
        "hardened",
        "--hypothesis-profile",
        profile,
        "--hypothesis-seed",
        str(seed),
        "--verification-json",
        str(report),
        *extra,
    ]


def judge(
    bug: PlantedBug | None,
    seed: int,
    profile: str,
    timeout: float,
    invariants: tuple[str, ...] | None = None,
    shrink: bool = False,
) -> Outcome:
    """Judge one copy of the package, with ``bug`` planted, under ``seed``.

    ``invariants`` keeps only those invariants' tests; ``None`` runs them all.
    """
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="planted-") as scratch:
        scratch_path = Path(scratch)
        package = _copy_package(scratch_path)
        if bug is not None:
            _plant_into(bug, package)
        report = scratch_path / "verification.json"
        seed_unicode_tables(scratch_path)
        # The working directory is the scratch folder so that Hypothesis keeps
        # its example database there: a failure found under one seed must not
        # be replayed under the next, or detection would not be independent.
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(
                [str(ROOT), os.environ.get("PYTHONPATH", "")]
            ).rstrip(os.pathsep),
        )
        env.pop("CI", None)  # CI=true would pick Hypothesis's built-in profile
        process = subprocess.Popen(
            _pytest_command(package, seed, profile, report, invariants, shrink),
            cwd=scratch,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            output, _ = process.communicate(timeout=timeout)
            exit_code: int | None = process.returncode
        except subprocess.TimeoutExpired:
            # A bug can make evaluation block (a FIFO opened for reading); end
            # the whole process group this run started, and only it.
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            exit_code = None
        failed = _failed_invariants(report)
    tail = "\n".join(output.strip().splitlines()[-15:])
    return Outcome(
        bug="" if bug is None else bug.name,
        seed=seed,
        exit_code=exit_code,
        failed=failed,
        seconds=time.monotonic() - started,
        output_tail=tail,
    )


def caught(bug: PlantedBug, outcome: Outcome) -> bool:
    """A bug is caught when pytest fails and names an invariant we expect."""
    return outcome.exit_code == 1 and bool(set(outcome.failed) & set(bug.catches))


def _check_catalogue(bugs: tuple[PlantedBug, ...]) -> list[str]:
    """Every substitution applies to today's source exactly once."""
    problems = []
    for bug in bugs:
        try:
            plant(bug, (PACKAGE / bug.module).read_text(encoding="utf-8"))
        except (OSError, PlantError) as error:
            problems.append(f"{bug.name}: {error}")
    return problems


def _table(
    bugs: tuple[PlantedBug, ...], results: dict[str, list[Outcome]], seeds: int
) -> str:
    rows = [("bug", "task", "caught", "invariants that failed (union over seeds)")]
    for bug in bugs:
        outcomes = results[bug.name]
        hits = sum(caught(bug, outcome) for outcome in outcomes)
        failed = sorted({name for outcome in outcomes for name in outcome.failed})
        hangs = sum(outcome.exit_code is None for outcome in outcomes)
        note = f" ({hangs} timed out)" if hangs else ""
        rows.append(
            (bug.name, bug.task, f"{hits}/{seeds}{note}", ", ".join(failed) or "-")
        )
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    lines = []
    for row in rows:
        cells = [row[column].ljust(widths[column]) for column in range(3)]
        lines.append("  ".join([*cells, row[3]]))
    return "\n".join(lines)


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m planted",
        description="Show that every planted bug in the bundled evaluator"
        " fails the invariants.",
    )
    parser.add_argument(
        "--seeds", type=int, default=10, help="seeds per bug (default 10)"
    )
    parser.add_argument(
        "--profile", default="dev", help="Hypothesis profile (default dev)"
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this bug (repeatable)",
    )
    parser.add_argument(
        "--jobs", type=int, default=2, help="pytest runs in parallel (default 2)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        help="seconds before one pytest run counts as hung",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="judge every bug by every invariant, not only by the ones it expects",
    )
    parser.add_argument(
        "--shrink",
        action="store_true",
        help="let Hypothesis shrink failures (slower; detection is the same)",
    )
    parser.add_argument(
        "--invariants",
        metavar="NAMES",
        help="judge every bug by these comma-separated invariants instead",
    )
    parser.add_argument(
        "--json", type=Path, metavar="PATH", help="also write every outcome as JSON"
    )
    parser.add_argument(
        "--list", action="store_true", help="print the catalogue and exit"
    )
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error(f"--seeds must be at least 1, got {args.seeds}")
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    known = {bug.name for bug in BUGS}
    unknown = [name for name in args.only if name not in known]
    if unknown:
        parser.error(f"no planted bug named {', '.join(unknown)}; see --list")
    return args


def _selection(bug: PlantedBug, args: argparse.Namespace) -> tuple[str, ...] | None:
    """The invariants that judge ``bug``; ``None`` means all of them."""
    if args.full:
        return None
    if args.invariants:
        return tuple(name.strip() for name in args.invariants.split(","))
    return bug.catches


def _list(bugs: tuple[PlantedBug, ...]) -> None:
    for task, title in TASKS.items():
        print(f"{title}:")
        for bug in bugs:
            if bug.task == task:
                print(f"  {bug.name}: {bug.mistake} [{', '.join(bug.catches)}]")


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    bugs = tuple(bug for bug in BUGS if not args.only or bug.name in args.only)
    if args.list:
        _list(bugs)
        return 0
    problems = _check_catalogue(bugs)
    if problems:
        print("planted: the catalogue no longer matches evaluator/:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    seeds = [FIRST_SEED + 7919 * index for index in range(args.seeds)]
    started = time.monotonic()

    original = judge(None, seeds[0], args.profile, args.timeout, None, args.shrink)
    verdict = "PASS" if original.passed else "FAIL"
    print(
        f"original (seed {seeds[0]}): {verdict} in {original.seconds:.1f}s", flush=True
    )
    if not original.passed:
        print(
            "planted: the unmodified evaluator fails the invariants;"
            " the harness is wrong."
        )
        print(original.output_tail)
        return 1

    jobs = [(bug, seed) for bug in bugs for seed in seeds]
    results: dict[str, list[Outcome]] = {bug.name: [] for bug in bugs}
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [
            pool.submit(
                judge,
                bug,
                seed,
                args.profile,
                args.timeout,
                _selection(bug, args),
                args.shrink,
            )
            for bug, seed in jobs
        ]
        for (bug, _seed), future in zip(jobs, futures, strict=True):
            outcome = future.result()
            results[bug.name].append(outcome)
            mark = "caught" if caught(bug, outcome) else "ESCAPED"
            print(
                f"  {bug.name} seed {outcome.seed}: {mark} in {outcome.seconds:.1f}s",
                flush=True,
            )

    print()
    print(_table(bugs, results, len(seeds)))
    wall = time.monotonic() - started
    runs = sum(len(outcomes) for outcomes in results.values()) + 1
    print(
        f"\n{len(bugs)} bugs x {len(seeds)} seeds ({runs} pytest runs,"
        f" --jobs {args.jobs}) in {wall:.0f}s"
    )

    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "seeds": seeds,
                    "profile": args.profile,
                    "wall_seconds": round(wall, 1),
                    "original": original.__dict__,
                    "bugs": {
                        bug.name: {
                            "task": bug.task,
                            "expected": list(bug.catches),
                            "outcomes": [
                                outcome.__dict__ for outcome in results[bug.name]
                            ],
                        }
                        for bug in bugs
                    },
                },
                indent=2,
                default=list,
            ),
            encoding="utf-8",
        )

    escaped = [
        (bug, outcome)
        for bug in bugs
        for outcome in results[bug.name]
        if not caught(bug, outcome)
    ]
    for bug, outcome in escaped:
        status = (
            "timed out" if outcome.exit_code is None else f"exit {outcome.exit_code}"
        )
        failed = ", ".join(outcome.failed) or "none"
        print(
            f"ESCAPED {bug.name} (seed {outcome.seed}, {status}):"
            f" expected {', '.join(bug.catches)},"
            f" failed: {failed}"
        )
    if escaped:
        first = escaped[0][1]
        print(
            f"\nlast lines of the first escaped run ({first.bug},"
            f" seed {first.seed}):\n{first.output_tail}"
        )
        return 1
    print("every planted bug was caught under every seed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
