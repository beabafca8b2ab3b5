"""Is `judge/parts.COSTS` still true? Each invariant's cost measured, beside it.

    python -m benchmarks.costs --impl-path PATH/src/tiny_llm_ref/agent
    python -m benchmarks.costs --impl-path DIR --seeds 1 2 3 4 5 --parts 2

`day7-verify` splits one learner's invariants across cores by the costs in
`judge/parts.COSTS`; nothing in the tests can see that table drift from the
truth (it did, silently, for a whole stop: the parts then ended 1.2 s apart).
This runs `pytest tests/invariants` once per seed in one process (the ci
profile), sums each invariant's test durations with a small plugin (this
module, loaded with `-p benchmarks.costs`), takes the median over the seeds,
and prints the table beside it: each invariant's cost, the time each part
would take under today's split and under the split the measured costs give,
and, when re-measuring would shorten the verdict by more than TOLERANCE, the
table to paste. Exit status 0 when the table still balances the parts, 1 when
it is stale, 2 when a measuring run failed.

Invariants the run does not reach (the hardened-only ones at the course
level) keep their table value. A machine uniformly faster or slower is no
drift: only the split matters, and scaling every cost keeps it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks.bench import invariants_command
from judge.ordering import INVARIANT_ORDER
from judge.parts import COSTS, assign

#: How much later than the measured costs' split today's may end before the
#: table is called stale (a guide for one machine's noise, not a law).
TOLERANCE = 0.05

_OUT = "DAY7_COSTS_OUT"
_ROOT = Path(__file__).resolve().parents[1]


# --- the plugin: seconds per invariant in one pytest run ---------------------------

_owner: dict[str, str] = {}
_seconds: dict[str, float] = {}
_skipped: set[str] = set()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        marker = item.get_closest_marker("invariant")
        if marker is not None and marker.args:
            _owner[item.nodeid] = str(marker.args[0])


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.nodeid in _owner:  # setup, call and teardown alike
        _seconds[report.nodeid] = _seconds.get(report.nodeid, 0.0) + report.duration
        if report.skipped:
            _skipped.add(report.nodeid)


def pytest_sessionfinish() -> None:
    """Each invariant's seconds, over its tests that ran: one skipped whole
    (a hardened-only invariant at the course level) is not in the split."""
    out = os.environ.get(_OUT)
    if not out:
        return
    costs: dict[str, float] = {}
    for nodeid, seconds in _seconds.items():
        if nodeid not in _skipped:
            name = _owner[nodeid]
            costs[name] = costs.get(name, 0.0) + seconds
    Path(out).write_text(json.dumps(costs), encoding="utf-8")


# --- the comparison (pure) ---------------------------------------------------------


@dataclass(frozen=True)
class Drift:
    """Today's table beside measured costs, for a run in `parts` parts.

    `costs` is the measured cost of each invariant (the table's own where
    none was measured); `now` each part's seconds under today's split,
    `best` under the split the measured costs give.
    """

    table: Mapping[str, float]
    costs: Mapping[str, float]
    now: tuple[float, ...]
    best: tuple[float, ...]

    @property
    def stale(self) -> bool:
        """Re-measuring would end the slowest part more than TOLERANCE sooner."""
        return max(self.now) > max(self.best) * (1 + TOLERANCE)


def _loads(
    split: Mapping[str, int], costs: Mapping[str, float], parts: int
) -> tuple[float, ...]:
    return tuple(
        sum(costs[name] for name, part in split.items() if part == index)
        for index in range(1, parts + 1)
    )


def drift(
    measured: Mapping[str, float],
    parts: int = 2,
    table: Mapping[str, float] = COSTS,
    names: Sequence[str] | None = None,
) -> Drift:
    """Today's split (by `table`) and the measured one, each timed by `measured`.

    `names` are the invariants the run splits (those of its level): by
    default the ones measured.
    """
    split = tuple(measured) if names is None else tuple(names)
    costs = {name: measured.get(name, table.get(name, 0.0)) for name in INVARIANT_ORDER}
    costs.update({name: measured.get(name, table.get(name, 0.0)) for name in split})
    now = _loads(assign(parts, split, table), costs, parts)
    best = _loads(assign(parts, split, costs), costs, parts)
    return Drift(dict(table), costs, now, best)


def median_costs(runs: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Each invariant's median over the runs that measured it."""
    names = sorted({name for run in runs for name in run})
    return {
        name: statistics.median(run[name] for run in runs if name in run)
        for name in names
    }


def report(result: Drift, measured: Mapping[str, float]) -> list[str]:
    """The comparison in words: a row an invariant, the parts, the verdict."""
    lines = ["invariant                      table  measured  measured/table"]
    for name in sorted(result.costs, key=lambda n: -result.costs[n]):
        had = result.table.get(name)
        if name in measured:
            ratio = f"{measured[name] / had:.2f}" if had else "new"
            cost = f"{measured[name]:.2f}"
        else:
            cost, ratio = "-", "not run here"
        shown = "-" if had is None else f"{had:.2f}"
        lines.append(f"{name:28} {shown:>7} {cost:>9}  {ratio}")
    ends = " + ".join(f"{seconds:.1f}" for seconds in result.now)
    lines.append(f"the parts by today's table: {ends} s (the slowest ends the verdict)")
    ends = " + ".join(f"{seconds:.1f}" for seconds in result.best)
    lines.append(f"the parts by the measured costs: {ends} s")
    if not result.stale:
        lines.append("COSTS still balances the parts: nothing to change")
        return lines
    lines.append(
        f"COSTS is stale: the slowest part would end"
        f" {max(result.now) - max(result.best):.1f} s sooner; in judge/parts.py:"
    )
    lines.append("COSTS: Mapping[str, float] = {")
    lines.extend(
        f'    "{name}": {result.costs[name]:.2f},'
        for name in INVARIANT_ORDER
        if name in result.costs
    )
    lines.append("}")
    return lines


# --- measuring ---------------------------------------------------------------------


def measure(seed: int, target: Sequence[str]) -> dict[str, float]:
    """Seconds per invariant in one ci-profile run of tests/invariants."""
    with tempfile.TemporaryDirectory(prefix="day7-costs-") as scratch:
        out = Path(scratch) / "costs.json"
        command = invariants_command(
            "-p", "benchmarks.costs", f"--hypothesis-seed={seed}", *target
        )
        print("$ " + " ".join(command[2:]), flush=True)
        env = {**os.environ, "CI": "true", _OUT: str(out)}
        done = subprocess.run(
            command, cwd=_ROOT, env=env, capture_output=True, check=False
        )
        if done.returncode != 0 or not out.exists():
            tail = done.stdout.decode(errors="replace").strip().splitlines()[-1:]
            raise RuntimeError(
                f"the run of seed {seed} failed (exit {done.returncode}):"
                f" {' '.join(tail)}"
            )
        seconds: dict[str, float] = json.loads(out.read_text(encoding="utf-8"))
        return seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.costs",
        description="Measure each invariant's cost beside judge/parts.COSTS.",
    )
    parser.add_argument(
        "--impl-path",
        metavar="DIR",
        help="the folder to measure on (COSTS was measured on the course reference)",
    )
    parser.add_argument(
        "--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5], metavar="N"
    )
    parser.add_argument(
        "--parts",
        type=int,
        default=2,
        metavar="N",
        help="parts of a run (cores), default 2",
    )
    args = parser.parse_args(argv)
    if args.parts < 1:
        parser.error(f"--parts must be at least 1, not {args.parts}")
    target = ["--impl-path", args.impl_path] if args.impl_path else []
    try:
        runs = [measure(seed, target) for seed in args.seeds]
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    measured = median_costs(runs)
    result = drift(measured, args.parts)
    print("\n".join(report(result, measured)))
    return 1 if result.stale else 0


if __name__ == "__main__":
    sys.exit(main())
