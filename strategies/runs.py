"""Real runs: drawn plans played by the target's own `run_agent` and judged by
the case the plan implies.

A plan is neutral data: a small workspace (one to three short text files) and
the replies a scripted model will give, in order: reads, listings, edits,
writes, allowed commands run with the current interpreter, effects the
approval callback denies, effects the workspace refuses before asking,
invalid replies, and a final answer. Nothing here touches a target when a
strategy is built or drawn; `materialise_run` makes a plan real for one target
inside a directory the test owns.

A plan knows its own outcome (`replay`): the events the loop must record,
the final bytes of every file, the receipts the store must hold and the call
ids that denied or refused effects used up. The case it implies (`case_facts`)
is therefore true by construction, and `wrong_facts` changes one expectation
at a time into one the plan knows to be false, so each must fail its own
check and no other. The oracle is the plan, never a second evaluator.

Call ids follow the Day 3 workspace: every effect the model asks for (write,
edit or command) takes the next id, `call-1`, `call-2`, ..., before it is
prepared and approved, so a denied or refused effect uses one up and leaves
no receipt.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import example
from hypothesis import strategies as st

from strategies.lessons import call_target, fail

__all__ = [
    "ALTERNATE_TEMPLATE",
    "BYTES_PLAN",
    "CHAPTER_PLAN",
    "CHAPTER_TASK",
    "EFFECTS_PLAN",
    "RICH_PLAN",
    "STORE_KINDS",
    "TWO_READS_PLAN",
    "WRITTEN_PLANS",
    "Approver",
    "CaseFacts",
    "Denied",
    "EditFile",
    "FileFact",
    "Invalid",
    "ListFiles",
    "Outcome",
    "Plan",
    "ReadFile",
    "RealRun",
    "ReceiptFact",
    "Refused",
    "ResultFact",
    "RunCommand",
    "ScriptedModel",
    "SeedFile",
    "WriteFile",
    "WrongFact",
    "assert_verdicts",
    "case_facts",
    "command",
    "describe_facts",
    "describe_plan",
    "describe_world",
    "judge",
    "materialise_run",
    "plans",
    "replay",
    "run_view",
    "to_case",
    "verdicts",
    "with_written_plans",
    "wrong_facts",
]

#: Never drawn into any file, path, marker, reason or reply: a substring
#: holding it occurs in no result of any run.
SENTINEL = "|"
#: Starts every drawn marker (command output, final). No listing or error
#: text holds it (file texts may: their read results are known exactly).
MARKER = "@"
#: Appended to a file's text to make an edit's `old` text that cannot occur.
_ABSENT = "#"

TOOLS = ("read_file", "list_files", "edit_file", "write_file", "run_command")
EFFECT_TOOLS = ("edit_file", "write_file", "run_command")

#: Where the receipt log lives, simplest first: beside the workspace root in
#: the same temporary directory, inside the root itself (as in the chapter's
#: scenario), or nowhere (an in-memory store).
STORE_KINDS = ("log beside the root", "log inside the root", "in-memory store")
LOG_NAME = "receipts.jsonl"

#: Seed files, simplest first; nested directories and one unicode name.
SEED_PATHS = ("a.txt", "b.md", "src/c.py", "src/lib/d.txt", "docs/é.txt")
#: Names a write may create; each needs its parent directory to exist.
NEW_PATHS = ("new.txt", "out.md", "src/new.py", "docs/new.txt")

#: Replies no loop may accept, simplest first.
INVALID_REPLIES = (
    "I will edit the file now.",
    '{"tool": "delete_file", "path": "a.txt"}',
    '{"tool": "read_file"}',
    "[1, 2]",
)

#: How the final answer phrases its marker; the first is not the marker alone,
#: so an evaluator comparing for equality fails on it.
FINAL_TEMPLATES = ("done:{}.", "{}", "Result {} (checked)")
ALTERNATE_TEMPLATE = "In other words, {} holds for the recorded evidence"

CHAPTER_TASK = "set answer = 2 in app.py and validate"
PLAN_TASK = "carry out the scripted plan"


# ---------------------------------------------------------------------------
# The plan vocabulary


@dataclass(frozen=True)
class SeedFile:
    """A file present before the run."""

    path: str
    content: str


@dataclass(frozen=True)
class ReadFile:
    path: str


@dataclass(frozen=True)
class ListFiles:
    path: str = "."


@dataclass(frozen=True)
class EditFile:
    path: str
    old: str
    new: str


@dataclass(frozen=True)
class WriteFile:
    path: str
    content: str


@dataclass(frozen=True)
class RunCommand:
    """`python -c code`: prints `output` (status 0) or writes it to stderr
    and exits with `status`. `printed` is exactly what the command outputs.

    `isolated` adds `-I -S`: no site packages to import, so the interpreter
    starts in a fraction of the time (the chapter's own command has neither).
    """

    code: str
    output: str
    printed: str
    status: int
    isolated: bool = True


@dataclass(frozen=True)
class Denied:
    """An effect the approval callback refuses: with an `ApprovalDecision`
    carrying `reason`, or by returning False when `reason` is None."""

    effect: EditFile | WriteFile | RunCommand
    reason: str | None


@dataclass(frozen=True)
class Refused:
    """An edit the workspace refuses before asking for approval: the file
    was never read, or its `old` text does not occur."""

    path: str
    old: str
    why: str


@dataclass(frozen=True)
class Invalid:
    reply: str


Step = (
    ReadFile
    | ListFiles
    | EditFile
    | WriteFile
    | RunCommand
    | Denied
    | Refused
    | Invalid
)


@dataclass(frozen=True)
class Plan:
    """A workspace, the model's replies in order, and where receipts go."""

    files: tuple[SeedFile, ...]
    steps: tuple[Step, ...]
    final: str
    marker: str
    store: str = STORE_KINDS[0]
    approve_with_decision: bool = False
    task: str = PLAN_TASK


def command(output: str, status: int = 0) -> RunCommand:
    """A command printing `output` (status 0), or failing with it on stderr."""
    if status == 0:
        code = f"print({output!r})"
        printed = output + "\n"
    else:
        code = f"import sys; sys.stderr.write({output!r}); sys.exit({status})"
        printed = output
    return RunCommand(code, output, printed, status)


def _effect_tool(step: EditFile | WriteFile | RunCommand) -> str:
    if isinstance(step, EditFile):
        return "edit_file"
    if isinstance(step, WriteFile):
        return "write_file"
    return "run_command"


def _argv(step: RunCommand) -> list[str]:
    flags = ["-I", "-S"] if step.isolated else []
    return [sys.executable, *flags, "-c", step.code]


def _reply(step: Step) -> str:
    """The model's JSON reply for one step."""
    if isinstance(step, Invalid):
        return step.reply
    if isinstance(step, Denied):
        return _reply(step.effect)
    if isinstance(step, ReadFile):
        body: dict[str, Any] = {"tool": "read_file", "path": step.path}
    elif isinstance(step, ListFiles):
        body = {"tool": "list_files", "path": step.path}
    elif isinstance(step, EditFile):
        body = {"tool": "edit_file", "path": step.path, "old": step.old}
        body["new"] = step.new
    elif isinstance(step, Refused):
        body = {"tool": "edit_file", "path": step.path, "old": step.old, "new": "x"}
    elif isinstance(step, WriteFile):
        body = {"tool": "write_file", "path": step.path, "content": step.content}
    else:
        body = {"tool": "run_command", "argv": _argv(step)}
    return json.dumps(body)


def replies(plan: Plan, *, with_final: bool = True) -> tuple[str, ...]:
    steps = tuple(_reply(step) for step in plan.steps)
    return (*steps, json.dumps({"final": plan.final})) if with_final else steps


def _commands(plan: Plan) -> tuple[tuple[str, ...], ...]:
    """Every command argv of the plan, once each, for the policy."""
    found: list[tuple[str, ...]] = []
    for step in plan.steps:
        effect = step.effect if isinstance(step, Denied) else step
        if isinstance(effect, RunCommand) and tuple(_argv(effect)) not in found:
            found.append(tuple(_argv(effect)))
    return tuple(found)


# ---------------------------------------------------------------------------
# What a plan implies


@dataclass(frozen=True)
class PlannedEvent:
    """One event the loop must record. `result` is the exact result when
    `known`; otherwise only "error: ..." (denials, refusals, invalid replies)
    or a listing is known, and it holds neither SENTINEL nor MARKER."""

    tool: str | None
    result: str | None
    known: bool


@dataclass(frozen=True)
class ReceiptFact:
    call_id: str
    tool: str
    exit_state: str
    result_contains: str
    changed_artifacts: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlannedReceipt:
    call_id: str
    tool: str
    exit_state: str
    result: str
    changed_artifacts: tuple[str, ...]
    contains: tuple[str, ...]  # the substrings a case may require of `result`


@dataclass(frozen=True)
class Outcome:
    """Everything a plan implies, before any target runs it."""

    events: tuple[PlannedEvent, ...]  # one per step, then the final event
    files: tuple[tuple[str, str], ...]  # path -> final text, seeds then new
    receipts: tuple[PlannedReceipt, ...]
    unused_call_ids: tuple[str, ...]  # taken by denied or refused effects
    approvals: tuple[str, ...]  # the tools the approval callback sees
    results: tuple[tuple[str, str], ...]  # (tool, substring) observed
    never_created: tuple[str, ...]  # paths only denied writes named
    observed: tuple[str, ...]  # files the workspace has read or written
    outputs: tuple[str, ...]  # markers of commands, run or denied


def _listing_name(files: dict[str, str], directory: str) -> str | None:
    """One entry a listing of `directory` must show, as its relative path."""
    prefix = "" if directory == "." else directory + "/"
    children = sorted(
        {
            prefix + path[len(prefix) :].split("/", 1)[0]
            for path in files
            if path.startswith(prefix)
        }
    )
    return children[0] if children else None


def replay(plan: Plan) -> Outcome:
    """The outcome of `plan` under the Day 1-3 rules, computed without a target."""
    files = {seed.path: seed.content for seed in plan.files}
    observed: set[str] = set()
    events: list[PlannedEvent] = []
    receipts: list[PlannedReceipt] = []
    unused: list[str] = []
    approvals: list[str] = []
    results: list[tuple[str, str]] = []
    never_created: list[str] = []
    outputs: list[str] = []
    calls = 0

    def next_call() -> str:
        nonlocal calls
        calls += 1
        return f"call-{calls}"

    for step in plan.steps:
        if isinstance(step, ReadFile):
            text = files[step.path]
            observed.add(step.path)
            events.append(PlannedEvent("read_file", text, True))
            if text.strip():
                results.append(("read_file", text))
        elif isinstance(step, ListFiles):
            events.append(PlannedEvent("list_files", None, False))
            name = _listing_name(files, step.path)
            if name is not None:
                results.append(("list_files", name))
        elif isinstance(step, Invalid):
            events.append(PlannedEvent(None, None, False))
        elif isinstance(step, Refused):
            unused.append(next_call())
            events.append(PlannedEvent("edit_file", None, False))
        elif isinstance(step, Denied):
            unused.append(next_call())
            tool = _effect_tool(step.effect)
            approvals.append(tool)
            events.append(PlannedEvent(tool, None, False))
            if isinstance(step.effect, WriteFile) and step.effect.path not in files:
                never_created.append(step.effect.path)
            if isinstance(step.effect, RunCommand):
                outputs.append(step.effect.output)
        else:
            call_id = next_call()
            tool = _effect_tool(step)
            approvals.append(tool)
            if isinstance(step, RunCommand):
                result = f"status: {step.status}\noutput:\n{step.printed}"
                status = f"status: {step.status}"
                exit_state = "ok" if step.status == 0 else "error"
                contains: tuple[str, ...] = (step.output, status)
                artifacts: tuple[str, ...] = ()
                outputs.append(step.output)
            else:
                if isinstance(step, EditFile):
                    files[step.path] = files[step.path].replace(step.old, step.new, 1)
                    result = f"edited {step.path}"
                else:
                    files[step.path] = step.content
                    result = f"wrote {step.path}"
                observed.add(step.path)
                exit_state = "ok"
                contains = (result,)
                artifacts = (step.path,)
            events.append(PlannedEvent(tool, result, True))
            results.extend((tool, text) for text in contains)
            receipts.append(
                PlannedReceipt(call_id, tool, exit_state, result, artifacts, contains)
            )
    events.append(PlannedEvent(None, None, True))  # the final: no tool, no result
    never = tuple(dict.fromkeys(p for p in never_created if p not in files))
    return Outcome(
        events=tuple(events),
        files=tuple(files.items()),
        receipts=tuple(receipts),
        unused_call_ids=tuple(unused),
        approvals=tuple(approvals),
        results=tuple(results),
        never_created=never,
        observed=tuple(sorted(observed)),
        outputs=tuple(outputs),
    )


# ---------------------------------------------------------------------------
# Cases as neutral data


@dataclass(frozen=True)
class FileFact:
    path: str
    content: str


@dataclass(frozen=True)
class ResultFact:
    tool: str
    contains: str


@dataclass(frozen=True)
class CaseFacts:
    """An evaluation case as plain data; `to_case` builds the target's."""

    final_contains: str
    files: tuple[FileFact, ...] = ()
    results: tuple[ResultFact, ...] = ()
    receipts: tuple[ReceiptFact, ...] = ()

    def check_names(self) -> tuple[str, ...]:
        return (
            "final",
            *(f"file:{fact.path}" for fact in self.files),
            *(f"result:{fact.tool}" for fact in self.results),
            *(f"receipt:{fact.call_id}" for fact in self.receipts),
        )

    def replaced(self, group: str, index: int, fact: Any) -> CaseFacts:
        """These facts with item `index` of `group` replaced by `fact`."""
        items = list(getattr(self, group))
        items[index] = fact
        return dataclasses.replace(self, **{group: tuple(items)})


def case_facts(plan: Plan, outcome: Outcome | None = None) -> CaseFacts:
    """The case a plan implies: every fact of it holds after a complete run."""
    outcome = replay(plan) if outcome is None else outcome
    return CaseFacts(
        final_contains=plan.marker,
        files=tuple(FileFact(path, text) for path, text in outcome.files),
        results=tuple(ResultFact(tool, text) for tool, text in outcome.results),
        receipts=tuple(
            ReceiptFact(
                r.call_id, r.tool, r.exit_state, r.contains[0], r.changed_artifacts
            )
            for r in outcome.receipts
        ),
    )


def to_case(target: Any, facts: CaseFacts) -> Any:
    """The target's own EvaluationCase for `facts`."""
    __tracebackhide__ = True
    files = tuple(
        call_target(
            f"FileExpectation({f.path!r}, {f.content!r})",
            target.FileExpectation,
            f.path,
            f.content,
        )
        for f in facts.files
    )
    results = tuple(
        call_target(
            f"ResultExpectation({r.tool!r}, {r.contains!r})",
            target.ResultExpectation,
            r.tool,
            r.contains,
        )
        for r in facts.results
    )
    receipts = tuple(
        call_target(
            f"ReceiptExpectation({r.call_id!r}, {r.tool!r}, {r.exit_state!r},"
            f" {r.result_contains!r}, {r.changed_artifacts!r})",
            target.ReceiptExpectation,
            r.call_id,
            r.tool,
            r.exit_state,
            r.result_contains,
            r.changed_artifacts,
        )
        for r in facts.receipts
    )
    return call_target(
        f"EvaluationCase({facts.final_contains!r}, ...)",
        target.EvaluationCase,
        facts.final_contains,
        files,
        results,
        receipts,
    )


def describe_facts(facts: CaseFacts) -> str:
    lines = [f"final_contains={facts.final_contains!r}"]
    lines += [f"file {f.path!r} = {f.content!r}" for f in facts.files]
    lines += [f"result {r.tool} contains {r.contains!r}" for r in facts.results]
    lines += [
        f"receipt {r.call_id}: {r.tool}, {r.exit_state},"
        f" result contains {r.result_contains!r}, artifacts {r.changed_artifacts!r}"
        for r in facts.receipts
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Wrong facts: one expectation changed into one the plan knows is false


@dataclass(frozen=True)
class WrongFact:
    """`facts` with one expectation made false; `index` is its check."""

    label: str
    facts: CaseFacts
    index: int


def _result_holds(outcome: Outcome, tool: str, text: str) -> bool | None:
    """Whether some event of `tool` has a result containing `text`; None
    when only an event whose exact result is unknown could decide."""
    undecided = False
    for event in outcome.events:
        if event.tool != tool:
            continue
        if event.known and event.result is not None and text in event.result:
            return True
        if not event.known:
            undecided = True
    if undecided and SENTINEL not in text and MARKER not in text:
        return None
    return False


def _file_variants(content: str) -> Iterator[tuple[str, str]]:
    yield "a stray character appended", content + SENTINEL
    yield "one more newline at the end", content + "\n"
    if content:
        yield "the last character missing", content[:-1]
    if content.strip() != content:
        yield "surrounding whitespace stripped", content.strip()
    if "\r" in content:
        yield "newlines normalised to LF", content.replace("\r\n", "\n")
    if content.startswith("\ufeff"):
        yield "the byte order mark dropped", content[1:]
    if content.upper() != content:
        yield "upper-cased", content.upper()


def _text_variants(text: str) -> Iterator[tuple[str, str]]:
    yield "a stray character appended", text + SENTINEL
    if text.upper() != text:
        yield "upper-cased", text.upper()
    yield "padded with spaces", f" {text} "


def wrong_facts(plan: Plan, outcome: Outcome | None = None) -> tuple[WrongFact, ...]:
    """Every single-expectation change of `case_facts(plan)` that must fail.

    Each keeps the case valid (unique paths and call ids) and is false by
    the plan's own knowledge; undecidable changes are left out.
    """
    outcome = replay(plan) if outcome is None else outcome
    facts = case_facts(plan, outcome)
    wrong: list[WrongFact] = []

    for label, text in _text_variants(plan.marker):
        if text.strip() and text not in plan.final:
            wrong.append(
                WrongFact(f"final_contains {label}: {text!r}", _final(facts, text), 0)
            )
    for output in outcome.outputs:
        if output not in plan.final:
            label = f"final_contains = a command's output {output!r}"
            wrong.append(WrongFact(label, _final(facts, output), 0))

    index = 1
    files = dict(outcome.files)
    for position, fact in enumerate(facts.files):
        for label, text in _file_variants(fact.content):
            if text != fact.content:
                changed = facts.replaced("files", position, FileFact(fact.path, text))
                wrong.append(WrongFact(f"file {fact.path} {label}", changed, index))
        for path in outcome.never_created:
            if path not in files:
                changed = facts.replaced(
                    "files", position, FileFact(path, fact.content)
                )
                label = f"file {path} (only a denied write named it)"
                wrong.append(WrongFact(label, changed, index))
                break
        index += 1

    for position, fact in enumerate(facts.results):
        candidates = [
            (f"{fact.tool} result {label}", ResultFact(fact.tool, text))
            for label, text in _text_variants(fact.contains)
            if text.strip()
        ]
        candidates += [
            (
                f"{fact.contains!r} expected of {tool} instead of {fact.tool}",
                ResultFact(tool, fact.contains),
            )
            for tool in TOOLS
            if tool != fact.tool
        ]
        candidates += [
            (
                f"the output {output!r} of a command that never ran",
                ResultFact("run_command", output),
            )
            for output in outcome.outputs
        ]
        for label, changed_fact in candidates:
            if (
                _result_holds(outcome, changed_fact.tool, changed_fact.contains)
                is False
            ):
                changed = facts.replaced("results", position, changed_fact)
                wrong.append(WrongFact(label, changed, index))
        index += 1

    receipts = {r.call_id: r for r in outcome.receipts}
    taken = {fact.call_id for fact in facts.receipts}
    absent = [
        *outcome.unused_call_ids,
        f"call-{len(receipts) + len(outcome.unused_call_ids) + 1}",
    ]
    for position, fact in enumerate(facts.receipts):
        actual = receipts[fact.call_id]
        candidates = [
            (
                f"tool {tool} instead of {fact.tool}",
                dataclasses.replace(fact, tool=tool),
            )
            for tool in EFFECT_TOOLS
            if tool != fact.tool
        ]
        flipped = "error" if fact.exit_state == "ok" else "ok"
        candidates.append(
            (f"exit_state {flipped}", dataclasses.replace(fact, exit_state=flipped))
        )
        candidates += [
            (
                f"result_contains {label}",
                dataclasses.replace(fact, result_contains=text),
            )
            for label, text in _text_variants(fact.result_contains)
            if text.strip() and text not in actual.result
        ]
        for label, artifacts in _artifact_variants(fact.changed_artifacts, files):
            candidates.append(
                (
                    f"changed_artifacts {label}",
                    dataclasses.replace(fact, changed_artifacts=artifacts),
                )
            )
        for call_id in absent:
            if call_id not in taken:
                candidates.append(
                    (
                        f"call id {call_id}, which has no receipt",
                        dataclasses.replace(fact, call_id=call_id),
                    )
                )
        for label, changed_fact in candidates:
            changed = facts.replaced("receipts", position, changed_fact)
            wrong.append(WrongFact(f"receipt {fact.call_id}: {label}", changed, index))
        index += 1
    return tuple(wrong)


def _final(facts: CaseFacts, text: str) -> CaseFacts:
    return dataclasses.replace(facts, final_contains=text)


def _artifact_variants(
    artifacts: tuple[str, ...], files: dict[str, str]
) -> Iterator[tuple[str, tuple[str, ...]]]:
    other = next((p for p in (*files, *NEW_PATHS) if p not in artifacts), "zz.txt")
    if artifacts:
        yield "empty", ()
        yield "the path twice", (*artifacts, *artifacts)
        yield f"another path {other!r}", (other,)
        yield f"an extra path {other!r}", (*artifacts, other)
    else:
        yield f"({other!r},) for a command", (other,)


# ---------------------------------------------------------------------------
# Describing a plan in words


def _short(text: str, limit: int = 40) -> str:
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 4] + "...'"


def _describe_effect(step: EditFile | WriteFile | RunCommand) -> str:
    if isinstance(step, EditFile):
        return f"edit_file {step.path}: {_short(step.old)} -> {_short(step.new)}"
    if isinstance(step, WriteFile):
        return f"write_file {step.path}: {_short(step.content)}"
    if step.status == 0:
        return f"run_command printing {step.output!r} (exit 0)"
    return f"run_command failing with {step.output!r} on stderr (exit {step.status})"


def describe_plan(plan: Plan, *, with_final: bool = True) -> str:
    """The plan in words: the workspace, the store, each step and its call id."""
    lines = ["workspace:"]
    lines += [f"  {seed.path} = {seed.content!r}" for seed in plan.files]
    lines.append(f"receipts: {plan.store}")
    lines.append("model replies:")
    calls = 0
    for number, step in enumerate(plan.steps, start=1):
        if isinstance(step, (EditFile, WriteFile, RunCommand)):
            calls += 1
            how = "ApprovalDecision(True)" if plan.approve_with_decision else "True"
            text = f"{_describe_effect(step)} [call-{calls}, approved with {how}]"
        elif isinstance(step, Denied):
            calls += 1
            how = (
                "returning False"
                if step.reason is None
                else f"ApprovalDecision(False, {step.reason!r})"
            )
            text = f"{_describe_effect(step.effect)} [call-{calls}, DENIED by {how}]"
        elif isinstance(step, Refused):
            calls += 1
            text = (
                f"edit_file {step.path} refused: {step.why} [call-{calls}, no receipt]"
            )
        elif isinstance(step, ReadFile):
            text = f"read_file {step.path}"
        elif isinstance(step, ListFiles):
            text = f"list_files {step.path}"
        else:
            text = f"invalid reply {step.reply!r}"
        lines.append(f"  {number}. {text}")
    if with_final:
        lines.append(f"  {len(plan.steps) + 1}. final {plan.final!r}")
    else:
        lines.append("  (the step limit ends the run before the final reply)")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Strategies


_CONTENT_CHARACTERS = st.one_of(
    st.sampled_from("ab =1\n"),
    st.sampled_from("\r\t\ufeffé中ж😀@."),
    st.characters(
        codec="utf-8",
        exclude_categories=("Cs",),
        exclude_characters=SENTINEL + _ABSENT,
    ),
)
#: Short file texts, never empty (an edit replaces a non-empty `old`).
contents = st.text(_CONTENT_CHARACTERS, min_size=1, max_size=12)
#: Markers: MARKER then lower-case letters, so upper-casing changes them.
markers = st.text("abcdefgh", min_size=1, max_size=4).map(MARKER.__add__)
reasons = st.tuples(st.sampled_from("nr"), st.text("abcdef ", max_size=8)).map("".join)


@dataclass
class _State:
    """The workspace as a plan being drawn sees it."""

    files: dict[str, str]
    untouched: frozenset[str]
    observed: set[str]
    commands: int = 0

    def usable(self) -> list[str]:
        return [p for p in self.files if p not in self.untouched]

    def editable(self) -> list[str]:
        return [p for p in self.usable() if p in self.observed and self.files[p]]

    def creatable(self) -> list[str]:
        dirs = {p.rsplit("/", 1)[0] for p in self.files if "/" in p}
        return [
            p
            for p in NEW_PATHS
            if p not in self.files and ("/" not in p or p.rsplit("/", 1)[0] in dirs)
        ]

    def dirs(self) -> list[str]:
        found = {"."}
        for path in self.files:
            parts = path.split("/")[:-1]
            found.update("/".join(parts[: n + 1]) for n in range(len(parts)))
        return sorted(found, key=lambda d: (d != ".", d))


def _occurrences(text: str, piece: str) -> int:
    """How often `piece` occurs in `text`, overlaps included."""
    return sum(text.startswith(piece, start) for start in range(len(text)))


def _unique_olds(text: str) -> list[str]:
    """Substrings occurring exactly once in `text` (overlaps counted, so
    every reading of "exactly one occurrence" agrees), whole text first."""
    found = [text]
    for size in range(1, min(len(text), 3) + 1):
        for start in range(len(text) - size + 1):
            piece = text[start : start + size]
            if piece not in found and _occurrences(text, piece) == 1:
                found.append(piece)
    return found


@st.composite
def _edits(draw: st.DrawFn, state: _State) -> EditFile:
    path = draw(st.sampled_from(state.editable()))
    old = draw(st.sampled_from(_unique_olds(state.files[path])))
    return EditFile(path, old, draw(st.text(_CONTENT_CHARACTERS, max_size=6)))


@st.composite
def _writes(draw: st.DrawFn, state: _State) -> WriteFile:
    targets = state.creatable() + [p for p in state.usable() if p in state.observed]
    return WriteFile(draw(st.sampled_from(targets)), draw(contents))


def _commands_drawn() -> st.SearchStrategy[RunCommand]:
    return st.builds(command, markers, st.sampled_from((0, 1, 3)))


def _refusals(state: _State) -> st.SearchStrategy[Refused]:
    options = [
        Refused(p, state.files[p] or "x", "never read")
        for p in state.usable()
        if p not in state.observed
    ]
    options += [
        Refused(p, state.files[p] + _ABSENT, "its old text does not occur")
        for p in state.usable()
        if p in state.observed
    ]
    return st.sampled_from(options)


def _step_kinds(state: _State, max_commands: int) -> list[str]:
    kinds = ["read", "list", "invalid"]
    if state.editable():
        kinds.append("edit")
    kinds += ["write", "refused"]
    if state.commands < max_commands:
        kinds.append("command")
    kinds.append("denied")
    return kinds


def _draw_step(draw: st.DrawFn, kind: str, state: _State, max_commands: int) -> Step:
    if kind == "read":
        return ReadFile(draw(st.sampled_from(state.usable())))
    if kind == "list":
        return ListFiles(draw(st.sampled_from(state.dirs())))
    if kind == "invalid":
        return Invalid(draw(st.sampled_from(INVALID_REPLIES)))
    if kind == "edit":
        return draw(_edits(state))
    if kind == "write":
        return draw(_writes(state))
    if kind == "refused":
        return draw(_refusals(state))
    if kind == "command":
        return draw(_commands_drawn())
    effects = ["write", "command"] + (["edit"] if state.editable() else [])
    effect = _draw_step(draw, draw(st.sampled_from(effects)), state, max_commands)
    assert isinstance(effect, (EditFile, WriteFile, RunCommand))
    return Denied(effect, draw(st.none() | reasons))


def _apply(state: _State, step: Step) -> None:
    if isinstance(step, ReadFile):
        state.observed.add(step.path)
    elif isinstance(step, EditFile):
        state.files[step.path] = state.files[step.path].replace(step.old, step.new, 1)
        state.observed.add(step.path)
    elif isinstance(step, WriteFile):
        state.files[step.path] = step.content
        state.observed.add(step.path)
    elif isinstance(step, RunCommand):
        state.commands += 1


seed_files = st.lists(
    st.sampled_from(SEED_PATHS), min_size=1, max_size=3, unique=True
).flatmap(
    lambda paths: st.tuples(*(st.builds(SeedFile, st.just(p), contents) for p in paths))
)


@st.composite
def plans(
    draw: st.DrawFn,
    *,
    min_steps: int = 0,
    max_steps: int = 6,
    untouched_files: int = 0,
    max_commands: int = 2,
) -> Plan:
    """Valid plans over a small drawn workspace, shrinking to few simple steps.

    `untouched_files` extra seed files are never read, written or edited by
    any step (a listing may still show them). At most `max_commands`
    commands run (each costs an interpreter start-up); denied ones are free.
    """
    files = draw(seed_files)
    if untouched_files:
        spare = [p for p in SEED_PATHS if p not in {f.path for f in files}]
        extra = draw(
            st.lists(
                st.sampled_from(spare),
                min_size=untouched_files,
                max_size=untouched_files,
                unique=True,
            )
        )
        files = files + tuple(SeedFile(p, draw(contents)) for p in extra)
    else:
        extra = []
    state = _State({f.path: f.content for f in files}, frozenset(extra), set())
    steps: list[Step] = []
    for _ in range(draw(st.integers(min_steps, max_steps))):
        kind = draw(st.sampled_from(_step_kinds(state, max_commands)))
        step = _draw_step(draw, kind, state, max_commands)
        _apply(state, step)
        steps.append(step)
    marker = draw(markers)
    template = draw(st.sampled_from(FINAL_TEMPLATES))
    return Plan(
        files=files,
        steps=tuple(steps),
        final=template.format(marker),
        marker=marker,
        store=draw(st.sampled_from(STORE_KINDS)),
        approve_with_decision=draw(st.booleans()),
    )


# ---------------------------------------------------------------------------
# Plans written out: the chapter's scenario, and one that holds every kind
# of step and file shape at once (so no mistake depends on a lucky draw)

_VALIDATION = (
    "from pathlib import Path; "
    "assert Path('app.py').read_text() == 'answer = 2\\n'; "
    "print('validation passed')"
)

#: Day 7's scenario: set answer = 2 in app.py, run the exact validation
#: command, finish; the log sits inside the root as in the chapter.
CHAPTER_PLAN = Plan(
    files=(SeedFile("app.py", "answer = 1\n"),),
    steps=(
        ReadFile("app.py"),
        EditFile("app.py", "1", "2"),
        RunCommand(_VALIDATION, "validation passed", "validation passed\n", 0, False),
    ),
    final="updated app.py and validated the result",
    marker="validated",
    store="log inside the root",
    task=CHAPTER_TASK,
)

#: Two reads with different results: a match must be searched for among
#: all events of a tool, not only the first, the last or a sorted one.
TWO_READS_PLAN = Plan(
    files=(SeedFile("a.txt", "one\n"), SeedFile("b.md", "two\n")),
    steps=(ReadFile("a.txt"), ReadFile("b.md")),
    final="done:@ab.",
    marker="@ab",
)

#: A file whose exact text has a BOM, a CRLF, no final newline and trailing
#: spaces: any decoding or comparison short of exact strict UTF-8 shows.
BYTES_PLAN = Plan(
    files=(SeedFile("a.txt", "\ufeffone\r\ntwo"),),
    steps=(ReadFile("a.txt"), EditFile("a.txt", "two", "three  ")),
    final="done:@b.",
    marker="@b",
)

#: Every kind of effect outcome with an in-memory store: an invalid reply,
#: a denied command (its output only in its arguments), an approved edit, a
#: refused edit, a passing and a failing command, a denied write of a new
#: file; call-1, call-3 and call-6 are used up without a receipt.
EFFECTS_PLAN = Plan(
    files=(SeedFile("a.txt", "one\n"),),
    steps=(
        Invalid(INVALID_REPLIES[0]),
        ReadFile("a.txt"),
        Denied(command("@no"), "not now"),
        EditFile("a.txt", "one", "two"),
        Refused("a.txt", "two\n" + _ABSENT, "its old text does not occur"),
        command("@yes"),
        command("@bad", 3),
        Denied(WriteFile("new.txt", "x\n"), None),
    ),
    final="done:@e.",
    marker="@e",
    store="in-memory store",
    approve_with_decision=True,
)

#: Everything at once over nested and unicode paths, a listing, writes of
#: new files, and the log beside the root.
RICH_PLAN = Plan(
    files=(
        SeedFile("a.txt", "\ufeffalpha\r\nbeta"),
        SeedFile("src/c.py", "x = 1\n"),
        SeedFile("docs/é.txt", "  Ünïcode 中 \n\n"),
    ),
    steps=(
        Invalid(INVALID_REPLIES[0]),
        ReadFile("a.txt"),
        ReadFile("src/c.py"),
        ListFiles("."),
        EditFile("a.txt", "beta", "gamma"),
        command("@first"),
        Denied(command("@denied"), "not now"),
        WriteFile("new.txt", "fresh\r\n"),
        Refused("docs/é.txt", "  Ünïcode 中 \n\n", "never read"),
        EditFile("src/c.py", "1", "2"),
        command("@second", 3),
        Denied(WriteFile("out.md", "never\n"), None),
        Invalid(INVALID_REPLIES[1]),
        ReadFile("docs/é.txt"),
    ),
    final="done:@fin.",
    marker="@fin",
    store="log beside the root",
    approve_with_decision=True,
)

#: Written-out plans, smallest first: run before any drawn plan, so every
#: planted mistake is found under any seed, and the smallest plan that
#: shows a mistake is the one reported.
WRITTEN_PLANS = (CHAPTER_PLAN, TWO_READS_PLAN, BYTES_PLAN, EFFECTS_PLAN, RICH_PLAN)


def with_written_plans(*written: Plan, **others: Any) -> Callable[[Any], Any]:
    """Decorate a `@given(plan=...)` test with `@example(plan=p, **others)`
    for each written plan (default: WRITTEN_PLANS), in order."""
    chosen = written or WRITTEN_PLANS

    def decorate(test: Any) -> Any:
        for plan in reversed(chosen):
            test = example(plan=plan, **others)(test)
        return test

    return decorate


# ---------------------------------------------------------------------------
# Making a plan real for one target


class ScriptedModel:
    """The model: returns the plan's replies in order, counting its calls."""

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = tuple(replies)
        self.calls = 0

    def __call__(self, messages: object) -> str:
        if self.calls >= len(self.replies):
            raise AssertionError(
                f"the model was asked for reply {self.calls + 1},"
                f" but the plan has {len(self.replies)}"
            )
        self.calls += 1
        return self.replies[self.calls - 1]


class Approver:
    """The approval callback: answers the plan's decisions in order and
    records every action it is shown, as (tool, arguments)."""

    def __init__(self, decisions: Sequence[object]) -> None:
        self.decisions = tuple(decisions)
        self.seen: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, action: Any) -> object:
        self.seen.append((action.tool, dict(action.arguments)))
        if len(self.seen) > len(self.decisions):
            return False  # an action the plan never asked to approve
        return self.decisions[len(self.seen) - 1]


@dataclass
class RealRun:
    """A plan made real: the run and everything it touched."""

    plan: Plan
    outcome: Outcome
    top: Path  # the temporary directory holding root and log
    root: Path
    log: Path | None
    run: Any
    workspace: Any
    store: Any
    approver: Approver
    model: ScriptedModel
    complete: bool

    def describe(self) -> str:
        return describe_plan(self.plan, with_final=self.complete)

    # The names strategies.snapshot reads (`object_state`, `spy_on`).
    @property
    def receipts(self) -> Any:
        return self.store

    @property
    def approvals(self) -> list[tuple[str, dict[str, Any]]]:
        return self.approver.seen


def _decisions(target: Any, plan: Plan) -> list[object]:
    decisions: list[object] = []
    for step in plan.steps:
        if isinstance(step, Denied):
            if step.reason is None:
                decisions.append(False)
            else:
                decisions.append(
                    call_target(
                        "ApprovalDecision(False, reason)",
                        target.ApprovalDecision,
                        False,
                        step.reason,
                    )
                )
        elif isinstance(step, (EditFile, WriteFile, RunCommand)):
            if plan.approve_with_decision:
                decisions.append(
                    call_target("ApprovalDecision(True)", target.ApprovalDecision, True)
                )
            else:
                decisions.append(True)
    return decisions


def materialise_run(
    target: Any, plan: Plan, directory: Path, *, stop_before_final: bool = False
) -> RealRun:
    """Play `plan` with the target's own `run_agent` inside `directory`.

    `stop_before_final` sets the step limit so the run ends (reason
    `step_limit`) before the model is asked for the final reply. Fails with
    a lesson when the target's Days 1-3 substrate does not produce the run
    the plan implies: then no Day 7 fact can be judged from it.
    """
    __tracebackhide__ = True
    directory = Path(directory)
    if plan.store == "log inside the root":
        root, log = directory, directory / LOG_NAME
    else:
        root = directory / "root"
        root.mkdir()
        log = directory / LOG_NAME if plan.store == "log beside the root" else None
    for seed in plan.files:
        path = root / seed.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(seed.content.encode("utf-8"))

    outcome = replay(plan)
    script = replies(plan, with_final=not stop_before_final)
    invalid = sum(isinstance(step, Invalid) for step in plan.steps)
    policy = call_target(
        "ToolPolicy(root, allow_writes=True, allowed_commands=...)",
        target.ToolPolicy,
        root,
        allow_writes=True,
        allowed_commands=_commands(plan),
    )
    store = call_target(
        "ReceiptStore(log)" if log else "ReceiptStore()",
        target.ReceiptStore,
        *([log] if log else []),
    )
    approver = Approver(_decisions(target, plan))
    workspace = call_target(
        "Workspace(policy, approve, store)", target.Workspace, policy, approver, store
    )
    limits = call_target(
        "AgentLimits(...)",
        target.AgentLimits,
        max_steps=len(script),
        max_context_chars=1_000_000,
        max_invalid_actions=invalid + 1,
        max_identical_actions=len(script) + 1,
    )
    model = ScriptedModel(script)
    run = call_target(
        "run_agent(task, model, workspace, limits)",
        target.run_agent,
        plan.task,
        model,
        workspace,
        limits,
    )
    real = RealRun(
        plan,
        outcome,
        directory,
        root,
        log,
        run,
        workspace,
        store,
        approver,
        model,
        not stop_before_final,
    )
    _check_follows_plan(real)
    return real


def _check_follows_plan(real: RealRun) -> None:
    """Fail, as a lesson about the substrate, if the run is not the plan's."""
    __tracebackhide__ = True
    run, outcome = real.run, real.outcome
    planned = outcome.events if real.complete else outcome.events[:-1]
    problems: list[str] = []
    events = tuple(getattr(run, "events", ()) or ())
    if real.complete and (run.completed is not True or run.final != real.plan.final):
        problems.append(
            f"completed={run.completed!r}, reason={run.reason!r}, final={run.final!r}"
        )
    if not real.complete and (run.completed is not False or run.reason != "step_limit"):
        problems.append(f"completed={run.completed!r}, reason={run.reason!r}")
    if len(events) != len(planned):
        problems.append(f"{len(events)} events instead of {len(planned)}")
    else:
        for number, (event, plan_event) in enumerate(
            zip(events, planned, strict=True), start=1
        ):
            action = getattr(event, "action", None)
            tool = getattr(action, "tool", None)
            result = getattr(event, "result", None)
            if plan_event.known and plan_event.tool is not None:
                ok = tool == plan_event.tool and result == plan_event.result
            elif plan_event.tool is None and number == len(planned) and real.complete:
                ok = result is None and tool is None
            elif plan_event.tool is None:
                ok = action is None and isinstance(result, str)
            else:
                ok = tool == plan_event.tool and isinstance(result, str)
                ok = ok and SENTINEL not in result and MARKER not in result
                if plan_event.tool != "list_files":
                    ok = ok and result.startswith("error:")
            if not ok:
                problems.append(
                    f"event {number}: tool {tool!r} result {result!r}"
                    f" instead of tool {plan_event.tool!r}"
                    + (f" result {plan_event.result!r}" if plan_event.known else "")
                )
    if [tool for tool, _ in real.approver.seen] != list(outcome.approvals):
        problems.append(
            f"the approval callback saw {[t for t, _ in real.approver.seen]}"
            f" instead of {list(outcome.approvals)}"
        )
    if problems:
        fail(
            world=real.describe(),
            expected="the run the plan implies (Days 1-3 behaviour)",
            observed="; ".join(problems[:3]),
            hint="Day 7 judges runs made by the Day 1-3 loop and workspace;"
            " finish run_agent, Workspace and ReceiptStore first",
        )


def describe_world(real: RealRun, facts: CaseFacts) -> str:
    """The plan and the case, in words, for a lesson's world."""
    case = describe_facts(facts).replace("\n", "\n  ")
    return f"{real.describe()}\ncase:\n  {case}"


def judge(target: Any, real: RealRun, facts: CaseFacts, *, run: Any = None) -> Any:
    """The target's report on `real` (or on `run`, a variant of its run)
    against the case `facts`."""
    __tracebackhide__ = True
    return call_target(
        "evaluate_run(run, workspace, receipts, case)",
        target.evaluate_run,
        real.run if run is None else run,
        real.workspace,
        real.store,
        to_case(target, facts),
    )


def verdicts(rows: Sequence[tuple[str, bool, str]]) -> str:
    """A report's rows in words, one check a line."""
    return "\n".join(
        f"{name}: {'PASS' if passed else 'FAIL'} ({detail})"
        for name, passed, detail in rows
    )


def assert_verdicts(
    rows: Sequence[tuple[str, bool, str]],
    expected: Sequence[bool],
    facts: CaseFacts,
    *,
    world: str,
    hint: str,
    what: str = "",
) -> None:
    """Assert check number i passed exactly when `expected[i]` (names are
    the report invariants' business; here they only label the lesson)."""
    __tracebackhide__ = True
    names = facts.check_names()
    want = [
        f"{name}: {'PASS' if passed else 'FAIL'}"
        for name, passed in zip(names, expected, strict=True)
    ]
    if len(rows) != len(expected):
        fail(
            world=world,
            expected=f"{len(expected)} checks:\n" + "\n".join(want),
            observed=f"{len(rows)} checks:\n{verdicts(rows)}",
            hint="one check for the final, then one per file, result and receipt"
            " expectation of the case",
        )
    wrong = [
        index
        for index, (row, passed) in enumerate(zip(rows, expected, strict=True))
        if row[1] != passed
    ]
    if wrong:
        rest = len(rows) - len(wrong)
        fail(
            world=world,
            expected="\n".join(
                ([f"{what.strip()}:"] if what else [])
                + [f"{want[i]} (check {i + 1})" for i in wrong]
                + [f"(the {rest} other checks as observed)"]
            ),
            observed="\n".join(
                f"{rows[i][0]}: {'PASS' if rows[i][1] else 'FAIL'} ({rows[i][2]})"
                f" (check {i + 1})"
                for i in wrong
            ),
            hint=hint,
        )


def run_view(run: Any, **changes: Any) -> Any:
    """`dataclasses.replace(run, **changes)`, failing as a lesson if the
    target's AgentRun is not a dataclass."""
    __tracebackhide__ = True
    return call_target(
        f"dataclasses.replace(run, {', '.join(changes)}=...)",
        dataclasses.replace,
        run,
        **changes,
    )
