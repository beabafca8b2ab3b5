"""A lesson's world as a test the learner keeps: plain Python, the course's names.

    source = lesson_test(world, check, level=..., folder=...)

A pure function of the world (its evidence, `judge.evidence`) and the check
it misjudged: the source of one short program that imports the learner's
agent folder (registered as a package of its own, its `__init__.py` not run,
as day7-surface.md's "Loading a learner's package" says: a course checkout's
`__init__` imports MLX), builds the world in a temporary folder with the
course's public names only (`ToolPolicy`, `Workspace`, `ReceiptStore`,
`EffectReceipt`, `AgentRun`, `AgentEvent`, `FinalAction`, `ToolAction`, the
expectations, `EvaluationCase`, `evaluate_run`) and the standard library,
and asserts the check's verdict (and its binding detail) with the lesson's
own words. pytest collects it (`test_...`), and `python FILE` runs it.

The folder is one line near the top: relative to the checkout's root when
the judged folder sits in one (`src/<package>/agent`), so the same file runs
in the learner's own checkout; else the folder's path as judged.

A world whose evidence a test file cannot make plainly (a FIFO, a device, a
socket, a sparse file, a path at the length limit, a damaged or replaced
log, an event that is no event, a final or result that is no string) gets
`None`: the lesson then says so and gives the `day7-verify` line that draws
the world again (`redraw_note`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import PurePosixPath

from judge.evidence import (
    _LENGTH_KINDS,
    EventSpec,
    Evidence,
    Log,
    Node,
    Stored,
    evidence,
)
from judge.lessons import PLAIN_MARK, REDRAW_MARK, folder_line
from strategies.world import ExpectedCheck, World

__all__ = [
    "ABORTED",
    "PLAIN_MARK",
    "RECAST",
    "REDRAW_MARK",
    "SHORT",
    "TOO_LONG",
    "WRITE",
    "KEPT_STATE",
    "NOT_AFRESH",
    "build_lines",
    "case_of",
    "literal",
    "program",
    "verdict_lines",
    "checkout_root",
    "folder_line",
    "lesson_test",
    "redraw_note",
    "plain_code",
    "refusal_steps",
    "refusal_test",
    "spot_parts",
    "why_not_plain",
]

#: Where the evidence is worked out: any path will do, it only names the
#: tree so its links can be found and written relative to the test's own.
_TREE = "/day7-tree"

#: The package name the learner's folder is registered under.
_PACKAGE = "day7_agent"

#: Which course module holds each name the snippet may use.
_HOMES = {
    "protocol": ("AgentError", "FinalAction", "ToolAction"),
    "loop": ("AgentEvent", "AgentRun"),
    "receipts": ("EffectReceipt", "ReceiptStore"),
    "workspace": ("ToolPolicy", "Workspace"),
    "evaluation": (
        "EvaluationCase",
        "EvaluationCheck",
        "EvaluationReport",
        "FileExpectation",
        "ReceiptExpectation",
        "ResultExpectation",
        "evaluate_run",
    ),
}

_PLAIN_NODES = ("file", "folder", "link")
_PLAIN_ACTIONS = ("tool", "final", "final_with_result", "invalid")


def checkout_root(folder: str) -> str:
    """Where the test runs from: the checkout's root for `src/<package>/agent`,
    else anywhere (the folder's parent is as good as any)."""
    line = folder_line(folder)
    if line != folder:
        return str(PurePosixPath(folder).parents[2])
    return str(PurePosixPath(folder).parent)


def why_not_plain(world: World) -> str:
    """Why `world` cannot be written as a plain test, or "" when it can."""
    if world.plan is not None:
        return "a real run of your own run_agent"
    made = evidence(world, _TREE)
    odd = sorted({node.what for node in made.files} - set(_PLAIN_NODES))
    if odd:
        return f"a {' and a '.join(odd)} in the workspace"
    if any(fact.kind in _LENGTH_KINDS for fact in world.files):
        return "a path at the length limit"
    log = made.log
    if log.replacement is not None:
        return "a receipt log replaced by something that is no log"
    if log.get == "junk":
        return "a store whose get returns a dict"
    run = made.run
    assert run is not None
    if run.odd_final or run.reason not in (
        "completed",
        "step_limit",
        "context_limit",
        "invalid_action_limit",
        "repeated_action_limit",
    ):
        return "a run whose fields are not of their types"
    for event in run.events:
        if event.action not in _PLAIN_ACTIONS or not (
            event.result is None or isinstance(event.result, str)
        ):
            return "an event that is not of its types"
    return ""


#: Why a lesson about a call that hung, ended its process or ran out of
#: memory gets the day7-verify line rather than a test: a test making that
#: call plainly would hang, end with it, or exhaust the learner's machine,
#: before it could say anything.
ABORTED = {
    "hang": "a call that did not return within the judge's limit, which a test"
    " file making it would wait on for ever",
    "crash": "a call that ended the process it ran in, which would end a test"
    " file's process too, before it could say so",
    "memory": "a call that ran out of the memory the judge allows it, which a"
    " test file making it, with no such limit, would take from the whole machine",
}


#: Why a lesson whose plain test is longer than the reports keep (a large
#: world's) gets the day7-verify line instead.
TOO_LONG = (
    "a world whose test would be longer than the reports keep whole, so it"
    " is not written here"
)


#: Why a lesson about state kept from earlier calls (a verdict wrong here
#: and right on the same world built afresh) gets the day7-verify line: a
#: test file evaluating the world once starts with no such state.
KEPT_STATE = (
    "a verdict that depends on what your code kept from the calls before it"
    " in the same process, which a test file evaluating this world once does"
    " not make"
)

#: Why a lesson whose mistake a fresh process did not make again has no test.
NOT_AFRESH = (
    "a verdict your code gave after other calls in the same process, but not"
    " when this world was judged again in a fresh one (it depends on what"
    " your code kept from earlier calls, or on chance), which a test file"
    " judging this world once does not show"
)


def redraw_note(
    why: str, folder: str, seed: int | None, profile: str | None = None
) -> str:
    """What a lesson says instead of a test, for a world `why_not_plain` (or
    a call `ABORTED` says why no test makes); `profile`, where the run drew
    other examples than the command's default would (`quick`, `thorough`)."""
    again = f"day7-verify {folder}"
    if profile is not None:
        again += f" --profile {profile}"
    again += "" if seed is None else f" --seed {seed}"
    if why not in (*ABORTED.values(), TOO_LONG, KEPT_STATE, NOT_AFRESH):
        why += ", which a test file does not build plainly"
    return "\n".join(
        [
            f"{REDRAW_MARK} {why}.",
            "# Draw it again, with the same lesson, with:",
            f"#     {again}",
        ]
    )


def case_of(world: World):  # noqa: ANN201 (judge.evidence's case spec)
    """The case `world` declares, as the judge builds it (judge.evidence)."""
    return evidence(world, _TREE).case


def literal(value: object) -> str:
    """`value` as Python, a long text or bytes as a repetition (`_literal`)."""
    return _literal(value)


def spot_parts(world: World, group: str, index: int) -> tuple[str, ...]:
    """Where a rewrite's spot is, as names under a plain test's tree: the
    file fact `index`'s path under the root, or the receipt log."""
    if group == "file":
        return ("ws", *world.files[index].parts)
    made = evidence(world, _TREE)
    return tuple("ws" if p == made.root else p for p in made.log.at)


#: Past this many characters, a text or bytes literal is written as a
#: repetition (a file of 7,000 equal lines is one line of the snippet).
_LONG = 200


def _literal(value: object) -> str:
    """`value` as Python; a long text or bytes value made of a repeated
    piece (and a tail) as `piece * count + tail`, so a large file's test
    stays short enough to keep."""
    text = repr(value)
    if not isinstance(value, (str, bytes)) or len(text) <= _LONG:
        return text
    best = None
    for size in range(1, min(len(value) // 2, _LONG) + 1):
        piece = value[:size]
        count = 1
        while value.startswith(piece, count * size):
            count += 1
        tail = value[count * size :]
        if count > 1 and len(repr(tail)) <= _LONG:
            shown = f"{piece!r} * {count}" + (f" + {tail!r}" if tail else "")
            if best is None or len(shown) < len(best):
                best = shown
    return f"({best})" if best else text


def _test_name(check: ExpectedCheck) -> str:
    name = re.sub(r"\W+", "_", check.name.encode("ascii", "replace").decode())
    return f"test_{name.strip('_').lower()[:40] or 'check'}"


def _node_lines(node: Node, root: str) -> list[str]:
    parts = (
        "ws" if part == root and at == 0 else part for at, part in enumerate(node.parts)
    )
    where = "tree.joinpath(" + ", ".join(_literal(p) for p in parts) + ")"
    if node.what == "folder":
        return [f"{where}.mkdir(parents=True, exist_ok=True)"]
    if node.what == "file":
        lines = [f"_write({where}, {_literal(node.data)})"]
        if node.mode != 0o666:
            lines.append(f"os.chmod({where}, {oct(node.mode & ~0o022)})")
        return lines
    to = node.to
    if to.startswith(_TREE + "/"):
        inside = [p for p in PurePosixPath(to[len(_TREE) + 1 :]).parts]
        inside = ["ws" if at == 0 and p == root else p for at, p in enumerate(inside)]
        to_code = "str(tree.joinpath(" + ", ".join(_literal(p) for p in inside) + "))"
    else:
        to_code = _literal(to)
    return [
        f"{where}.parent.mkdir(parents=True, exist_ok=True)",
        f"os.symlink({to_code}, {where})",
    ]


def _receipt(stored: Stored) -> str:
    return (
        f"EffectReceipt({stored.call_id!r}, {stored.tool!r}, {stored.arguments!r},"
        f" {stored.exit_state!r}, {stored.result!r}, {stored.artifacts!r})"
    )


def _event(spec: EventSpec) -> str:
    if spec.action == "tool":
        action = f"ToolAction({spec.tool!r}, {json.loads(spec.arguments_json)!r})"
    elif spec.action in ("final", "final_with_result"):
        action = f"FinalAction({spec.final!r})"
    else:
        action = "None"
    return f"AgentEvent({spec.step}, {spec.response!r}, {action}, {spec.result!r})"


def _tuple(items: Sequence[str], indent: str) -> str:
    if not items:
        return "()"
    inner = "".join(f"{indent}    {item},\n" for item in items)
    return f"(\n{inner}{indent})"


#: The fewest repeating events written as a loop rather than one by one.
_LOOPED = 24


def _repeating(events: Sequence[EventSpec]) -> tuple[int, int, int] | None:
    """(count, period, share) when the first `count` events (at least
    `_LOOPED`) repeat their first `period` events but for the step, which
    is the first's plus n // share (share 0: the same step throughout)."""
    best = None
    for period in range(1, 9):
        if len(events) < _LOOPED or period > len(events):
            break
        count = period
        while count < len(events) and _same_but_step(
            events[count], events[count % period]
        ):
            count += 1
        steps = [e.step - events[0].step for e in events[:count]]
        moved = next((n for n, step in enumerate(steps) if step), 0)
        share = moved if moved and steps[moved] == 1 else 0
        # Where the steps stop following the rule, the loop stops too.
        count = next(
            (n for n in range(count) if steps[n] != (n // share if share else 0)),
            count,
        )
        if count >= _LOOPED and (best is None or count > best[0]):
            best = (count, period, share)
    return best


def _same_but_step(one: EventSpec, other: EventSpec) -> bool:
    return _event(replace(one, step=0)) == _event(replace(other, step=0))


def _events_lines(events: Sequence[EventSpec]) -> list[str]:
    """`events = (...)`: the run's events, a long repeating start as a loop."""
    found = _repeating(events)
    if found is None:
        return [f"events = {_tuple([_event(e) for e in events], '')}"]
    count, period, share = found
    first = events[0].step
    step = (
        f"{first} + n // {share}"
        if share > 1
        else f"{first} + n"
        if share
        else str(first)
    )
    said = [
        _event(replace(e, step=0)).replace("AgentEvent(0, ", "(", 1)
        for e in events[:period]
    ]
    rest = _tuple([_event(e) for e in events[count:]], "")
    return [
        f"# {count} events that say nothing of the case, these {period} over again.",
        f"again = {_tuple(said, '')}",
        "events = tuple(",
        f"    AgentEvent({step}, *again[n % {period}]) for n in range({count})",
        f") + {rest}",
    ]


def _world_lines(made: Evidence) -> list[str]:
    """The lines that build the world under `tree` (a Path) and evaluate it."""
    lines: list[str] = ["root = tree / 'ws'", "root.mkdir()"]
    for node in made.files:
        lines += _node_lines(node, made.root)
    log = made.log
    if log.store == "memory":
        lines.append("receipts = ReceiptStore()")
    else:
        path = [
            "ws" if at == 0 and p == made.root else p for at, p in enumerate(log.path)
        ]
        where = "tree.joinpath(" + ", ".join(_literal(p) for p in path) + ")"
        lines.append(f"receipts = ReceiptStore({where})")
    lines += [f"receipts.put({_receipt(stored)})" for stored in log.put]
    for number, stored in enumerate(log.appended):
        # Written by a second store, then added to the log behind the first's back.
        line = f"tree.joinpath('_scratch', 'line{number}.jsonl')"
        lines += [
            f"{line}.parent.mkdir(exist_ok=True)",
            f"ReceiptStore({line}).put({_receipt(stored)})",
            "with open(receipts.path, 'ab') as log:",
            f"    log.write({line}.read_bytes())",
        ]
    if log.damage is not None:
        damaged = log.damage.applied(_canonical(log), _conflict(log))
        lines += [
            "# The log your store wrote, then damaged (as the contract's format",
            "# writes it: one JSON object a line, sorted keys).",
            f"receipts.path.write_bytes({damaged!r})",
        ]
    if log.workspace_store == "same":
        lines.append("workspace = Workspace(ToolPolicy(root), None, receipts)")
    else:
        lines.append("workspace = Workspace(ToolPolicy(root), None, ReceiptStore())")
    run = made.run
    assert run is not None
    lines += _events_lines(run.events)
    lines += [
        f"run = AgentRun({run.completed!r}, {run.reason!r}, {run.final!r}, events,"
        f" {run.modified_files!r})",
    ]
    if run.as_list:
        # The run's events handed over as a list: an evaluator must not sort it.
        lines.append("object.__setattr__(run, 'events', list(events))")
    case = made.case
    files = [f"FileExpectation({p!r}, {_literal(c)})" for p, c in case.files]
    results = [f"ResultExpectation({t!r}, {c!r})" for t, c in case.results]
    receipts = [
        f"ReceiptExpectation({i!r}, {t!r}, {e!r}, {c!r}, {a!r})"
        for i, t, e, c, a in case.receipts
    ]
    lines += [
        "case = EvaluationCase(",
        f"    {case.final_contains!r},",
        f"    files={_tuple(files, '    ')},",
        f"    results={_tuple(results, '    ')},",
        f"    receipts={_tuple(receipts, '    ')},",
        ")",
    ]
    if log.get is not None:
        error = "AgentError" if log.get == "AgentError" else log.get
        if error == "LookupFailure":
            lines.append("class LookupFailure(Exception): pass")
        lines += [
            "def get(call_id):",
            f"    raise {error}(f'lookup of {{call_id}} broke')",
            "receipts.get = get  # the store's lookup raises",
        ]
    return lines


def _line(stored: Stored) -> bytes:
    """The log line the contract's format gives `stored` (day7-surface.md:
    `to_dict()` with sorted keys, default separators, a newline)."""
    payload = {
        "tool_call_id": stored.call_id,
        "tool": stored.tool,
        "arguments": stored.arguments,
        "exit_state": stored.exit_state,
        "result": stored.result,
        "changed_artifacts": list(stored.artifacts),
    }
    digest = hashlib.sha256(
        json.dumps(payload, sort_keys=True, separators=(",", ":")).encode("utf-8")
    ).hexdigest()
    line = json.dumps({"receipt_id": digest, **payload}, sort_keys=True)
    return line.encode("utf-8") + b"\n"


def _canonical(log: Log) -> bytes:
    """The log as the store writes it before the damage: its put receipts,
    then the appended ones."""
    return b"".join(_line(stored) for stored in (*log.put, *log.appended))


def _conflict(log: Log) -> bytes:
    assert log.damage is not None
    other = log.damage.conflicting(_canonical(log))
    return b"" if other is None else _line(other)


def verdict_lines(check: ExpectedCheck, level: str) -> list[str]:
    """Asserts on the report: the check is there, with its verdict and its
    binding detail, each failing with the lesson's own sentence."""
    should = check.shown(level)
    lines = [
        f"rows = [c for c in report.checks if c.name == {check.name!r}]",
        f"assert rows, 'the report has no check named ' + {check.name!r}",
        "got = rows[0]",
        "shown = f\"{got.name}: {'PASS' if got.passed is True else 'FAIL'}"
        ' ({got.detail})"',
    ]
    if check.passed is None:
        return lines
    lines.append(
        f"assert got.passed is {check.passed}, f'got {{shown}}, but should be'"
        f" ' ' + {should!r}"
    )
    binding = check.binding(level)
    loose = level == "course" and not check.passed and not check.course_binding
    if binding is not None and not loose:
        test = "got.detail.startswith" if check.prefix else "got.detail.__eq__"
        lines.append(
            f"assert {test}({binding!r}), f'got {{shown}}, but should be'"
            f" ' ' + {should!r}"
        )
    return lines


def _build_function(name: str, made: Evidence) -> list[str]:
    """A function that builds a world under `tree` and returns the four
    arguments of evaluate_run."""
    body = [*_world_lines(made), "return run, workspace, receipts, case"]
    return [
        f"def {name}(tree):",
        *(f"    {line}" for item in body for line in item.split("\n")),
    ]


def _rewrite_lines(spot: tuple[str, ...], way: str) -> list[str]:
    """Lines that give `spot` in the first tree the bytes the second tree
    holds there, in the same inode or a new one, its times put back."""
    parts = ", ".join(_literal(p) for p in spot)
    lines = [
        f"path = first.joinpath({parts})",
        f"data = second.joinpath({parts}).read_bytes()",
        "times = os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns",
    ]
    if way == "new_inode":
        lines += [
            "# A new inode of the same size, renamed over the old one.",
            "path.with_name('.new').write_bytes(data)",
            "os.replace(path.with_name('.new'), path)",
        ]
    else:
        lines += [
            "# The same inode, written over.",
            "with open(path, 'r+b') as same:",
            "    same.write(data)",
            "    same.truncate()",
        ]
    return [*lines, "os.utime(path, ns=times)  # its times put back"]


#: What a test that rebuilds or rewrites evidence does first, in words.
_BEFORE = {
    "rebuilt": "another world is built and evaluated at the same paths first",
    "rewritten": "the world before it is evaluated first, then its evidence is"
    " given this world's bytes",
}


#: How a names test words two lists of check names (as the judge's
#: `verdicts.shown_names`: escaped when they differ but print the same).
_SHOWN_NAMES = [
    "def _shown(names, other):",
    "    import unicodedata",
    "",
    "    def nfc(them):",
    "        return [unicodedata.normalize('NFC', name) for name in them]",
    "",
    "    if list(names) != list(other) and nfc(names) == nfc(other):",
    "        return ', '.join(ascii(name) for name in names)",
    "    return ', '.join(names)",
]


def _names_lines(want: Sequence[str]) -> list[str]:
    """Asserts that the report's checks are `want`, named and in order."""
    return [
        f"want = {list(want)!r}",
        "names = [c.name for c in report.checks]",
        "assert names == want, (",
        "    f'got checks [{_shown(names, want)}], but should be'",
        "    f' checks [{_shown(want, names)}]'",
        ")",
    ]


def lesson_test(
    world: World,
    check: ExpectedCheck | None,
    *,
    names: Sequence[str] = (),
    level: str,
    folder: str,
    about: str = "",
    before: World | None = None,
    rewrite: tuple[tuple[str, ...], str] | None = None,
) -> str:
    """The source of a test that builds `world` with the learner's own names
    from `folder`, evaluates it and asserts `check` (as `level` binds it),
    or, with `check` None, that the report's checks are `names` in order.

    `before`: the world evaluated first, at the same paths (the tree emptied
    and `world` built there after it). With `rewrite` = (where, way), the
    place under the tree (a file, the log) is instead given the bytes
    `world` puts there (built in a second folder), in the same inode or a
    new one (`way`), its times put back, and `world`'s run and case are
    evaluated with the first world's workspace and store. Every world must
    be plain (`why_not_plain` says ""). `about` is what the test is about.
    """
    made = evidence(world, _TREE)
    name = "test_check_names" if check is None else _test_name(check)
    builds = _build_function("build", made)
    if before is None:
        steps = [
            "with tempfile.TemporaryDirectory() as folder:",
            "    run, workspace, receipts, case = build(Path(folder))",
            "    report = evaluate_run(run, workspace, receipts, case)",
        ]
    else:
        builds = [
            *_build_function("build_before", evidence(before, _TREE)),
            "",
            "",
            *builds,
        ]
        steps = [
            "with tempfile.TemporaryDirectory() as folder:",
            "    first = Path(folder, 'w')",
            "    first.mkdir()",
            "    earlier = build_before(first)",
            "    print(evaluate_run(*earlier).render())  # the world before",
        ]
        if rewrite is None:
            steps += [
                "    shutil.rmtree(first)  # this world at the very same paths",
                "    first.mkdir()",
                "    run, workspace, receipts, case = build(first)",
                "    report = evaluate_run(run, workspace, receipts, case)",
            ]
        else:
            spot, way = rewrite
            steps += [
                "    second = Path(folder, 'second')",
                "    second.mkdir()",
                "    run, _, _, case = build(second)",
                *(f"    {line}" for line in _rewrite_lines(spot, way)),
                "    _, workspace, receipts, _ = earlier",
                "    report = evaluate_run(run, workspace, receipts, case)",
            ]
    steps += ["    print(report.render())"]
    asserts = _names_lines(names) if check is None else verdict_lines(check, level)
    steps += [f"    {line}" for line in asserts]
    if check is None:
        builds = [*_SHOWN_NAMES, "", "", *builds]
    used = "\n".join([*builds, *steps])
    imports = _imports(used)
    file_name = f"{name}.py"
    first_lines = [
        PLAIN_MARK,
        f"# Save it as {file_name} in your checkout's root, then run it there:",
        f"#     python {file_name}        (or: pytest {file_name})",
        f"# It checks {about + ': ' if about else ''}"
        + (f"checks {list(names)!r}" if check is None else repr(check.shown(level))),
    ]
    if before is not None:
        first_lines.append(
            f"# ({_BEFORE['rebuilt' if rewrite is None else 'rewritten']})"
        )
    return "\n".join(
        [
            *first_lines,
            "",
            *(["import os"] if re.search(r"\bos\.", used) else []),
            *(["import shutil"] if "shutil." in used else []),
            "import sys",
            "import tempfile",
            "import types",
            "from pathlib import Path",
            "",
            *_loading(folder),
            *imports,
            "",
            "",
            "def _write(path, data):",
            "    path.parent.mkdir(parents=True, exist_ok=True)",
            "    path.write_bytes(data)",
            "",
            "",
            *builds,
            "",
            "",
            f"def {name}():",
            *(f"    {line}" for line in steps),
            "",
            "",
            'if __name__ == "__main__":',
            f"    {name}()",
            "",
        ]
    )


def build_lines(
    world: World, name: str = "build", events: Sequence[EventSpec] | None = None
) -> list[str]:
    """The function `name(tree)` that builds `world` (its run's events
    `events`, when given) under `tree` and returns evaluate_run's four
    arguments; `world` must be plain (`why_not_plain`)."""
    return _build_function(name, evidence(world, _TREE, events))


def program(
    name: str, says: str, folder: str, defs: Sequence[str], steps: Sequence[str]
) -> str:
    """A whole plain test: where to save it and how to run it, what it checks
    (`says`), the course names its lines use, the learner's folder as a
    package of its own, `defs` (module-level lines), and the test function
    `name` running `steps` (pytest collects it, `python FILE` runs it)."""
    used = "\n".join([*defs, *steps])
    file_name = f"{name}.py"
    return "\n".join(
        [
            PLAIN_MARK,
            f"# Save it as {file_name} in your checkout's root, then run it there:",
            f"#     python {file_name}        (or: pytest {file_name})",
            f"# It checks that {says}",
            "",
            *(["import os"] if re.search(r"\bos\.", used) else []),
            *(["import shutil"] if "shutil." in used else []),
            "import sys",
            *(["import tempfile"] if "tempfile." in used else []),
            "import types",
            "from pathlib import Path",
            "",
            *_loading(folder),
            *_imports(used),
            "",
            "",
            *defs,
            "",
            "",
            f"def {name}():",
            *(f"    {line}" for line in steps),
            "",
            "",
            'if __name__ == "__main__":',
            f"    {name}()",
            "",
        ]
    )


def _imports(used: str) -> list[str]:
    """The imports of the course names `used` mentions, module by module."""
    imports = []
    for module, names in _HOMES.items():
        wanted = [n for n in names if re.search(rf"\b{n}\b", used)]
        if wanted:
            imports.append(f"from {_PACKAGE}.{module} import {', '.join(wanted)}")
    return imports


#: Module-level lines a plain test that builds a world needs.
WRITE = [
    "def _write(path, data):",
    "    path.parent.mkdir(parents=True, exist_ok=True)",
    "    path.write_bytes(data)",
]


#: A value as the judge's lessons quote it (`judge.shape.short_repr`): its
#: repr, cut at 80 characters, or what its own repr() raised.
SHORT = [
    "def _short(value, limit=80):",
    "    try:",
    "        text = repr(value)",
    "    except Exception as error:  # your value's own __repr__ may raise",
    "        named, raised = type(value).__name__, type(error).__name__",
    "        text = f'<{named} whose repr() raised {raised}>'",
    "    return text if len(text) <= limit else text[: limit - 3] + '...'",
]


#: A subclass of a course class, as the judge makes one (judge.remote
#: `recast`): the instance's class swapped for a subclass adding nothing.
RECAST = [
    "def recast(instance, base, name):",
    "    # `instance` made an instance of `name`, a subclass of its class `base`",
    "    # that adds nothing (a frozen dataclass's fields are kept as they are).",
    "    assert type(instance).__name__ == base",
    "    subclass = type(name, (type(instance),), {'__slots__': ()})",
    "    object.__setattr__(instance, '__class__', subclass)",
    "    return instance",
]


def _header(name: str, says: str, folder: str, names_used: str) -> list[str]:
    """A plain test's first lines: where to save it, how to run it, what it
    checks, the imports and the learner's folder as a package of its own."""
    file_name = f"{name}.py"
    return [
        PLAIN_MARK,
        f"# Save it as {file_name} in your checkout's root, then run it there:",
        f"#     python {file_name}        (or: pytest {file_name})",
        f"# It checks that {says}",
        "",
        "import sys",
        "import types",
        "from pathlib import Path",
        "",
        *_loading(folder),
        *_imports(names_used),
    ]


def _footer(name: str, steps: Sequence[str]) -> list[str]:
    subclassed = any("recast(" in step for step in steps)
    return [
        "",
        "",
        *SHORT,
        "",
        "",
        *([*RECAST, "", ""] if subclassed else []),
        f"def {name}():",
        *(f"    {line}" for line in steps),
        "",
        "",
        'if __name__ == "__main__":',
        f"    {name}()",
        "",
    ]


def plain_code(code: str) -> str:
    """A case specification's code (`strategies.cases.Spec.code`, which
    names the target's classes as `target.X`) with the course's names (a
    subclass made by `recast`, which the test then defines: `RECAST`)."""
    return re.sub(r"\btarget\.", "", code)


def _slug(what: str) -> str:
    name = re.sub(r"\W+", "_", what.encode("ascii", "replace").decode()).lower()
    return f"test_{name.strip('_')[:40] or 'case'}"


def refusal_steps(code: str, names: Sequence[str], *, binding: bool) -> list[str]:
    """Lines asserting that `code` (plain Python) raises ValueError (naming
    one of `names`, when `binding`), said as the judge says it of `WHAT`, a
    name the test defines."""
    should = "but should raise ValueError"
    wanted = " or ".join(repr(n) for n in names)
    raised = "f'{WHAT} raised {type(error).__name__}: {said}, " + should + "'"
    returned = "f'{WHAT} returned {_short(made)}, " + should + "'"
    steps = [
        "try:",
        f"    made = {code}",
        "except ValueError as error:",
        "    message = str(error)",
        "except Exception as error:",
        "    said = ' '.join(str(error).split())",
        f"    raise AssertionError({raised}) from error",
        "else:",
        f"    raise AssertionError({returned})",
    ]
    if binding:
        steps += [
            f"assert any(name in message for name in {tuple(names)!r}), (",
            "    f'got ValueError: {message!r}, but {WHAT} should raise ValueError'",
            f"    ' naming ' + {wanted!r}",
            ")",
        ]
    return steps


def refusal_test(
    what: str, code: str, names: Sequence[str], *, binding: bool, folder: str
) -> str:
    """A plain test that `code` (a case specification's) raises ValueError
    (naming one of `names`, when `binding`), its messages the lesson's
    headlines."""
    plain = plain_code(code)
    wanted = " or ".join(repr(n) for n in names)
    steps = refusal_steps(plain, names, binding=binding)
    name = _slug(what)
    says = f"{what} raises ValueError" + (f" naming {wanted}" if binding else "")
    return "\n".join(
        [
            *_header(name, says, folder, plain),
            "",
            f"WHAT = {what!r}",
            *_footer(name, steps),
        ]
    )


def acceptance_test(
    what: str, code: str, holds: Sequence[tuple[str, object]], *, folder: str
) -> str:
    """A plain test that `code` (a valid case specification's) builds an
    object holding `holds` (attribute, value; `len(x)` for a length), its
    messages the lesson's headlines."""
    plain = plain_code(code)
    raised = (
        "f'{WHAT} raised {type(error).__name__}: {said}, but should return normally'"
    )
    steps = [
        "try:",
        f"    made = {plain}",
        "except Exception as error:",
        "    said = ' '.join(str(error).split())",
        f"    raise AssertionError({raised}) from error",
    ]
    for attribute, value in holds:
        shown = (
            f"len(made.{attribute[4:-1]})"
            if attribute.startswith("len(")
            else f"made.{attribute}"
        )
        steps += [
            f"assert {shown} == {value!r}, (",
            f"    f'got {attribute} == {{{shown}!r}}, but should be'",
            f"    ' ' + {what + '.' + attribute + ' == ' + repr(value)!r}",
            ")",
        ]
    name = _slug(what)
    return "\n".join(
        [
            *_header(name, f"{what} is accepted as written", folder, plain),
            "",
            f"WHAT = {what!r}",
            *_footer(name, steps),
        ]
    )


def _loading(folder: str) -> list[str]:
    """The lines that load a learner's folder as a package of its own."""
    return [
        f"FOLDER = {folder_line(folder)!r}  # your agent folder",
        "",
        "# Your folder as a package of its own: its __init__.py (which imports",
        "# MLX in a course checkout) is not run, only the modules used below.",
        f"_package = types.ModuleType({_PACKAGE!r})",
        "_package.__path__ = [str(Path(FOLDER).resolve())]",
        f"sys.modules.setdefault({_PACKAGE!r}, _package)",
    ]
