"""Real runs: plans the target's own `run_agent` plays, and the worlds they leave.

A plan is neutral data: a small workspace (one to three short text files) and
the replies a scripted model will give, in order: reads, listings, edits,
writes, allowed commands run with the current interpreter, effects the
approval callback denies, effects the workspace refuses before asking, and
invalid replies. The final reply is the world's final fact.

A plan knows its own outcome (`replay`, strategies/outcome.py): the events
the loop must record, the final text of every file, the receipts the store
must hold, the call ids denied or refused effects used up. `played_world`
turns that outcome into an ordinary `World` whose plan is set: its facts are
true by construction, and `wrong_facts` changes one expectation at a time
into one the plan knows to be false. The oracle is the plan, never a second
evaluator.

Call ids follow the Day 3 workspace: every effect the model asks for (write,
edit or command) takes the next id, `call-1`, `call-2`, ..., before it is
prepared and approved, so a denied or refused effect uses one up and leaves
no receipt.

A plan relies only on what every course day from Day 7 on shares: the
callback approves with plain True and denies with False (no `ApprovalDecision`,
which Day 8 adds), it is never None, and the store starts empty, so no call
id depends on whether new ids skip those of a loaded log (Day 8 again).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import example
from hypothesis import strategies as st

from strategies.edits import CASE_EDITS, edit_words
from strategies.files import FileFact
from strategies.finals import ASKS, LOOKALIKES, FinalFact, final_text
from strategies.logs import LogFact
from strategies.outcome import Outcome, replay
from strategies.plan_steps import (
    Denied,
    EditFile,
    Invalid,
    ListFiles,
    Plan,
    ReadFile,
    Refused,
    RunCommand,
    SeedFile,
    Step,
    WriteFile,
    command,
    describe_plan,
    replies,
)
from strategies.receipts import ReceiptFact, receipt_changes
from strategies.results import ResultFact
from strategies.vocabulary import TOOLS
from strategies.world import World, check_positions

__all__ = [
    "ALTERNATE_FINAL",
    "CHAPTER_TASK",
    "CHAPTER_WORLD",
    "WRITTEN_WORLDS",
    "Denied",
    "EditFile",
    "Invalid",
    "ListFiles",
    "Plan",
    "ReadFile",
    "Refused",
    "RunCommand",
    "SeedFile",
    "WriteFile",
    "command",
    "describe_plan",
    "played_world",
    "played_worlds",
    "plans",
    "replies",
    "wrong_facts",
    "with_written_worlds",
]

#: Never drawn into any file, path, marker or reply: a substring
#: holding it occurs in no result of any run.
SENTINEL = "|"
#: Starts every drawn marker (command output, final). No listing or error
#: text holds it (file texts may: their read results are known exactly).
MARKER = "@"
#: Appended to a file's text to make an edit's `old` text that cannot occur.
_ABSENT = "#"

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

#: How the final answer may be reworded around the same marker.
ALTERNATE_FINAL = "In other words, {} holds for the recorded evidence"

CHAPTER_TASK = "set answer = 2 in app.py and validate"


def played_world(plan: Plan, final: FinalFact, log: LogFact) -> World:
    """The world a plan leaves: every fact of it true after a complete run."""
    outcome = replay(plan)
    return World(
        final=final,
        files=tuple(
            FileFact(index, tuple(path.split("/")), "exact", text)
            for index, (path, text) in enumerate(outcome.files)
        ),
        results=tuple(
            ResultFact(tool, marker=text, played="observed")
            for tool, text in outcome.results
        ),
        receipts=tuple(
            ReceiptFact(
                r.call_id,
                r.tool,
                r.exit_state,
                r.changed_artifacts,
                r.contains[0],
                "played",
                r.result,
            )
            for r in outcome.receipts
        ),
        log=log,
        plan=plan,
    )


# --- wrong facts: one expectation made false, by the plan's own knowledge ----------


@dataclass(frozen=True)
class WrongFact:
    """`world` with one expectation made false; `index` is its check."""

    label: str
    world: World
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


def _text_variants(text: str) -> Iterator[tuple[str, str]]:
    yield "a stray character appended", text + SENTINEL
    if text.swapcase() != text:
        yield "in the other letter case", text.swapcase()
    yield "padded with spaces", f" {text} "


def _swap(items: tuple[Any, ...], index: int, item: Any) -> tuple[Any, ...]:
    return (*items[:index], item, *items[index + 1 :])


def wrong_facts(world: World) -> tuple[WrongFact, ...]:
    """Every single-expectation change of a played world that must fail.

    Each keeps the case valid (unique paths and call ids) and is false by the
    plan's own knowledge; undecidable changes are left out.
    """
    outcome = world.blueprint.outcome  # what the world worked out of its plan
    assert outcome is not None
    at = check_positions(world)
    wrong: list[WrongFact] = []
    final_words, _ = final_text(world.final)
    for asked in ASKS:
        if LOOKALIKES[asked][0](world.final.marker) is None:
            continue
        changed = replace(world.final, asked=asked)
        _, contains = final_text(changed)
        if isinstance(final_words, str) and contains not in final_words:
            label = f"final_contains {contains!r}"
            wrong.append(WrongFact(label, replace(world, final=changed), 0))

    for i, fact in enumerate(world.files):
        for edit in CASE_EDITS:
            changed_file = replace(fact, edit=edit)
            wrong.append(
                WrongFact(
                    f"file {fact.path}: {edit_words(changed_file.text, edit)}",
                    replace(world, files=_swap(world.files, i, changed_file)),
                    at["file", i][0],
                )
            )
        for path in outcome.never_created:
            missing = replace(fact, parts=tuple(path.split("/")), kind="missing")
            wrong.append(
                WrongFact(
                    f"file {path} (only a denied write named it)",
                    replace(world, files=_swap(world.files, i, missing)),
                    at["file", i][0],
                )
            )
            break

    for i, fact in enumerate(world.results):
        candidates = [
            (f"{fact.tool} result {label}", fact.tool, text)
            for label, text in _text_variants(fact.marker)
            if text.strip()
        ]
        candidates += [
            (
                f"{fact.marker!r} expected of {tool} instead of {fact.tool}",
                tool,
                fact.marker,
            )
            for tool in TOOLS
            if tool != fact.tool
        ]
        candidates += [
            (
                f"the output {output!r} of a command that never ran",
                "run_command",
                output,
            )
            for output in outcome.outputs
        ]
        for label, tool, text in candidates:
            if _result_holds(outcome, tool, text) is False:
                changed_result = ResultFact(
                    tool, marker=text, note=label, played="unobserved"
                )
                wrong.append(
                    WrongFact(
                        label,
                        replace(world, results=_swap(world.results, i, changed_result)),
                        at["result", i][0],
                    )
                )

    taken = {fact.call_id for fact in world.receipts}
    absent = [
        *outcome.unused_call_ids,
        f"call-{len(outcome.receipts) + len(outcome.unused_call_ids) + 1}",
    ]
    for i, fact in enumerate(world.receipts):
        options = [
            (words, changed)
            for words, side, changed in receipt_changes(fact)
            if side == "case"
        ]
        options += [
            (
                f"call id {call_id}, which has no receipt",
                replace(fact, call_id=call_id, stored="absent"),
            )
            for call_id in absent
            if call_id not in taken
        ]
        for label, changed_receipt in options:
            wrong.append(
                WrongFact(
                    f"receipt {fact.call_id}: {label}",
                    replace(world, receipts=_swap(world.receipts, i, changed_receipt)),
                    at["receipt", i][0],
                )
            )
    return tuple(wrong)


# --- strategies ------------------------------------------------------------------

_CONTENT_CHARACTERS = st.one_of(
    st.sampled_from("ab =1\n"),
    st.sampled_from("\r\t\ufeffé中ж😀@."),
    # Every character UTF-8 can encode: all but the surrogates (Cs). Said by
    # category rather than codec="utf-8", the same set, because Hypothesis
    # makes a codec's table by encoding every code point, a second of CPU in
    # each fresh process.
    st.characters(
        exclude_categories=("Cs",),
        exclude_characters=SENTINEL + _ABSENT,
    ),
)
#: Short file texts, never empty (an edit replaces a non-empty `old`).
contents = st.text(_CONTENT_CHARACTERS, min_size=1, max_size=12)
#: Markers: MARKER then lower-case letters, so a change of case changes them.
markers = st.text("abcdefgh", min_size=1, max_size=4).map(MARKER.__add__)


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
        return draw(st.builds(command, markers, st.sampled_from((0, 1, 3))))
    effects = ["write", "command"] + (["edit"] if state.editable() else [])
    effect = _draw_step(draw, draw(st.sampled_from(effects)), state, max_commands)
    assert isinstance(effect, (EditFile, WriteFile, RunCommand))
    return Denied(effect)


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
    extra: list[str] = []
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
    state = _State({f.path: f.content for f in files}, frozenset(extra), set())
    steps: list[Step] = []
    for _ in range(draw(st.integers(min_steps, max_steps))):
        kind = draw(st.sampled_from(_step_kinds(state, max_commands)))
        step = _draw_step(draw, kind, state, max_commands)
        _apply(state, step)
        steps.append(step)
    return Plan(files=files, steps=tuple(steps))


#: Where a real run's receipts go, simplest first: a log beside the root, a
#: log inside the root (as in the chapter's scenario), an in-memory store.
PLAYED_LOGS = (
    LogFact("path", "beside"),
    LogFact("path", "inside"),
    LogFact("memory"),
)


# How a played run's final answer words its marker: among words, alone, or
# with a space before and a newline after (kept as they are).
_PLAYED_FINALS: tuple[tuple[Any, ...], ...] = (
    ("done:", ".", {}),
    ("Result ", " (checked)", {}),
    ("", "", {}),
    ("", "", {"head": " ", "tail": "\n"}),
)


def played_worlds(
    *, stopped: bool = False, **narrowing: Any
) -> st.SearchStrategy[World]:
    """Worlds of real runs: a drawn plan, its final answer and its store.

    `stopped` ends the run by its step limit before the final reply.
    """
    if stopped:
        finals = st.builds(stopped_final, markers)
    else:
        finals = st.builds(
            lambda mark, around: FinalFact(around[:2], marker=mark, **around[2]),
            markers,
            st.sampled_from(_PLAYED_FINALS),
        )
    return st.builds(
        played_world, plans(**narrowing), finals, st.sampled_from(PLAYED_LOGS)
    )


# --- worlds written out: the chapter's scenario, and one holding every kind of step


_VALIDATION = (
    "from pathlib import Path; "
    "assert Path('app.py').read_text() == 'answer = 2\\n'; "
    "print('validation passed')"
)

#: Day 7's scenario: set answer = 2 in app.py, run the exact validation
#: command, finish; the log sits inside the root as in the chapter.
CHAPTER_WORLD = played_world(
    Plan(
        files=(SeedFile("app.py", "answer = 1\n"),),
        steps=(
            ReadFile("app.py"),
            EditFile("app.py", "1", "2"),
            RunCommand(
                _VALIDATION, "validation passed", "validation passed\n", 0, False
            ),
        ),
        task=CHAPTER_TASK,
    ),
    FinalFact(("updated app.py and ", " the result"), marker="validated"),
    LogFact("path", "inside"),
)

#: Two reads with different results: a match must be searched for among all
#: events of a tool, not only the first, the last or a sorted one.
TWO_READS_WORLD = played_world(
    Plan(
        files=(SeedFile("a.txt", "one\n"), SeedFile("b.md", "two\n")),
        steps=(ReadFile("a.txt"), ReadFile("b.md")),
    ),
    FinalFact(marker="@ab"),
    LogFact("path", "beside"),
)

#: A file whose exact text has a BOM, a CRLF, no final newline and trailing
#: spaces: any decoding or comparison short of exact strict UTF-8 shows.
BYTES_WORLD = played_world(
    Plan(
        files=(SeedFile("a.txt", "\ufeffone\r\ntwo"),),
        steps=(ReadFile("a.txt"), EditFile("a.txt", "two", "three  ")),
    ),
    FinalFact(marker="@b"),
    LogFact("path", "beside"),
)

#: Every kind of effect outcome with an in-memory store: an invalid reply, a
#: denied command (its output only in its arguments), an approved edit, a
#: refused edit, a passing and a failing command, a denied write of a new
#: file; call-1, call-3 and call-6 are used up without a receipt.
EFFECTS_WORLD = played_world(
    Plan(
        files=(SeedFile("a.txt", "one\n"),),
        steps=(
            Invalid(INVALID_REPLIES[0]),
            ReadFile("a.txt"),
            Denied(command("@no")),
            EditFile("a.txt", "one", "two"),
            Refused("a.txt", "two\n" + _ABSENT, "its old text does not occur"),
            command("@yes"),
            command("@bad", 3),
            Denied(WriteFile("new.txt", "x\n")),
        ),
    ),
    FinalFact(marker="@e"),
    LogFact("memory"),
)

#: Everything at once over nested and unicode paths, a listing, writes of new
#: files, and the log beside the root.
RICH_WORLD = played_world(
    Plan(
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
            Denied(command("@denied")),
            WriteFile("new.txt", "fresh\r\n"),
            Refused("docs/é.txt", "  Ünïcode 中 \n\n", "never read"),
            EditFile("src/c.py", "1", "2"),
            command("@second", 3),
            Denied(WriteFile("out.md", "never\n")),
            Invalid(INVALID_REPLIES[1]),
            ReadFile("docs/é.txt"),
        ),
    ),
    FinalFact(marker="@fin"),
    LogFact("path", "beside"),
)

#: Written-out worlds, smallest first: run before any drawn one, so every
#: planted mistake is found under any seed, and the smallest world that shows
#: a mistake is the one reported.
WRITTEN_WORLDS = (
    CHAPTER_WORLD,
    TWO_READS_WORLD,
    BYTES_WORLD,
    EFFECTS_WORLD,
    RICH_WORLD,
)


def stopped(world: World) -> World:
    """`world` played with the step limit ending it before the final reply."""
    return replace(world, final=stopped_final(world.final.marker))


def stopped_final(mark: str) -> FinalFact:
    """A run its step limit ended before the final reply: no final answer."""
    return FinalFact(
        marker=mark, completed=False, reason="step_limit", value="none", closing="none"
    )


def with_written_worlds(
    *written: World, argument: str = "world", **others: Any
) -> Callable[[Any], Any]:
    """Decorate a `@given(world=...)` test with `@example(world=w, **others)`
    for each written world (default: WRITTEN_WORLDS), in order."""
    chosen: Sequence[World] = written or WRITTEN_WORLDS

    def decorate(test: Any) -> Any:
        for world in reversed(chosen):
            test = example(**{argument: world}, **others)(test)
        return test

    return decorate
