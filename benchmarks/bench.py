"""Time ``evaluate_run`` of the bundled evaluator beside another implementation.

A plain script, not a timed test: ``tox -e bench [-- --impl-path DIR]``.

Every input is materialised once, in a fresh temporary directory: the files,
the receipt logs and the (neutral) event lists.  Each implementation then
builds its own objects (runs, workspaces, stores, cases) through its own
classes from those same files and facts, so both judge exactly the same world
and only the evaluator differs.  The benchmark prints, per size:

* the best and median time of one ``evaluate_run`` call for each
  implementation, and the ratio other/bundled (above 1: the bundled one is
  faster);
* for file and receipt checks, the bytes each call read (``rchar`` of
  ``/proc/self/io``);
* whether evaluation time grows with events + expectations or with their
  product, as a table and a PNG plot;
* the suite's own throughput: examples per second per invariant under the
  ``ci`` Hypothesis profile, and the whole run's wall time.

Nothing here imports an implementation directly: both are loaded through the
suite's ``judge.target.load_target``.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from judge.target import Target, TargetError, load_target


# Receipts in the contract's log format, written directly: the bench measures
# loading them, not writing them through a store.
def receipt_payload(number: int) -> dict[str, Any]:
    """The contract's receipt payload for call `call-<number>`: a write or a command."""
    if number % 2:
        path = f"src/module_{number}.py"
        return {
            "tool_call_id": f"call-{number}",
            "tool": "write_file",
            "arguments": {"path": path, "content": f"VALUE = {number}\n"},
            "exit_state": "ok",
            "result": f"wrote {path}",
            "changed_artifacts": [path],
        }
    failed = number % 3 == 0
    return {
        "tool_call_id": f"call-{number}",
        "tool": "run_command",
        "arguments": {"argv": ["pytest", "-q"]},
        "exit_state": "error" if failed else "ok",
        "result": f"status: {1 if failed else 0}\noutput:\n{number} passed\n",
        "changed_artifacts": [],
    }


def receipt_line(payload: dict[str, Any]) -> str:
    """One log line for `payload`: its digest added, sorted keys, default separators."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    return json.dumps({"receipt_id": digest, **payload}, sort_keys=True) + "\n"


# --- sizes ---

EVENT_COUNTS = (10, 1_000, 10_000, 100_000)
RESULT_EXPECTATIONS = (1, 10, 100, 1_000)
LOG_LINES = (10, 100, 1_000, 10_000, 100_000)
KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
# (label, size, sparse): the sparse file is made with truncate, never written.
FILE_SIZES = (
    ("1 KiB", KIB, False),
    ("64 KiB", 64 * KIB, False),
    ("1 MiB", MIB, False),
    ("64 MiB", 64 * MIB, False),
    ("1 GiB sparse", GIB, True),
)
# The two result cases the issue holds the bundled evaluator to (>= 10x).
HEADLINE_CASES = ((100_000, 100), (10_000, 1_000))
HEADLINE_FACTOR = 10.0
SHORT_EXPECTATION = "print('hello')\n"
TOOLS = ("read_file", "list_files", "run_command", "write_file", "edit_file")


# --- measuring ---


@dataclass(frozen=True)
class Timing:
    """Seconds per call: the best and the median of the repeats."""

    best: float
    median: float
    repeats: int
    calls_per_repeat: int


def measure(
    calls: dict[str, Callable[[], object]], *, budget: float, repeats: int
) -> dict[str, Timing]:
    """Time each call like ``timeit``, interleaved: A B, B A, A B, ...

    Each call's first run warms it up and sizes its batch (>= 50 ms).  The
    batches then alternate, so a machine that gets busier or quieter during
    the cell slows both sides alike and the ratio stays honest.  Slow calls
    get fewer repeats, so a cell stays within ``budget`` seconds per call; a
    call slower than that is timed once, by its first run.
    """
    enabled = gc.isenabled()
    gc.disable()  # as timeit does: collector pauses are noise for both sides
    try:
        return _measure(calls, budget=budget, repeats=repeats)
    finally:
        if enabled:
            gc.enable()


def _measure(
    calls: dict[str, Callable[[], object]], *, budget: float, repeats: int
) -> dict[str, Timing]:
    first: dict[str, float] = {}
    for name, call in calls.items():
        started = time.perf_counter()
        call()
        first[name] = time.perf_counter() - started
    timings = {
        name: Timing(spent, spent, 1, 1)
        for name, spent in first.items()
        if spent >= budget
    }
    rest = [name for name in calls if name not in timings]
    if not rest:
        return timings
    number = {n: max(1, int(0.05 / first[n])) if first[n] < 0.05 else 1 for n in rest}
    round_seconds = sum(first[n] * number[n] for n in rest)
    rounds = max(1, min(repeats, int(budget * len(rest) / round_seconds)))
    samples: dict[str, list[float]] = {name: [] for name in rest}
    for index in range(rounds):
        for name in rest if index % 2 == 0 else reversed(rest):
            call = calls[name]
            started = time.perf_counter()
            for _ in range(number[name]):
                call()
            samples[name].append((time.perf_counter() - started) / number[name])
    for name in rest:
        timings[name] = Timing(
            min(samples[name]), statistics.median(samples[name]), rounds, number[name]
        )
    return timings


_PROC_IO = Path("/proc/self/io")


def _rchar() -> int | None:
    """Bytes this process has read so far (Linux), or None where unknown."""
    try:
        text = _PROC_IO.read_text()
    except OSError:
        return None
    match = re.search(r"^rchar:\s*(\d+)$", text, re.MULTILINE)
    return int(match.group(1)) if match else None


def bytes_read(call: Callable[[], object]) -> int | None:
    """Bytes read by one call of ``call``, net of reading the counter itself."""
    first, second = _rchar(), _rchar()
    if first is None or second is None:
        return None
    own = second - first  # reading /proc/self/io counts as reading too
    before = _rchar()
    call()
    after = _rchar()
    assert before is not None and after is not None
    return max(0, after - before - own)


# --- neutral inputs, materialised once ---


@dataclass(frozen=True)
class NeutralEvent:
    step: int
    tool: str
    arguments: dict[str, Any]
    result: str


def neutral_events(count: int) -> list[NeutralEvent]:
    """``count`` tool events cycling through the five tools, results ~60 chars."""
    events = []
    for index in range(count):
        tool = TOOLS[index % len(TOOLS)]
        arguments: dict[str, Any] = {"path": f"src/module_{index}.py"}
        if tool == "run_command":
            arguments = {"argv": ["pytest", "-q"]}
        result = f"{tool} output {index}: status ok, nothing else to report here"
        events.append(NeutralEvent(index + 1, tool, arguments, result))
    return events


def result_expectations(
    events: Sequence[NeutralEvent], count: int
) -> list[tuple[str, str]]:
    """``count`` (tool, substring) pairs; every one makes a naive evaluator scan all.

    Even ones name a string only the *last* event of their tool holds (found
    at the end of a scan); odd ones name a string no event holds.
    """
    last: dict[str, int] = {}
    for event in events:
        last[event.tool] = event.step - 1
    pairs = []
    for index in range(count):
        tool = TOOLS[index % len(TOOLS)]
        if index % 2 == 0 and tool in last:
            pairs.append((tool, f"{tool} output {last[tool]}:"))
        else:
            pairs.append((tool, f"absent marker {index}"))
    return pairs


def write_log(path: Path, lines: int) -> None:
    """A receipt log in the contract's format: sorted keys, default separators."""
    with path.open("w", encoding="utf-8") as log:
        for number in range(1, lines + 1):
            log.write(receipt_line(receipt_payload(number)))


def write_file(path: Path, size: int, sparse: bool) -> None:
    if sparse:
        with path.open("wb") as handle:
            handle.truncate(size)  # a hole: no data block is written
        return
    block = (b"0123456789abcdef" * 4096)[: min(size, 64 * KIB)]
    with path.open("wb") as handle:
        remaining = size
        while remaining:
            chunk = block[:remaining]
            handle.write(chunk)
            remaining -= len(chunk)


@dataclass(frozen=True)
class Inputs:
    """Everything on disk and in memory both implementations are judged on."""

    root: Path
    logs: dict[int, Path]
    files: dict[str, str]  # label -> path relative to root
    events: dict[int, list[NeutralEvent]]


def materialise(base: Path) -> Inputs:
    root = base / "workspace"
    root.mkdir()
    files = {}
    for index, (label, size, sparse) in enumerate(FILE_SIZES):
        relative = f"data/file_{index}.bin"
        (root / "data").mkdir(exist_ok=True)
        write_file(root / relative, size, sparse)
        files[label] = relative
    logs = {}
    for lines in LOG_LINES:
        logs[lines] = base / f"receipts-{lines}.jsonl"
        write_log(logs[lines], lines)
    events = {count: neutral_events(count) for count in EVENT_COUNTS}
    return Inputs(root, logs, files, events)


# --- building each implementation's own objects ---


def build_run(target: Target, events: Sequence[NeutralEvent]) -> object:
    built = tuple(
        target.AgentEvent(
            step=event.step,
            response=json.dumps({"tool": event.tool, **event.arguments}),
            action=target.ToolAction(tool=event.tool, arguments=dict(event.arguments)),
            result=event.result,
        )
        for event in events
    )
    return target.AgentRun(
        completed=True, reason="completed", final="done: all checks ran", events=built
    )


def build_workspace(target: Target, root: Path) -> object:
    return target.Workspace(policy=target.ToolPolicy(root=root))


def build_case(
    target: Target,
    *,
    files: Sequence[tuple[str, str]] = (),
    results: Sequence[tuple[str, str]] = (),
    receipts: Sequence[dict[str, Any]] = (),
) -> object:
    return target.EvaluationCase(
        final_contains="done",
        files=tuple(target.FileExpectation(path, content) for path, content in files),
        results=tuple(target.ResultExpectation(tool, text) for tool, text in results),
        receipts=tuple(
            target.ReceiptExpectation(
                tool_call_id=payload["tool_call_id"],
                tool=payload["tool"],
                exit_state=payload["exit_state"],
                result_contains=payload["result"][:12],
                changed_artifacts=tuple(payload["changed_artifacts"]),
            )
            for payload in receipts
        ),
    )


# --- scenarios ---


@dataclass
class Cell:
    """One size of one scenario, measured for each implementation."""

    group: str  # results | receipts | files
    label: str
    size: dict[str, Any]
    timings: dict[str, Timing] = field(default_factory=dict)
    read: dict[str, int | None] = field(default_factory=dict)
    verdicts: dict[str, tuple[tuple[str, bool], ...]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    def ratio(self, base: str, other: str) -> float | None:
        if base in self.timings and other in self.timings:
            return self.timings[other].best / self.timings[base].best
        return None


Builder = Callable[[Target], tuple[object, object, object, object]]


def scenarios(inputs: Inputs) -> list[tuple[Cell, Builder]]:
    cells: list[tuple[Cell, Builder]] = []
    for count in EVENT_COUNTS:
        for expected in RESULT_EXPECTATIONS:
            cell = Cell(
                "results",
                f"{count:,} events x {expected:,} results",
                {"events": count, "expectations": expected},
            )
            cells.append((cell, _results_builder(inputs, count, expected)))
    for lines in LOG_LINES:
        cell = Cell(
            "receipts", f"{lines:,} log lines x {lines:,} receipts", {"lines": lines}
        )
        cells.append((cell, _receipts_builder(inputs, lines)))
    for label, size, sparse in FILE_SIZES:
        cell = Cell(
            "files",
            f"{label} file, short expectation",
            {"bytes": size, "sparse": sparse},
        )
        cells.append((cell, _files_builder(inputs, label)))
    return cells


def _results_builder(inputs: Inputs, count: int, expected: int) -> Builder:
    def build(target: Target) -> tuple[object, object, object, object]:
        events = inputs.events[count]
        run = build_run(target, events)
        case = build_case(target, results=result_expectations(events, expected))
        return run, build_workspace(target, inputs.root), target.ReceiptStore(), case

    return build


def _receipts_builder(inputs: Inputs, lines: int) -> Builder:
    def build(target: Target) -> tuple[object, object, object, object]:
        payloads = [receipt_payload(number) for number in range(1, lines + 1)]
        case = build_case(target, receipts=payloads)
        store = target.ReceiptStore(inputs.logs[lines])
        return build_run(target, ()), build_workspace(target, inputs.root), store, case

    return build


def _files_builder(inputs: Inputs, label: str) -> Builder:
    def build(target: Target) -> tuple[object, object, object, object]:
        case = build_case(target, files=[(inputs.files[label], SHORT_EXPECTATION)])
        return (
            build_run(target, ()),
            build_workspace(target, inputs.root),
            target.ReceiptStore(),
            case,
        )

    return build


def verdicts(report: Any) -> tuple[tuple[str, bool], ...]:
    return tuple((check.name, bool(check.passed)) for check in report.checks)


def run_cell(
    cell: Cell, build: Builder, impls: dict[str, Target], args: argparse.Namespace
) -> None:
    calls: dict[str, Callable[[], object]] = {}
    for name, target in impls.items():
        if (
            name != "bundled"
            and cell.group == "files"
            and cell.size["bytes"] >= GIB
            and not args.full
        ):
            cell.skipped[name] = "reads the whole file (~1 GiB); run with --full"
            continue
        run, workspace, store, case = build(target)

        def call(
            target: Target = target,
            run: object = run,
            workspace: object = workspace,
            store: object = store,
            case: object = case,
        ) -> object:
            return target.evaluate_run(run, workspace, store, case)

        try:
            report = call()
        except Exception as error:  # one line, never a traceback
            cell.skipped[name] = f"raised {type(error).__name__}: {error}"
            continue
        cell.verdicts[name] = verdicts(report)
        if cell.group in ("files", "receipts"):
            cell.read[name] = bytes_read(call)
        calls[name] = call
    cell.timings.update(measure(calls, budget=args.budget, repeats=args.repeat))
    calls.clear()
    gc.collect()


# --- printing ---


def seconds(value: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


def size_of(value: int | None) -> str:
    if value is None:
        return "n/a"
    for unit, scale in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if value >= scale:
            return f"{value / scale:.3g} {unit} ({value:,} B)"
    return f"{value:,} B"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [
        max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))
    ]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append(
            "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True))
        )
    return "\n".join(lines)


def print_group(cells: Sequence[Cell], group: str, impls: Sequence[str]) -> None:
    headers = ["size"]
    for name in impls:
        headers += [f"{name} best", f"{name} median"]
        if group != "results":
            headers.append(f"{name} read")
    if len(impls) > 1:
        headers.append(f"{impls[1]}/{impls[0]}")
    rows = []
    for cell in (c for c in cells if c.group == group):
        row = [cell.label]
        for name in impls:
            timing = cell.timings.get(name)
            if timing is None:
                row += ["skipped", ""]
            else:
                row += [seconds(timing.best), seconds(timing.median)]
            if group != "results":
                row.append(size_of(cell.read.get(name)) if timing else "")
        if len(impls) > 1:
            ratio = cell.ratio(impls[0], impls[1])
            row.append(f"{ratio:.1f}x" if ratio is not None else "-")
        rows.append(row)
    print(table(headers, rows))
    for cell in (c for c in cells if c.group == group):
        for name, why in cell.skipped.items():
            print(f"  ({name}, {cell.label}: {why})")


def growth_report(cells: Sequence[Cell], impls: Sequence[str]) -> list[str]:
    """Sum or product?  Compare t(n_max, k_max) with t(n_max, k_min) + t(n_min, k_max).

    If time is a*n + b*k (+c), the corner is about the sum of the two edges
    (ratio near 1).  If time is a*n*k, the corner is far larger than the sum
    (ratio near min(n, k)-fold).  The same for each implementation.
    """
    lines = []
    by_size = {
        (c.size["events"], c.size["expectations"]): c
        for c in cells
        if c.group == "results"
    }
    n_min, n_max = EVENT_COUNTS[0], EVENT_COUNTS[-1]
    k_min, k_max = RESULT_EXPECTATIONS[0], RESULT_EXPECTATIONS[-1]
    for name in impls:
        try:
            corner = by_size[(n_max, k_max)].timings[name].best
            edges = (
                by_size[(n_max, k_min)].timings[name].best
                + by_size[(n_min, k_max)].timings[name].best
            )
        except KeyError:
            continue
        lines.append(
            f"{name}: t({n_max:,} events, {k_max:,} results) = {seconds(corner)}; "
            f"t({n_max:,}, {k_min}) + t({n_min}, {k_max:,}) = {seconds(edges)}; "
            f"corner/edges = {corner / edges:.1f} "
            "(about 1: grows with the sum; ~100s: grows with the product)"
        )
    return lines


def per_unit_table(cells: Sequence[Cell], impls: Sequence[str]) -> str:
    """Cost per event at k=100 and per expectation at n=10,000: flat means linear."""
    rows = []
    for cell in cells:
        if cell.group != "results":
            continue
        n, k = cell.size["events"], cell.size["expectations"]
        if k == 100:
            axis, unit = "per event (k=100)", n
        elif n == 10_000:
            axis, unit = "per expectation (n=10,000)", k
        else:
            continue
        row = [cell.label, axis]
        for name in impls:
            timing = cell.timings.get(name)
            row.append(seconds(timing.best / unit) if timing else "-")
        rows.append(row)
    return table(["size", "cost", *impls], rows)


def verdict_mismatches(cells: Sequence[Cell], impls: Sequence[str]) -> list[str]:
    problems = []
    if len(impls) < 2:
        return problems
    for cell in cells:
        first, second = (cell.verdicts.get(name) for name in impls[:2])
        if first is not None and second is not None and first != second:
            problems.append(
                f"{cell.label}: the two implementations disagree on a verdict"
            )
    return problems


def goals(cells: Sequence[Cell], impls: Sequence[str]) -> list[tuple[bool, str]]:
    """The issue's numbers, each with whether this run meets it."""
    found: list[tuple[bool, str]] = []
    if len(impls) > 1:
        base, other = impls[0], impls[1]
        slower = [
            f"{cell.label} ({cell.ratio(base, other):.2f}x)"
            for cell in cells
            if (r := cell.ratio(base, other)) is not None and r < 1.0
        ]
        found.append(
            (
                not slower,
                "never slower than the other at any size"
                + (f"; slower at: {', '.join(slower)}" if slower else ""),
            )
        )
        for events, expected in HEADLINE_CASES:
            cell = next(
                c
                for c in cells
                if c.group == "results"
                and c.size == {"events": events, "expectations": expected}
            )
            ratio = cell.ratio(base, other)
            shown = f"{ratio:.1f}x" if ratio is not None else "not measured"
            found.append(
                (
                    ratio is not None and ratio >= HEADLINE_FACTOR,
                    f">= {HEADLINE_FACTOR:.0f}x faster on {cell.label}: {shown}",
                )
            )
    huge = next(c for c in cells if c.group == "files" and c.size["bytes"] >= GIB)
    read = huge.read.get(impls[0])
    found.append(
        (
            read is not None and read <= 128 * KIB,
            f"bundled reads a bounded window of the 1 GiB sparse file: {size_of(read)}",
        )
    )
    return found


# --- the plot ---


def plot(cells: Sequence[Cell], impls: Sequence[str], path: Path) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "plot skipped: matplotlib is not installed (tox -e bench installs it)"
    figure, axes = plt.subplots(2, 2, figsize=(11, 8.5))
    panels = [
        (
            axes[0][0],
            "results: time vs events (100 expectations)",
            "events",
            [
                c
                for c in cells
                if c.group == "results" and c.size["expectations"] == 100
            ],
            lambda c: c.size["events"],
            lambda c, n: c.timings[n].best,
            "seconds per evaluate_run",
        ),
        (
            axes[0][1],
            "results: time vs expectations (10,000 events)",
            "result expectations",
            [c for c in cells if c.group == "results" and c.size["events"] == 10_000],
            lambda c: c.size["expectations"],
            lambda c, n: c.timings[n].best,
            "seconds per evaluate_run",
        ),
        (
            axes[1][0],
            "receipts: time vs log lines (= expectations)",
            "log lines",
            [c for c in cells if c.group == "receipts"],
            lambda c: c.size["lines"],
            lambda c, n: c.timings[n].best,
            "seconds per evaluate_run",
        ),
        (
            axes[1][1],
            "files: bytes read vs file size (short expectation)",
            "file size (bytes)",
            [c for c in cells if c.group == "files"],
            lambda c: c.size["bytes"],
            lambda c, n: c.read.get(n) or 1,
            "bytes read per evaluate_run",
        ),
    ]
    for axis, title, xlabel, chosen, x_of, y_of, ylabel in panels:
        for name in impls:
            points = [(x_of(c), y_of(c, name)) for c in chosen if name in c.timings]
            if points:
                xs, ys = zip(*points, strict=True)
                axis.plot(xs, ys, marker="o", label=name)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_title(title, fontsize=10)
        axis.set_xlabel(xlabel)
        axis.set_ylabel(ylabel)
        axis.grid(True, which="both", alpha=0.3)
        axis.legend()
    figure.suptitle(
        "evaluate_run: bundled evaluator vs other (log-log; slope 1 = linear)"
    )
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return f"plot written: {path}"


# --- the suite's own throughput ---


@dataclass(frozen=True)
class SuiteThroughput:
    wall_seconds: float
    exit_code: int
    per_test: list[tuple[str, int, float]]  # (test id, examples, seconds)
    extra_lines: list[str]


_TEST_HEADER = re.compile(r"^(\S+::\S+?):\s*$")
_PHASE = re.compile(r"^\s*- during (\w+) phase \(([\d.]+) seconds\):")
# Hypothesis 6.155 says "100 passing examples, 0 failing examples, 0 invalid
# examples"; later versions "100 passing, 0 failing, and 0 invalid test cases".
_EXAMPLES = re.compile(
    r"^\s*- (\d+) passing(?: examples?)?, (\d+) failing(?: examples?)?,"
    r" (?:and )?(\d+) invalid"
)


def invariants_command(*options: str) -> list[str]:
    """``pytest tests/invariants`` under the ci profile, quiet and without a
    cache, with `options` after it (both benchmarks measure the suite so)."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "tests/invariants",
        "-q",
        "-p",
        "no:cacheprovider",
        "--hypothesis-profile",
        "ci",
        *options,
    ]


def suite_throughput(extra: Sequence[str]) -> SuiteThroughput:
    """Run ``pytest tests/invariants`` under the ci profile and read its statistics."""
    command = invariants_command("--hypothesis-show-statistics", *extra)
    print("$ " + " ".join(command[2:]), flush=True)
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    per_test: dict[str, list[float]] = {}
    current = None
    phase_seconds = 0.0
    for line in completed.stdout.splitlines():
        if header := _TEST_HEADER.match(line):
            current = header.group(1)
            per_test.setdefault(current, [0, 0.0])
            continue
        if current is None:
            continue
        if phase := _PHASE.match(line):
            phase_seconds = float(phase.group(2))
            # only generate/reuse/explicit phases count examples run for speed
            per_test[current][1] += phase_seconds
            continue
        if examples := _EXAMPLES.match(line):
            per_test[current][0] += sum(int(examples.group(i)) for i in (1, 2, 3))
    tail = [
        line
        for line in completed.stdout.splitlines()
        if line.startswith(("hostile worlds:", "audit:", "verification:"))
        or re.match(r"^=+ .*(passed|failed|error)", line)
    ]
    if completed.returncode not in (0, 1):
        tail.append(
            completed.stderr.strip().splitlines()[-1] if completed.stderr else ""
        )
    return SuiteThroughput(
        wall,
        completed.returncode,
        [(name, int(n), secs) for name, (n, secs) in per_test.items()],
        tail,
    )


# --- main ---


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Time evaluate_run of the bundled evaluator beside another one.",
    )
    other = parser.add_mutually_exclusive_group()
    other.add_argument(
        "--impl", metavar="MODULE", help="compare with this importable module"
    )
    other.add_argument(
        "--impl-path", metavar="DIR", help="compare with this course agent folder"
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="also time the other one on the 1 GiB sparse file",
    )
    parser.add_argument(
        "--repeat", type=int, default=5, help="repeats per cell (default 5)"
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=3.0,
        help="seconds per cell and implementation (default 3)",
    )
    parser.add_argument(
        "--out", default=".benchmarks/day7", help="where figures.json and bench.png go"
    )
    parser.add_argument(
        "--no-suite", action="store_true", help="skip the suite throughput run"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.budget <= 0:
        parser.error("--repeat must be >= 1 and --budget > 0")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    try:
        impls = {"bundled": load_target()}
        if args.impl or args.impl_path:
            impls["other"] = load_target(impl=args.impl, impl_path=args.impl_path)
    except TargetError as error:
        print(f"bench: {error}", file=sys.stderr)
        return 2
    for target in impls.values():
        if target.missing:
            print(
                f"bench: {target.label} lacks {', '.join(target.missing)}",
                file=sys.stderr,
            )
            return 2
    names = list(impls)
    print(
        f"python {sys.version.split()[0]} on {os.uname().sysname}"
        f" {os.uname().machine}, {os.cpu_count()} CPUs"
    )
    for name, target in impls.items():
        print(f"{name}: {target.label}")
    out = Path(args.out)
    with tempfile.TemporaryDirectory(prefix="day7-bench-") as base:
        started = time.perf_counter()
        inputs = materialise(Path(base))
        print(
            f"inputs materialised once in {base}"
            f" ({time.perf_counter() - started:.1f} s)"
        )
        cells = []
        for cell, build in scenarios(inputs):
            print(f"  timing {cell.label} ...", end="", flush=True)
            started = time.perf_counter()
            run_cell(cell, build, impls, args)
            print(f" {time.perf_counter() - started:.1f} s", flush=True)
            cells.append(cell)

    for group, title in (
        ("results", "Result checks: events x result expectations"),
        ("receipts", "Receipt checks: log lines x receipt expectations"),
        (
            "files",
            "File checks: one file, a short expectation (read = bytes read per call)",
        ),
    ):
        print(f"\n## {title}\n")
        print_group(cells, group, names)
    print("\n## Growth: sum or product of events and expectations?\n")
    print(per_unit_table(cells, names))
    for line in growth_report(cells, names):
        print(line)
    mismatches = verdict_mismatches(cells, names)
    for line in mismatches:
        print(f"WARNING: {line}")
    print()
    print(plot(cells, names, out / "bench.png"))

    suite = None
    if not args.no_suite:
        print("\n## The suite's own throughput (ci profile, bundled target)\n")
        suite = suite_throughput([])
        rows = [
            [
                name,
                str(examples),
                f"{secs:.2f} s",
                f"{examples / secs:.0f}" if secs else "-",
            ]
            for name, examples, secs in suite.per_test
        ]
        print(table(["test", "examples", "time", "examples/s"], rows))
        print(
            f"whole run: {suite.wall_seconds:.1f} s wall, pytest exit {suite.exit_code}"
        )
        for line in suite.extra_lines:
            print(line)

    print("\n## Goals\n")
    results = goals(cells, names)
    for met, text in results:
        print(f"[{'met' if met else 'NOT MET'}] {text}")

    out.mkdir(parents=True, exist_ok=True)
    figures = {
        "implementations": {name: target.label for name, target in impls.items()},
        "cells": [
            {
                "group": c.group,
                "label": c.label,
                "size": c.size,
                "timings": {n: asdict(t) for n, t in c.timings.items()},
                "bytes_read": c.read,
                "skipped": c.skipped,
            }
            for c in cells
        ],
        "goals": [{"met": met, "goal": text} for met, text in results],
        "suite": asdict(suite) if suite else None,
    }
    (out / "figures.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(f"figures written: {out / 'figures.json'}")
    return 0 if all(met for met, _ in results) and not mismatches else 1
