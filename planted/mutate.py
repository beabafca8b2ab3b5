"""Mutation testing of any implementation's evaluation.py.

``python -m planted.mutate --impl-path DIR [--level course|hardened]
[--jobs 2] [--timeout S] [--only N,ID,...] [--profile P --seed S]
[--json OUT] [--list]``

Every mutant of ``DIR/evaluation.py`` (``planted.mutants``: one operator,
constant, argument, condition or statement changed) is written into a fresh
temporary copy of DIR's Python files and judged by the invariants::

    pytest tests/invariants --impl-path COPY --level LEVEL
        --hypothesis-profile ci -p no:cacheprovider -q -x
        -p planted._select --planted-no-shrink

A mutant is killed when pytest exits 1 (some invariant failed), or when the
run exceeds the timeout (it made evaluation hang; counted apart), or when
the loader refuses the copy because the mutated module no longer imports.
It survives when pytest exits 0. Anything else is the harness failing, and
is reported as an error. The copy of the unmutated module (as every mutant
is written: unparsed from its tree) is judged first and must pass.

DIR is only read: nothing is written into it, no bytecode either, and the
command checks that its files are unchanged at the end.

Survivors are looked up in ``planted.equivalent`` by the SHA-256 of
evaluation.py and the level; the exit status is 0 when every survivor is
registered as equivalent (and every registered one survived), 1 when a
survivor is unexplained or a registered one was killed, and 2 when the run
could not be trusted (bad input, the unmutated copy failing, a harness
error, DIR changed).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from planted._runs import (
    ROOT,
    RunResult,
    pytest_env,
    run_pytest,
    seed_unicode_tables,
    snapshot,
    stop_all,
    suite_problem,
)
from planted.equivalent import Register, lookup
from planted.mutants import Mutant, MutationError, generate, roundtrip

MODULE = "evaluation.py"
LEVELS = ("course", "hardened")
DERANDOMIZED = "ci"
# The unmutated run's bound; mutants get 5 times its time (at least 60 s).
_FIRST_TIMEOUT = 600.0

KILLED = "killed"
TIMEOUT = "timeout"
SURVIVED = "survived"
ERROR = "error"

# Modules whose tests are quick and see most mutants, run first.
_FIRST = (
    "test_surface",
    "test_specification",
    "test_report",
    "test_truth",
    "test_unavailable",
    "test_tampering",
    "test_order",
    "test_independence",
)

# pytest's exit statuses that mean something other than a verdict.
_PYTEST_EXITS = {
    2: "interrupted or a collection error",
    3: "pytest internal error",
    4: "usage error",
    5: "no tests collected",
}
_FAILED_TEST = re.compile(r"^FAILED (\S+)", re.MULTILINE)
_IMPORT_REFUSED = f"importing {MODULE} failed"


class UsageProblem(Exception):
    """The command cannot run as asked; the message is one line."""


@dataclass(frozen=True)
class Verdict:
    """What judging one copy (a mutant, or the original) found."""

    status: str
    exit_code: int | None
    seconds: float
    killed_by: str
    tail: str

    def to_dict(self) -> dict[str, object]:
        return {
            "status": self.status,
            "exit_code": self.exit_code,
            "seconds": round(self.seconds, 2),
            "killed_by": self.killed_by,
            "output_tail": self.tail,
        }


@dataclass(frozen=True)
class Settings:
    """How every copy is judged."""

    suite: Path  # the frozen copy of the suite (planted._runs.snapshot)
    level: str
    profile: str
    seed: int | None
    timeout: float
    invariants: str | None = None  # comma-separated; None: every invariant


def _tail(output: str, lines: int = 20) -> str:
    return "\n".join(output.rstrip().splitlines()[-lines:])


def classify(result: RunResult) -> Verdict:
    """Turn one pytest run into a verdict on the copy it judged."""
    output = result.output
    if result.exit_code is None:
        return Verdict(TIMEOUT, None, result.seconds, "timeout", _tail(output))
    if result.exit_code == 0:
        return Verdict(SURVIVED, 0, result.seconds, "", "")
    if result.exit_code == 1:
        failed = _FAILED_TEST.findall(output)
        # Node ids are relative to the scratch folder; keep from tests/ on.
        killer = failed[0][failed[0].find("tests/") :] if failed else "a test"
        return Verdict(KILLED, 1, result.seconds, killer, _tail(output))
    if result.exit_code == 4 and _IMPORT_REFUSED in output:
        # The suite refused to load the mutated module: a learner's folder
        # that does not import is caught too, only earlier.
        return Verdict(KILLED, 4, result.seconds, "import", _tail(output))
    meaning = _PYTEST_EXITS.get(result.exit_code, "unexpected exit status")
    return Verdict(ERROR, result.exit_code, result.seconds, meaning, _tail(output, 40))


def _copy_folder(folder: Path, into: Path) -> Path:
    """A copy of the folder's Python files (the modules the suite imports).

    Only top-level ``*.py`` files: the loader imports nothing else, and a
    learner's folder may hold anything beside them.
    """
    copy = into / folder.name
    copy.mkdir()
    for path in sorted(folder.glob("*.py")):
        if path.is_file():
            shutil.copyfile(path, copy / path.name)
    return copy


def _test_files(suite: Path) -> list[str]:
    """The invariants' modules, cheapest and most basic first.

    ``-x`` stops at the first failure, so most mutants are killed by
    whichever module runs first and can see them; the verdict is the same in
    any order (each test draws its own examples), only the time differs.
    A module not named here runs last, in name order.
    """
    rank = {name: index for index, name in enumerate(_FIRST)}
    files = sorted(
        (suite / "tests" / "invariants").glob("test_*.py"),
        key=lambda path: (rank.get(path.stem, len(rank)), path.name),
    )
    return [str(path) for path in files]


def _pytest_args(copy: Path, settings: Settings) -> list[str]:
    args = [
        *_test_files(settings.suite),
        "--rootdir",
        str(settings.suite),
        "--impl-path",
        str(copy),
        "--level",
        settings.level,
        "--hypothesis-profile",
        settings.profile,
        "-p",
        "no:cacheprovider",
        "-q",
        "-x",
        "-p",
        "planted._select",
        "--planted-no-shrink",
    ]
    if settings.seed is not None:
        args += ["--hypothesis-seed", str(settings.seed)]
    if settings.invariants is not None:
        args += ["--planted-invariants", settings.invariants]
    return args


def judge(folder: Path, module_source: str, settings: Settings) -> Verdict:
    """Judge a fresh copy of ``folder`` whose evaluation.py is ``module_source``.

    The working directory is the scratch folder, so a profile with an example
    database keeps it there: no run replays another's failures.
    """
    with tempfile.TemporaryDirectory(prefix="mutate-") as scratch:
        scratch_path = Path(scratch)
        copy = _copy_folder(folder, scratch_path)
        (copy / MODULE).write_text(module_source, encoding="utf-8")
        seed_unicode_tables(scratch_path)
        result = run_pytest(
            _pytest_args(copy, settings),
            cwd=scratch_path,
            timeout=settings.timeout,
            env=pytest_env(settings.suite),
        )
    return classify(result)


def _fingerprint(folder: Path) -> dict[str, str]:
    """Every top-level file's digest: DIR must be the same after the run."""
    found = {}
    for path in sorted(folder.iterdir()):
        if path.is_file() and not path.is_symlink():
            found[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            found[path.name] = "not a regular file"
    return found


# ---------------------------------------------------------------------------
# The command line


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m planted.mutate",
        description="Mutate DIR/evaluation.py one change at a time and show"
        " which changes the invariants catch.",
    )
    parser.add_argument(
        "--impl-path",
        required=True,
        type=Path,
        metavar="DIR",
        help="a course agent folder (or evaluator/); DIR is never modified",
    )
    parser.add_argument(
        "--level", choices=LEVELS, default="course", help="default: course"
    )
    parser.add_argument(
        "--jobs", type=int, default=2, help="copies judged at once (default 2)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds before a run counts as hung, killing its mutant"
        " (default: 5 times the unmutated run, at least 60)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="N,ID,...",
        help="judge only these mutants, by number or id (see --list; repeatable)",
    )
    parser.add_argument(
        "--profile",
        default=DERANDOMIZED,
        help="Hypothesis profile (default ci: derandomized, no database)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="Hypothesis seed; any profile obeys it (ci is derandomized only"
        " without one: strategies/profiles.py)",
    )
    parser.add_argument(
        "--invariants",
        metavar="NAMES",
        default=None,
        help="judge by these comma-separated invariants only (a partial run:"
        " its score is not the suite's)",
    )
    parser.add_argument(
        "--suite",
        type=Path,
        default=ROOT,
        metavar="CHECKOUT",
        help="the checkout of this project whose tests judge (default: this one);"
        " it is copied once at the start, so edits during the run do not count",
    )
    parser.add_argument(
        "--json", type=Path, metavar="OUT", help="also write every verdict as JSON"
    )
    parser.add_argument(
        "--list", action="store_true", help="print the mutants and exit"
    )
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    if args.timeout is not None and args.timeout <= 0:
        parser.error(f"--timeout must be positive, got {args.timeout}")
    return args


def _read_module(folder: Path) -> str:
    if not folder.is_dir():
        raise UsageProblem(f"--impl-path {folder}: not a directory")
    module = folder / MODULE
    if not module.is_file():
        raise UsageProblem(f"--impl-path {folder}: holds no {MODULE}")
    try:
        return module.read_bytes().decode("utf-8")
    except OSError as error:
        raise UsageProblem(f"{module}: cannot be read: {error.strerror}") from None
    except UnicodeDecodeError:
        raise UsageProblem(f"{module}: is not UTF-8 text") from None


def _select(mutants: tuple[Mutant, ...], only: list[str]) -> tuple[Mutant, ...]:
    wanted = [item.strip() for text in only for item in text.split(",") if item.strip()]
    if not wanted:
        return mutants
    by_key = {str(mutant.number): mutant for mutant in mutants}
    by_key.update({mutant.id: mutant for mutant in mutants})
    unknown = [key for key in wanted if key not in by_key]
    if unknown:
        raise UsageProblem(
            f"--only: no mutant {', '.join(unknown)} (of {len(mutants)}); see --list"
        )
    chosen = {by_key[key].number for key in wanted}
    return tuple(mutant for mutant in mutants if mutant.number in chosen)


def _list(mutants: tuple[Mutant, ...], register: Register | None) -> None:
    for mutant in mutants:
        entry = register.reason(mutant.id) if register else None
        mark = f"  [equivalent: {entry.kind}]" if entry else ""
        print(f"{mutant.number:4d} {mutant.id}  ({mutant.scope}){mark}")
        print(f"       {mutant.description}")


def _show(mutant: Mutant) -> str:
    if mutant.line_after:
        return (
            f"  {mutant.line:4d} | {mutant.line_before.strip()}\n"
            f"    -> | {mutant.line_after.strip()}"
        )
    # A node over several lines: its first line, then the change itself.
    return (
        f"  {mutant.line:4d} | {mutant.line_before.strip()} ...\n"
        f"   was | {mutant.before}\n"
        f"    is | {mutant.after}"
    )


def _summary(
    mutants: tuple[Mutant, ...],
    verdicts: dict[str, Verdict],
    register: Register | None,
) -> dict[str, int]:
    counts = Counter(verdict.status for verdict in verdicts.values())
    survivors = [m for m in mutants if verdicts[m.id].status == SURVIVED]
    explained = [m for m in survivors if register and register.reason(m.id)]
    return {
        "mutants": len(mutants),
        "killed": counts[KILLED] + counts[TIMEOUT],
        "killed_by_timeout": counts[TIMEOUT],
        "survived": counts[SURVIVED],
        "equivalent": len(explained),
        "unexplained": len(survivors) - len(explained),
        "errors": counts[ERROR],
    }


def _score_line(summary: dict[str, int]) -> str:
    total = summary["mutants"]
    killed = summary["killed"]
    judged = total - summary["errors"]
    score = 100.0 * killed / judged if judged else 0.0
    killable = judged - summary["equivalent"]
    adjusted = 100.0 * killed / killable if killable else 100.0
    return (
        f"{total} mutants: {killed} killed ({summary['killed_by_timeout']} by"
        f" timeout), {summary['survived']} survived ({summary['equivalent']}"
        f" equivalent, {summary['unexplained']} unexplained), {summary['errors']}"
        f" errors. Score {score:.1f}%; {adjusted:.1f}% of the non-equivalent."
    )


@dataclass(frozen=True)
class Findings:
    """What the survivors and the register say, beyond the counts."""

    unexplained: tuple[str, ...]  # survivors not in the register
    wrongly: tuple[str, ...]  # registered as same-behaviour, yet killed
    stricter: tuple[str, ...]  # registered as contract-free, yet killed


def _report(
    mutants: tuple[Mutant, ...],
    verdicts: dict[str, Verdict],
    register: Register | None,
) -> Findings:
    """Print survivors, register disagreements and errors."""
    survivors = [m for m in mutants if verdicts[m.id].status == SURVIVED]
    if survivors:
        print(f"\nsurvivors ({len(survivors)}):")
    unexplained = []
    for mutant in survivors:
        entry = register.reason(mutant.id) if register else None
        if entry is None:
            unexplained.append(mutant.id)
            verdict = "UNEXPLAINED: not in planted/equivalent.py"
        else:
            verdict = f"equivalent ({entry.kind}): {entry.reason}"
        print(f"- #{mutant.number} {mutant.id} in {mutant.scope}")
        print(_show(mutant))
        print(f"    {verdict}")
    wrongly, stricter = [], []
    for mutant in mutants:
        verdict = verdicts[mutant.id]
        entry = register.reason(mutant.id) if register else None
        if entry is None or verdict.status not in (KILLED, TIMEOUT):
            continue
        if entry.kind == "same-behaviour":
            # A program that behaves as the original cannot fail where the
            # original passed, unless the reason is wrong or a test is flaky.
            wrongly.append(mutant.id)
            print(
                f"REGISTERED AS SAME-BEHAVIOUR BUT KILLED: #{mutant.number}"
                f" {mutant.id} by {verdict.killed_by}; recheck planted/equivalent.py"
            )
        else:
            stricter.append(mutant.id)
            print(
                f"note: #{mutant.number} {mutant.id} is registered as contract-free"
                f" but {verdict.killed_by} kills it: the suite holds this"
                " implementation to something the contract leaves open"
            )
    errors = [m for m in mutants if verdicts[m.id].status == ERROR]
    for mutant in errors:
        verdict = verdicts[mutant.id]
        print(
            f"HARNESS ERROR on #{mutant.number} {mutant.id}: pytest exit"
            f" {verdict.exit_code} ({verdict.killed_by})"
        )
    if errors:
        first = verdicts[errors[0].id]
        print(f"last lines of the first error (#{errors[0].number}):\n{first.tail}")
    return Findings(tuple(unexplained), tuple(wrongly), tuple(stricter))


def _stale(mutants: tuple[Mutant, ...], register: Register | None) -> list[str]:
    """Registered ids that no generated mutant has (the generator changed)."""
    if register is None:
        return []
    known = {mutant.id for mutant in mutants}
    return [entry.mutant for entry in register.equivalents if entry.mutant not in known]


def _run_all(
    folder: Path,
    selected: tuple[Mutant, ...],
    settings: Settings,
    jobs: int,
) -> dict[str, Verdict]:
    verdicts: dict[str, Verdict] = {}
    width = len(str(len(selected)))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {
            pool.submit(judge, folder, mutant.source, settings): mutant
            for mutant in selected
        }
        try:
            for done, future in enumerate(as_completed(futures), start=1):
                mutant = futures[future]
                verdict = future.result()
                verdicts[mutant.id] = verdict
                by = f" by {verdict.killed_by}" if verdict.killed_by else ""
                print(
                    f"[{done:{width}d}/{len(selected)}] {verdict.status:8s}"
                    f" #{mutant.number} {mutant.id} ({verdict.seconds:.1f}s){by}",
                    flush=True,
                )
        except KeyboardInterrupt:
            for future in futures:
                future.cancel()
            stop_all()
            raise
    return verdicts


def _write_json(
    path: Path,
    header: dict[str, object],
    selected: tuple[Mutant, ...],
    verdicts: dict[str, Verdict],
    register: Register | None,
) -> None:
    def equivalent(mutant: Mutant) -> str | None:
        entry = register.reason(mutant.id) if register else None
        return entry.reason if entry else None

    records = [
        {
            **mutant.to_dict(),
            **verdicts[mutant.id].to_dict(),
            "equivalent": equivalent(mutant),
        }
        for mutant in selected
    ]
    path.write_text(
        json.dumps({**header, "mutants": records}, indent=2), encoding="utf-8"
    )


def _judge_all(
    folder: Path, baseline: str, selected: tuple[Mutant, ...], args: argparse.Namespace
) -> tuple[Verdict, dict[str, Verdict], float] | None:
    """The unmutated copy, then every selected mutant, by one frozen suite.

    None when the unmutated copy fails (the reason is printed).
    """
    with tempfile.TemporaryDirectory(prefix="mutate-suite-") as frozen:
        settings = Settings(
            suite=snapshot(Path(frozen), args.suite),
            level=args.level,
            profile=args.profile,
            seed=args.seed,
            timeout=args.timeout or _FIRST_TIMEOUT,
            invariants=args.invariants,
        )
        original = judge(folder, baseline, settings)
        passed = "passes" if original.status == SURVIVED else "FAILS"
        print(f"unmutated copy: {passed} in {original.seconds:.1f}s", flush=True)
        if original.status != SURVIVED:
            print(
                "mutate: the unmutated copy does not pass the invariants, so no"
                f" mutant can be judged (pytest exit {original.exit_code}):\n"
                f"{original.tail}",
                file=sys.stderr,
            )
            return None
        timeout = args.timeout or max(60.0, 5 * original.seconds)
        settings = dataclasses.replace(settings, timeout=timeout)
        return original, _run_all(folder, selected, settings, args.jobs), timeout


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    folder = args.impl_path.resolve()
    try:
        problem = suite_problem(args.suite.resolve())
        if problem:
            raise UsageProblem(f"--suite {problem}")
        source = _read_module(folder)
        mutants = generate(source, MODULE)
        baseline = roundtrip(source, MODULE)
        selected = _select(mutants, args.only)
    except (UsageProblem, MutationError) as error:
        print(f"mutate: {error}", file=sys.stderr)
        return 2
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
    register = lookup(digest, args.level)
    if args.list:
        _list(selected, register)
        return 0

    name = register.name if register else "no register entry"
    print(f"implementation: {folder / MODULE} (sha256 {digest[:16]}..., {name})")
    seed = f", seed {args.seed}" if args.seed is not None else ""
    print(
        f"level {args.level}, profile {args.profile}{seed};"
        f" {len(selected)} of {len(mutants)} mutants, {args.jobs} jobs"
    )
    if args.invariants:
        print(f"partial run: judged by the invariants {args.invariants} only")
    before = _fingerprint(folder)
    started = time.monotonic()
    try:
        judged = _judge_all(folder, baseline, selected, args)
    except KeyboardInterrupt:
        print("\nmutate: interrupted; every run it started was ended", file=sys.stderr)
        return 130
    if judged is None:
        return 2
    original, verdicts, timeout = judged
    wall = time.monotonic() - started

    findings = _report(selected, verdicts, register)
    stale = _stale(mutants, register)
    for mutant_id in stale:
        print(f"STALE REGISTER ENTRY: {mutant_id} is not a mutant of this file")
    summary = _summary(selected, verdicts, register)
    print(f"\n{_score_line(summary)}")
    print(f"wall time {wall:.0f}s (timeout {timeout:.0f}s per run)")
    changed = _fingerprint(folder) != before
    if changed:
        print(f"mutate: {folder} CHANGED during the run", file=sys.stderr)

    if args.json:
        header = {
            "impl_path": str(folder),
            "sha256": digest,
            "register": register.name if register else None,
            "level": args.level,
            "profile": args.profile,
            "seed": args.seed,
            "invariants": args.invariants,
            "timeout": timeout,
            "wall_seconds": round(wall, 1),
            "original": original.to_dict(),
            "summary": summary,
            "unexplained": list(findings.unexplained),
            "same_behaviour_but_killed": list(findings.wrongly),
            "contract_free_but_killed": list(findings.stricter),
            "stale_register_entries": stale,
        }
        _write_json(args.json, header, selected, verdicts, register)
    if summary["errors"] or changed:
        return 2
    return 1 if findings.unexplained or findings.wrongly or stale else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `--list | head`: the reader left, not an error
        sys.stderr.close()
        sys.exit(0)
