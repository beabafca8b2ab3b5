"""Print the mutation score of the last ``mutmut run`` and judge it.

``python -m planted.mutation_score [--min 95] [--show]``

Reads every mutant's status through ``mutmut results --all true`` (run in the
project root, after ``mutmut run``), prints killed / total and the survivors,
and exits non-zero when the score is below ``--min`` percent. A survivor that
docs/mutation.md does not name is flagged: each one there is explained as
equivalent, so a new name means a new gap or a renumbered mutant to recheck.
``--show`` prints each survivor's diff (``mutmut show``).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXPLAINED = ROOT / "docs" / "mutation.md"


def _mutmut() -> list[str]:
    # The console script, not `python -m mutmut`: mutmut warns that running
    # its __main__ as a module re-executes it.
    beside = Path(sys.executable).with_name("mutmut")
    found = str(beside) if beside.exists() else shutil.which("mutmut")
    if found is None:
        raise SystemExit("mutation_score: mutmut is not installed (pip install mutmut)")
    return [found]


def statuses() -> dict[str, str]:
    """Every mutant's name and status from ``mutmut results --all true``."""
    completed = subprocess.run(
        [*_mutmut(), "results", "--all", "true"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise SystemExit(f"mutation_score: mutmut results failed:\n{completed.stderr}")
    found = {}
    for line in completed.stdout.splitlines():
        name, colon, status = line.strip().rpartition(": ")
        if colon and name.startswith("evaluator."):
            found[name] = status
    return found


def _show(name: str) -> str:
    completed = subprocess.run(
        [*_mutmut(), "show", name],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return completed.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m planted.mutation_score")
    parser.add_argument(
        "--min", type=float, default=95.0, help="lowest acceptable score, in percent"
    )
    parser.add_argument("--show", action="store_true", help="print survivors' diffs")
    args = parser.parse_args(argv)

    found = statuses()
    if not found:
        print("mutation_score: no mutants found; run `mutmut run` first")
        return 1
    counts = Counter(found.values())
    total = len(found)
    killed = counts["killed"]
    score = 100.0 * killed / total
    print(f"mutation score: {killed}/{total} killed ({score:.1f}%)")
    for status, count in sorted(counts.items()):
        if status != "killed":
            print(f"  {status}: {count}")

    explained = EXPLAINED.read_text(encoding="utf-8") if EXPLAINED.exists() else ""
    for name, status in sorted(found.items()):
        if status == "killed":
            continue
        short = name.removeprefix("evaluator.evaluation.")
        mark = "" if short in explained else "  <- not explained in docs/mutation.md"
        print(f"- {short}: {status}{mark}")
        if args.show:
            print(_show(name))
    if score < args.min:
        print(f"mutation score {score:.1f}% is below the required {args.min:.1f}%")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
