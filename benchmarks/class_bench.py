"""How long a class takes: wall time of `--jobs N` against the single runs.

``python -m benchmarks.class_bench [--learners 20] [--jobs N] [--keep DIR]``

Builds a class of learner folders, each a copy of the bundled ``evaluator``
package (its modules load through the command like a course folder's): half
unchanged, half with one planted mistake each from ``planted.bugs`` (the
first ones of the catalogue, so the class is the same every time). Then it
runs ``day7-verify`` (``python -m day7_verify``) on each folder alone, one
after the other, and on the whole class with ``--cohort --jobs N``, and
prints

    ratio = class wall / (sum of single runs / N)

which is 1.0 for perfect use of N cores. The goal is at most 1.3. A plain
script, not a timed test; run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from day7_verify.cohort._pool import default_jobs
from planted.bugs import BUGS, plant

ROOT = Path(__file__).resolve().parent.parent
EVALUATOR = ROOT / "evaluator"
GOAL = 1.3


def build_class(into: Path, learners: int) -> list[Path]:
    """`learners` folders under `into`: even ones clean, odd ones with a bug."""
    folders = []
    bugs = iter(BUGS)
    for index in range(learners):
        folder = into / f"learner-{index:02d}"
        shutil.copytree(EVALUATOR, folder, ignore=shutil.ignore_patterns("__pycache__"))
        if index % 2:
            bug = next(bugs)
            module = folder / bug.module
            module.write_text(plant(bug, module.read_text(encoding="utf-8")))
        folders.append(folder)
    return folders


def _command(*args: str) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        started = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "day7_verify", *args, "--json", str(report)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        seconds = time.monotonic() - started
        return seconds, json.loads(report.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.class_bench")
    parser.add_argument("--learners", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=default_jobs())
    parser.add_argument("--keep", type=Path, help="build the class here and keep it")
    args = parser.parse_args(argv)
    if args.learners < 1 or args.jobs < 1:
        parser.error("--learners and --jobs must be at least 1")
    root = args.keep or Path(tempfile.mkdtemp(prefix="class-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        folders = build_class(root / "class", args.learners)
        singles = []
        for folder in folders:
            seconds, report = _command(str(folder), "--jobs", "1")
            status = report["learners"][0]["status"]
            singles.append(seconds)
            print(f"  {folder.name}: {status} in {seconds:.1f} s", flush=True)
        total = sum(singles)
        wall, report = _command(
            "--cohort", str(root / "class"), "--jobs", str(args.jobs)
        )
        ideal = total / args.jobs
        ratio = wall / ideal
        statuses = report["summary"]
        print(
            f"\n{args.learners} learners, {os.cpu_count()} cores, --jobs {args.jobs}\n"
            f"sum of single runs: {total:.1f} s (mean {total / args.learners:.1f} s)\n"
            f"class wall time:    {wall:.1f} s\n"
            f"ideal (sum / jobs): {ideal:.1f} s\n"
            f"ratio:              {ratio:.2f} (goal <= {GOAL})\n"
            f"statuses:           {statuses}"
        )
        return 0 if ratio <= GOAL else 1
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
