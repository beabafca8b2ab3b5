"""The command line: `day7-verify PATH...` and `day7-verify merge PART.json...`.

Exit status: 0 when every learner judged passes, 1 when any does not, 2 for a
usage error or a judge that cannot run learners' code here as asked (one line
on standard error, naming what is wrong, before any learner; every report
path is tried before judging) or a report that could not be written after
judging (the others and the table are still written), 130 when interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from day7_verify.cohort._bundle import BundleError
from day7_verify.cohort._discover import (
    Learner,
    UsageError,
    cohort,
    learner_at,
    named_again,
    unique,
)
from day7_verify.cohort._judge import (
    DEFAULT_MAX_OUTPUT,
    DEFAULT_MEMORY,
    DEFAULT_TIMEOUT,
    PROFILES,
    SEED_LIMIT,
    Judged,
    Settings,
    fresh_seed,
)
from day7_verify.cohort._pool import default_jobs, judge_all, parts_per_learner
from day7_verify.isolation._preflight import JudgeCannotRun
from day7_verify.isolation._sandbox import (
    ISOLATIONS,
    detect,
    not_for_grading,
    unavailable,
)
from day7_verify.isolation._space import DEFAULT_SPACE, default_space, why_unbounded
from day7_verify.isolation._uids import UidError
from day7_verify.reports._baseline import compare
from day7_verify.reports._gradescope import gradescope_results
from day7_verify.reports._html import html_page
from day7_verify.reports._junit import junit_xml
from day7_verify.reports._output import unwritable, write
from day7_verify.reports._report import (
    ClassReport,
    SchemaError,
    Shard,
    read_report,
    tool_version,
    unreportable,
)
from day7_verify.reports._safe import terminal_text
from day7_verify.reports._shard import merge, parse_shard, select
from day7_verify.reports._text import (
    class_lines,
    gone_lines,
    learner_lines,
    verdict_line,
)
from judge.target import LEVELS
from judge.title import disguise
from strategies.budget import EXAMPLES, QUICK_EXAMPLES, THOROUGH_EXAMPLES

__all__ = ["main"]

PROG = "day7-verify"
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([kmgKMG]?)(?:i?[bB])?")
_UNITS = {"": 1 << 20, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        _usage_error(f"{message} (see {PROG} --help)")


def _usage_error(message: str) -> NoReturn:
    # A message may quote a learner's folder name: shown, never obeyed.
    print(terminal_text(f"{PROG}: {message}"), file=sys.stderr)
    raise SystemExit(2)


def _size(text: str) -> int:
    """'4G', '512M', '64k', or a number of MiB, as bytes."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a size such as 4G, 512M or 64k"
        )
    return int(float(match[1]) * _UNITS[match[2].lower()])


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds"
        ) from None
    if not 0 < value < 1e6:
        raise argparse.ArgumentTypeError(f"{text} seconds is not a positive duration")
    return value


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: at least one job")
    return value


#: A seed for every run of this environment that names none: for a test
#: suite that must meet the same examples every time, never for grading.
SEED_VARIABLE = "DAY7_VERIFY_SEED"


def _default_seed() -> int:
    """The run's seed when --seed is not given: $DAY7_VERIFY_SEED, else fresh."""
    given = os.environ.get(SEED_VARIABLE)
    if not given:
        return fresh_seed()
    try:
        return _seed(given)
    except argparse.ArgumentTypeError as error:
        _usage_error(f"{SEED_VARIABLE}: {error}")


def _seed(text: str) -> int:
    try:
        value = int(text.strip(), 10)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a seed: a whole number >= 0"
        ) from None
    if not 0 <= value < SEED_LIMIT:
        raise argparse.ArgumentTypeError(
            f"{text} is not a seed: a whole number from 0 to {SEED_LIMIT - 1}"
        )
    return value


def _judge_parser() -> _Parser:
    parser = _Parser(
        prog=PROG,
        description="Judge learners' Day 7 evaluators (tiny-llm, Week 4) against the"
        " invariants, each in its own bounded child process. The verdict needs"
        " only what a learner has at Day 7 and keeps later (no Day 8 or 9 name;"
        " approvals with plain True): a folder at Day 7, 8 or 9 is judged alike.",
        epilog=f"Also: {PROG} merge PART.json... --json OUT [--html OUT] [--junit OUT]"
        " joins the JSON of --shard runs. Exit status: 0 every learner passes,"
        " 1 one does not, 2 usage error or the judge cannot run here."
        " docs/checking-a-class.md has the details.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a course checkout (its src/tiny_llm/agent is judged) or an agent folder",
    )
    parser.add_argument(
        "--cohort",
        action="append",
        default=[],
        metavar="ROOT",
        help="judge one learner per folder directly under ROOT (repeatable)",
    )
    parser.add_argument(
        "--isolation",
        choices=ISOLATIONS,
        default=None,
        help="how each learner's child is isolated: sandbox (bubblewrap namespaces,"
        " an unprivileged uid), user (root only: a uid of its own), process (none"
        " beyond a child); as root, each learner judged at once gets its own uid;"
        " default: the strongest this machine allows",
    )
    parser.add_argument(
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help=f"learners judged at once (default: the cores, {default_jobs()} here)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"wall-clock limit per learner (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--memory",
        type=_size,
        default=DEFAULT_MEMORY,
        metavar="SIZE",
        help="address-space limit per learner, e.g. 2G"
        f" (default {DEFAULT_MEMORY >> 30}G)",
    )
    parser.add_argument(
        "--max-output",
        type=_size,
        default=DEFAULT_MAX_OUTPUT,
        metavar="SIZE",
        help="bytes of a learner's output kept, e.g. 256k (default 1M)",
    )
    parser.add_argument(
        "--level",
        choices=LEVELS,
        default="course",
        help="course: the chapter's rules (default); hardened: also the bundled"
        " evaluator's stricter ones",
    )
    parser.add_argument(
        "--profile",
        choices=PROFILES,
        default="ci",
        help="Hypothesis profile: how many examples each property draws; ci and dev"
        f" draw {EXAMPLES}, thorough {THOROUGH_EXAMPLES}, quick {QUICK_EXAMPLES} (a"
        " first look: a PASS under quick is not yet one under ci) (default ci)",
    )
    parser.add_argument(
        "--seed",
        type=_seed,
        default=None,
        metavar="N",
        help="draw every example and the score's probe from seed N, to judge again"
        " as a report says (default: a fresh seed per run, shown in every report)",
    )
    parser.add_argument("--json", metavar="FILE", help="write the verdicts as JSON")
    parser.add_argument(
        "--html", metavar="FILE", help="write one self-contained web page"
    )
    parser.add_argument(
        "--junit", metavar="FILE", help="write JUnit XML for CI systems"
    )
    parser.add_argument(
        "--gradescope",
        metavar="FILE",
        help="write Gradescope's results.json (one learner only)",
    )
    parser.add_argument(
        "--baseline",
        metavar="OLD.json",
        help="mark each learner and invariant as newly failing, fixed, still failing"
        " or still passing against an earlier --json",
    )
    parser.add_argument(
        "--shard", metavar="I/N", help="judge only the I-th of N parts of the learners"
    )
    parser.add_argument(
        "--scratch",
        metavar="DIR",
        help="where scratch directories go (default /dev/shm when roomy, else TMPDIR)",
    )
    parser.add_argument(
        "--scratch-size",
        type=_size,
        metavar="SIZE",
        help="bytes each learner may write in its scratch, on a tmpfs of its own"
        " (as root on Linux), e.g. 512M (default: half the free memory shared by"
        f" the learners judged at once, 256M to {DEFAULT_SPACE >> 30}G)",
    )
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="every lesson in full, and the last lines each child printed",
    )
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="one learner: the verdict line only",
    )
    parser.add_argument(
        "--version", action="version", version=f"{PROG} {tool_version()}"
    )
    return parser


def _merge_parser() -> _Parser:
    parser = _Parser(
        prog=f"{PROG} merge",
        description="Join the --json parts of --shard runs into the report one"
        " unsharded run gives.",
    )
    parser.add_argument("parts", nargs="+", metavar="PART.json")
    parser.add_argument("--json", metavar="OUT", required=True, help="the joined JSON")
    parser.add_argument("--html", metavar="OUT", help="also the web page")
    parser.add_argument("--junit", metavar="OUT", help="also JUnit XML")
    parser.add_argument(
        "--verbose", "-v", action="store_true", help="lessons after the table"
    )
    return parser


def _check_writable(options: argparse.Namespace, names: Sequence[str]) -> None:
    """Each report file can be written, found before anything is judged: a
    class's run is never lost to a report path typed wrong."""
    named: dict[str, str] = {}
    for name in names:
        target = getattr(options, name, None)
        if target is None:
            continue
        problem = unwritable(target)
        if problem is not None:
            _usage_error(f"--{name} {target}: {problem}")
        same = named.setdefault(os.path.realpath(target), name)
        if same != name:
            _usage_error(f"--{same} and --{name} both name {target}; give each its own")


def _write_reports(
    options: argparse.Namespace,
    report: ClassReport,
    extra: Sequence[tuple[str, Callable[[ClassReport], str]]] = (),
) -> list[str]:
    """Write every report asked for, each on its own: one line per report
    that could not be made or written (the others are written regardless).

    A learner whose own part of a report cannot be made is that report's
    `error` row, saying why (`_rendered`); the others are as they were."""
    wanted: list[tuple[str, Callable[[ClassReport], str]]] = [
        ("json", ClassReport.dumps),
        ("html", lambda one: html_page(one, getattr(options, "verbose", False))),
        ("junit", junit_xml),
        *extra,
    ]
    failed = []
    for name, render in wanted:
        target = getattr(options, name, None)
        if not target:
            continue
        try:
            write(target, _rendered(render, report))
        except OSError as error:
            failed.append(
                f"--{name} {target}: cannot write it ({error.strerror or error})"
            )
        except Exception as error:  # noqa: BLE001  one report never takes the rest
            failed.append(
                f"--{name} {target}: cannot make it ({type(error).__name__}: {error})"
            )
    return [terminal_text(f"{PROG}: {line}") for line in failed]


def _rendered(render: Callable[[ClassReport], str], report: ClassReport) -> str:
    """`render(report)`; when it fails, each learner whose own part fails
    (rendered alone) becomes an `error` row saying why, and the report is
    made again. A failure no single learner explains is the report's."""
    try:
        return render(report)
    except Exception as error:  # noqa: BLE001
        whole = error
    mended = []
    for learner in report.learners:
        try:
            render(report.with_learners([learner]))
            mended.append(learner)
        except Exception as error:  # noqa: BLE001
            mended.append(unreportable(learner, error))
    if mended == list(report.learners):
        raise whole
    return render(report.with_learners(mended))


def _failed_reports(failed: Sequence[str], status: int) -> int:
    """Say which reports were not written, after the verdicts; status 2 if any."""
    for line in failed:
        print(line, file=sys.stderr, flush=True)
    return 2 if failed else status


def _learners(options: argparse.Namespace) -> list[Learner]:
    if not options.paths and not options.cohort:
        _usage_error(f"name at least one PATH or --cohort ROOT (see {PROG} --help)")
    try:
        found = [learner_at(path) for path in options.paths]
        for root in options.cohort:
            found += cohort(root)
        learners = unique(found)
    except UsageError as error:
        _usage_error(str(error))
    for again, kept in named_again(found):
        print(
            terminal_text(
                f"{PROG}: {again} is the folder {kept} again; judged once, as {kept}"
            ),
            file=sys.stderr,
            flush=True,
        )
    return learners


def _emit(lines: Sequence[str]) -> None:
    try:
        print("\n".join(lines), flush=True)
    except BrokenPipeError:
        # `day7-verify ... | head`: the reader left early; the verdict stands.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _progress_line(
    count: int, total: int, judged: Judged, isolation: str | None = None
) -> str:
    """A learner just judged, in the one line `--quiet` would print for it."""
    return f"[{count}/{total}] {verdict_line(judged.verdict, isolation)}"


def _judge(argv: Sequence[str]) -> int:
    options = _judge_parser().parse_args(argv)
    _check_writable(options, ("json", "html", "junit", "gradescope"))
    learners = _learners(options)
    shard = None
    if options.shard is not None:
        try:
            index, count = parse_shard(options.shard)
        except ValueError as error:
            _usage_error(str(error))
        shard = (index, count, len(learners))
        learners = select(learners, index, count)
    if options.gradescope and (len(learners) != 1 or shard is not None):
        _usage_error(
            "--gradescope writes one submission's results;"
            f" got {len(learners)} learners (judge one PATH)"
        )
    baseline = None
    if options.baseline:
        try:
            baseline = read_report(options.baseline, "--baseline")
        except SchemaError as error:
            _usage_error(str(error))
    isolation = options.isolation
    if isolation is None:
        detected = detect()
        isolation = detected.isolation
        if detected.why_not_stronger:
            print(
                f"{PROG}: isolation {isolation}: {detected.why_not_stronger}",
                file=sys.stderr,
                flush=True,
            )
            if options.cohort and isolation == "process":
                _usage_error(
                    "--cohort judges untrusted code and this machine allows only"
                    " process isolation; fix the above, or pass --isolation process"
                )
    elif isolation != "process":
        # Probed as named, and measured: a stronger mode that works says
        # nothing of this one (`user` as an ordinary user would run as that
        # user).
        why = unavailable(isolation)
        if why is not None:
            _usage_error(f"--isolation {isolation} is not available here: {why}")
    unhidden = None
    if isolation == "user":
        # Without a pid namespace learner code can read this command's name
        # and command line (day7-verify ...) in /proc: it takes a plain
        # interpreter's before any learner code runs, and where it cannot,
        # a learner could tell a judged call from real use.
        unhidden = disguise()
    jobs = options.jobs or default_jobs()
    # A tmpfs is memory: by default, what the learners judged at once can hold.
    space: int | None = options.scratch_size
    if space is None:
        space = default_space(max(1, min(jobs, len(learners))))
    unbounded = why_unbounded()
    if unbounded is not None:
        space = None
        print(
            f"{PROG}: scratch not bounded per learner: {unbounded}",
            file=sys.stderr,
            flush=True,
        )
    try:
        settings = Settings(
            space=space,
            parts=parts_per_learner(jobs, len(learners)),
            isolation=isolation,
            level=options.level,
            profile=options.profile,
            # One seed for the whole run: every learner of a class meets the
            # same worlds. Fresh unless given, so no run can be recorded and
            # replayed (issue 26); in every report, so a verdict can be.
            seed=_default_seed() if options.seed is None else options.seed,
            timeout=options.timeout,
            memory=options.memory,
            max_output=options.max_output,
            # Every report says so where learner code could have borrowed
            # the judge's own evaluator (issue 37).
            not_for_grading=not_for_grading(isolation)
            or (
                None
                if unhidden is None
                else "learner code can read in /proc the command line of this"
                f" command, which names the judge ({unhidden}); grade under"
                " --isolation sandbox"
            ),
        )
    except ValueError as error:
        _usage_error(str(error))
    scratch = None
    if options.scratch is not None:
        # Absolute: the child and the worker run in other directories.
        scratch = Path(options.scratch).resolve()
        if not scratch.is_dir():
            _usage_error(f"--scratch {options.scratch}: not a directory")
    many = len(learners) > 1 or shard is not None
    counted = 0

    def done(judged: Judged) -> None:
        nonlocal counted
        counted += 1
        try:
            _said(judged)
        except Exception as error:  # noqa: BLE001  a progress line is not a verdict
            print(
                terminal_text(
                    f"[{counted}/{len(learners)}] {judged.verdict.path}: its line"
                    f" could not be shown ({type(error).__name__})"
                ),
                file=sys.stderr,
                flush=True,
            )

    def _said(judged: Judged) -> None:
        if many:
            print(
                _progress_line(counted, len(learners), judged, settings.isolation),
                file=sys.stderr,
                flush=True,
            )
        if options.verbose:
            print(
                terminal_text(
                    f"  {judged.verdict.path}: bundle copied in"
                    f" {judged.copy_seconds * 1000:.0f} ms,"
                    f" peak RSS {judged.peak_rss_kib >> 10} MiB,"
                    f" peak address space {judged.vm_peak_kib >> 10} MiB"
                ),
                file=sys.stderr,
                flush=True,
            )

    if not many and sys.stderr.isatty():
        print(
            terminal_text(f"{PROG}: judging {learners[0].path} ..."),
            file=sys.stderr,
            flush=True,
        )
    started = time.monotonic()
    # Said after the reports are written: what a cleanup left is no verdict.
    warnings: list[str] = []
    try:
        judged = judge_all(
            learners,
            settings,
            min(jobs, max(1, len(learners))),
            done,
            scratch,
            warnings.append,
        )
    except (BundleError, UidError, JudgeCannotRun) as error:
        _usage_error(str(error))
    report = ClassReport(
        settings=settings.to_json(),
        learners=tuple(sorted((j.verdict for j in judged), key=lambda v: v.path)),
        seconds=time.monotonic() - started,
        shard=Shard(*shard) if shard is not None else None,
    )
    if baseline is not None:
        try:
            report = compare(report, baseline)
        except SchemaError as error:
            _usage_error(str(error))
    extra: list[tuple[str, Callable[[ClassReport], str]]] = []
    if len(report.learners) == 1 and not many:

        def whole(one: ClassReport) -> str:
            lines = learner_lines(
                one.learners[0],
                settings.level,
                options.verbose,
                isolation=settings.isolation,
                seed=settings.seed,
                not_for_grading=settings.not_for_grading,
                profile=settings.profile,
            )
            return "\n".join([*lines, *gone_lines(one)])

        def gradescope(one: ClassReport) -> str:
            results = gradescope_results(
                one.learners[0],
                whole(one),
                settings.isolation,
                settings.seed,
                settings.not_for_grading,
            )
            return json.dumps(results, indent=2) + "\n"

        def terminal(one: ClassReport) -> str:
            if options.quiet:
                # Gradescope's output keeps the whole verdict; the terminal
                # shows the one line asked for.
                return "\n".join(
                    learner_lines(
                        one.learners[0],
                        settings.level,
                        quiet=True,
                        isolation=settings.isolation,
                    )
                )
            return whole(one)

        extra.append(("gradescope", gradescope))
    else:

        def terminal(one: ClassReport) -> str:
            return "\n".join(
                _class_terminal(one, settings.level, options.verbose, jobs)
            )

    lines = _rendered(terminal, report).split("\n")
    failed = _write_reports(options, report, extra)
    _emit(lines)
    for line in warnings:
        print(terminal_text(f"{PROG}: {line}"), file=sys.stderr, flush=True)
    return _failed_reports(failed, 0 if report.passed else 1)


def _merge(argv: Sequence[str]) -> int:
    options = _merge_parser().parse_args(argv)
    _check_writable(options, ("json", "html", "junit"))
    given: dict[str, str] = {}
    for part in options.parts:
        real = os.path.realpath(part)
        if real in given:
            also = "" if given[real] == part else f" (also as {given[real]})"
            _usage_error(f"{part} is given twice{also}; give each part once")
        given[real] = part
    try:
        parts = [(part, read_report(part, "part")) for part in options.parts]
        report = merge(parts)
    except SchemaError as error:
        _usage_error(str(error))
    failed = _write_reports(options, report)
    level = str(report.settings.get("level"))
    _emit(
        _rendered(
            lambda one: "\n".join(_class_terminal(one, level, options.verbose)),
            report,
        ).split("\n")
    )
    return _failed_reports(failed, 0 if report.passed else 1)


def _class_terminal(
    report: ClassReport, level: str, verbose: bool, jobs: int | None = None
) -> list[str]:
    """The class's table, and with `verbose` each failing learner's lessons."""
    lines = class_lines(report, jobs)
    if verbose:
        for learner in report.learners:
            if not learner.passed:
                lines += ["", *learner_lines(learner, level, verbose=True)]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    # A CI system cancelling the job sends SIGTERM: end the children too.
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminated) if main_thread else None
    try:
        if args and args[0] == "merge":
            return _merge(args[1:])
        return _judge(args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
