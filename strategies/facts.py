"""The facts of a Day 7 world, independent of any implementation, and their truth.

A world is plain frozen data: which final the run ended with, what sits at each
expected file path, which events the run holds, which receipts the log keeps
and how the log is damaged. Every fact carries a `kind`, and the kind alone
decides whether its check must pass and with which detail. That is the
suite's oracle: the generator knows what it built, so no second evaluator is
needed.

Accidental matches are impossible by construction:

- every substring the case looks for is a *marker* such as ``[B]``, made of
  ``[``, ``]`` and upper-case letters, unique per fact; filler text never
  holds ``[`` or ``]``, so a marker occurs only where its own fact put it;
- every file path carries its fact's index in its last component and
  directories never hold a digit, so no two facts share a path or nest;
- files the builder needs for its own sake (symlink targets) live under names
  starting ``_``, a character no drawn name contains.

The words for each kind (how it reads in a lesson, the usual mistake behind a
wrong verdict) live in `strategies.hints`.

Nothing here imports Hypothesis or the target: `strategies.worlds` draws
these facts, `strategies.build` makes them real for one target.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from strategies import hints

__all__ = [
    "BOM",
    "FILE_KINDS",
    "FILE_MISMATCH_KINDS",
    "FILE_PASS_KINDS",
    "FILE_UNAVAILABLE_KINDS",
    "FINAL_FAIL_KINDS",
    "FINAL_KINDS",
    "FINAL_PASS_KINDS",
    "HARDENED_FILE_KINDS",
    "INCOMPLETE_REASONS",
    "LOG_TAMPER_KINDS",
    "RECEIPT_FAIL_KINDS",
    "RECEIPT_KINDS",
    "RECEIPT_PASS_KINDS",
    "RESULT_FAIL_KINDS",
    "RESULT_KINDS",
    "RESULT_PASS_KINDS",
    "SPELLINGS",
    "TOOLS",
    "CaseSpec",
    "EventSpec",
    "ExpectedCheck",
    "FileFact",
    "FinalFact",
    "LogFact",
    "ReceiptFact",
    "ResultFact",
    "World",
    "case_spec",
    "describe",
    "extra_receipts",
    "LINE_TAMPER_KINDS",
    "file_layout",
    "final_text",
    "log_unavailable",
    "lookup_fails",
    "noise_event",
    "receipt_arguments",
    "receipt_expectation",
    "receipt_result",
    "spelled",
    "stored_as",
    "stored_artifacts",
    "truth",
    "world_events",
]

BOM = "\ufeff"

#: The five tools of the Week 4 workspace, simplest first.
TOOLS = ("read_file", "run_command", "edit_file", "write_file", "list_files")

#: Every reason a run stops without completing.
INCOMPLETE_REASONS = (
    "step_limit",
    "context_limit",
    "invalid_action_limit",
    "repeated_action_limit",
)

# --- the final answer ------------------------------------------------------------

#: Kinds of final fact, simplest first. The passing ones come first.
FINAL_PASS_KINDS = ("embedded", "exact", "padded_edges")
FINAL_FAIL_KINDS = (
    "absent",
    "case_changed",
    "padded_absent",
    "incomplete",
    "incomplete_without_final",
)
FINAL_KINDS = FINAL_PASS_KINDS + FINAL_FAIL_KINDS


@dataclass(frozen=True)
class FinalFact:
    """How the run ended and what `final_contains` asks of it."""

    kind: str = "embedded"
    marker: str = "[A]"
    words: str = "done"
    reason: str = "step_limit"  # used by the incomplete kinds only

    @property
    def passes(self) -> bool:
        return self.kind in FINAL_PASS_KINDS

    @property
    def completed(self) -> bool:
        return not self.kind.startswith("incomplete")

    @property
    def run_reason(self) -> str:
        return "completed" if self.completed else self.reason


def final_text(fact: FinalFact) -> tuple[str | None, str]:
    """The run's final answer and the case's `final_contains`, in that order."""
    around = f"{fact.words}:{fact.marker}.{fact.words}"
    if fact.kind == "exact":
        return fact.marker, fact.marker
    if fact.kind == "padded_edges":
        padded = f" {fact.marker}\n"
        return padded, padded
    if fact.kind == "absent":
        return f"{fact.words}:.{fact.words}", fact.marker
    if fact.kind == "case_changed":
        return f"{fact.words}:{fact.marker.lower()}.{fact.words}", fact.marker
    if fact.kind == "padded_absent":
        return around, f" {fact.marker} "
    if fact.kind == "incomplete_without_final":
        return None, fact.marker
    return around, fact.marker  # embedded, incomplete


# --- files -------------------------------------------------------------------------

#: Kinds of file fact. Each says what sits at the expected path, relative to
#: the expected content. Simplest first within each group.
FILE_PASS_KINDS = (
    "exact",
    "exact_empty",
    "exact_crlf",
    "exact_cr",
    "exact_mixed",
    "exact_bom",
    "exact_no_final_newline",
    "exact_padded",
    "exact_large",
)
FILE_MISMATCH_KINDS = (
    "wrong_byte",
    "crlf_twin",
    "cr_twin",
    "lf_twin",
    "bom_added",
    "bom_removed",
    "newline_added",
    "newline_removed",
    "padded",
    "longer",
    "shorter",
    "embedded",
    "emptied",
    "filled",
    "large_tail",
)
FILE_UNAVAILABLE_KINDS = (
    "missing",
    "directory",
    "symlink_inside",
    "symlink_outside",
    "symlinked_parent",
    "protected",
    "invalid_utf8",
    "invalid_utf8_replaced",
    "invalid_utf8_truncated",
)
#: Only at the hardened level: the course's reference blocks for ever on it.
HARDENED_FILE_KINDS = ("fifo",)
FILE_KINDS = FILE_PASS_KINDS + FILE_MISMATCH_KINDS + FILE_UNAVAILABLE_KINDS

#: How a case may spell a path; all of them normalise to the same path.
SPELLINGS = ("plain", "dot_slash", "double_slash", "trailing_slash", "dot_inside")

# A large file is at least this big: over the workspace's default 64 KiB read
# limit, so reading evidence through workspace.read_file refuses it.
_LARGE_BYTES = 96 * 1024


@dataclass(frozen=True)
class FileFact:
    """What sits at one expected path, relative to the content expected there.

    `parts` is the normalised path, as it exists on disk; `spelling` is how
    the case writes it; `text` is the base text the kind derives the
    expected content and the bytes on disk from.
    """

    index: int
    parts: tuple[str, ...]
    kind: str = "exact"
    text: str = ""
    spelling: str = "plain"

    @property
    def path(self) -> str:
        return "/".join(self.parts)

    @property
    def passes(self) -> bool:
        return self.kind in FILE_PASS_KINDS

    @property
    def unavailable(self) -> bool:
        return self.kind in FILE_UNAVAILABLE_KINDS or self.kind in HARDENED_FILE_KINDS


def spelled(parts: tuple[str, ...], spelling: str) -> str:
    """`parts` written as a case might write them; normalises back to parts."""
    path = "/".join(parts)
    if spelling == "dot_slash":
        return f"./{path}"
    if spelling == "double_slash":
        return "//".join(parts) if len(parts) > 1 else f".//{path}"
    if spelling == "trailing_slash":
        return f"{path}/"
    if spelling == "dot_inside":
        return "/./".join(parts) if len(parts) > 1 else f"./{path}"
    return path


def _with_newline(text: str) -> str:
    return text if "\n" in text else text + "\n"


def _with_final_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _nonempty(text: str) -> str:
    return text or "a"


def _other_char(char: str) -> str:
    return "x" if char != "x" else "y"


def _large(text: str) -> str:
    line = text.replace("\n", " ") + " filler line 0123456789\n"
    return line * (_LARGE_BYTES // len(line.encode()) + 1)


def _middle(text: str) -> int:
    return len(text) // 2


def file_layout(fact: FileFact) -> tuple[str, bytes]:
    """The expected content and the bytes the kind puts in the evidence file.

    For a regular file at the path the bytes are its content; for a symlink,
    a symlinked parent or a protected name they are the content of the file
    finally reached; for a missing path, a directory or a FIFO they are
    unused. Pure: the same fact always gives the same pair.
    """
    text, kind = fact.text, fact.kind
    if kind == "exact_empty":
        return "", b""
    if kind == "exact_crlf":
        content = _with_newline(text).replace("\n", "\r\n")
        return content, content.encode()
    if kind == "exact_cr":
        content = _with_newline(text).replace("\n", "\r")
        return content, content.encode()
    if kind == "exact_mixed":
        content = _with_newline(text).replace("\n", "\r\n", 1) + "z\rw\n"
        return content, content.encode()
    if kind == "exact_bom":
        content = BOM + text
        return content, content.encode()
    if kind == "exact_no_final_newline":
        content = _nonempty(text.rstrip("\n"))
        return content, content.encode()
    if kind == "exact_padded":
        content = f"  {text} \n\n"
        return content, content.encode()
    if kind == "exact_large":
        content = _large(text)
        return content, content.encode()
    if kind == "wrong_byte":
        content = _nonempty(text)
        i = _middle(content)
        disk = content[:i] + _other_char(content[i]) + content[i + 1 :]
        return content, disk.encode()
    if kind == "crlf_twin":
        content = _with_newline(text)
        return content, content.replace("\n", "\r\n").encode()
    if kind == "cr_twin":
        content = _with_newline(text)
        return content, content.replace("\n", "\r").encode()
    if kind == "lf_twin":
        base = _with_newline(text)
        return base.replace("\n", "\r\n"), base.encode()
    if kind == "bom_added":
        return text, (BOM + text).encode()
    if kind == "bom_removed":
        return BOM + text, text.encode()
    if kind == "newline_added":
        return text, (text + "\n").encode()
    if kind == "newline_removed":
        content = _with_final_newline(text)
        return content, content[:-1].encode()
    if kind == "padded":
        content = _nonempty(text)
        return content, f" {content} \n".encode()
    if kind == "longer":
        return text, (text + "x").encode()
    if kind == "shorter":
        content = _nonempty(text)
        return content, content[:-1].encode()
    if kind == "embedded":
        content = _nonempty(text)
        return content, f"x{content}y".encode()
    if kind == "emptied":
        return _nonempty(text), b""
    if kind == "filled":
        return "", _nonempty(text).encode()
    if kind == "large_tail":
        content = _large(text)
        disk = content[:-2] + _other_char(content[-2]) + "\n"
        return content, disk.encode()
    if kind == "invalid_utf8":
        i = _middle(text)
        return text, text[:i].encode() + b"\xff" + text[i:].encode()
    if kind == "invalid_utf8_replaced":
        i = _middle(text)
        content = text[:i] + "\ufffd" + text[i:]
        return content, text[:i].encode() + b"\xff" + text[i:].encode()
    if kind == "invalid_utf8_truncated":
        return text + "é", text.encode() + "é".encode()[:1]
    # exact, and every kind whose path holds no regular file with other bytes
    return text, text.encode()


# --- results -----------------------------------------------------------------------

RESULT_PASS_KINDS = ("embedded", "exact", "after_decoy", "before_decoy")
RESULT_FAIL_KINDS = (
    "absent",
    "other_tool",
    "tool_case_changed",
    "tool_prefix",
    "tool_extended",
    "response_only",
    "arguments_only",
    "invalid_event",
    "case_changed",
    "split",
)
RESULT_KINDS = RESULT_PASS_KINDS + RESULT_FAIL_KINDS


@dataclass(frozen=True)
class ResultFact:
    """Which events the run holds for one result expectation (tool, marker)."""

    tool: str = "read_file"
    kind: str = "embedded"
    marker: str = "[B]"
    other_tool: str = "run_command"
    repeat: bool = False  # the case lists the expectation twice

    @property
    def passes(self) -> bool:
        return self.kind in RESULT_PASS_KINDS


@dataclass(frozen=True)
class EventSpec:
    """One event, neutrally: `action` is "tool", "final" or "invalid"."""

    step: int
    response: str
    action: str
    tool: str | None = None
    arguments_json: str = "{}"
    final: str | None = None
    result: str | None = None


def _arguments(tool: str, value: str) -> dict[str, object]:
    if tool == "run_command":
        return {"argv": ["python", "-c", value]}
    if tool == "write_file":
        return {"path": "notes.txt", "content": value}
    if tool == "edit_file":
        return {"path": "notes.txt", "old": value, "new": "n"}
    if tool == "list_files":
        return {"path": value}
    return {"path": value}


def _tool_event(
    tool: str, result: str, *, argument: str = "a.txt", response: str = ""
) -> EventSpec:
    arguments = _arguments(tool, argument)
    reply = response or json.dumps({"tool": tool, **arguments}, sort_keys=True)
    return EventSpec(
        step=0,
        response=reply,
        action="tool",
        tool=tool,
        arguments_json=json.dumps(arguments, sort_keys=True),
        result=result,
    )


def _result_events(fact: ResultFact) -> list[EventSpec]:
    tool, marker, kind = fact.tool, fact.marker, fact.kind
    holding = f"ok {marker} done"
    plain = "ok done"
    if kind == "exact":
        return [_tool_event(tool, marker)]
    if kind == "after_decoy":
        return [_tool_event(tool, plain), _tool_event(tool, holding)]
    if kind == "before_decoy":
        return [_tool_event(tool, holding), _tool_event(tool, plain)]
    if kind == "absent":
        return [_tool_event(tool, plain)]
    if kind == "other_tool":
        return [_tool_event(fact.other_tool, holding)]
    if kind == "tool_case_changed":
        return [_tool_event(tool.upper(), holding)]
    # A tool name that holds, or is held by, the expected one: only an exact
    # comparison tells them apart (`in` passes one or the other).
    if kind == "tool_prefix":
        return [_tool_event(tool[:-1], holding)]
    if kind == "tool_extended":
        return [_tool_event(tool + "s", holding)]
    if kind == "response_only":
        return [_tool_event(tool, plain, response=f"I call {tool} for {marker}")]
    if kind == "arguments_only":
        return [_tool_event(tool, plain, argument=marker)]
    if kind == "invalid_event":
        return [
            EventSpec(
                step=0,
                response=f"not json {marker.lower()}",
                action="invalid",
                result=f"error: response is not valid JSON near {marker}",
            )
        ]
    if kind == "case_changed":
        return [_tool_event(tool, f"ok {marker.lower()} done")]
    if kind == "split":
        return [_tool_event(tool, plain), _tool_event(fact.other_tool, holding)]
    return [_tool_event(tool, holding)]  # embedded


def noise_event(kind: str, tool: str, words: str) -> EventSpec:
    """An event unrelated to every expectation: it holds no marker."""
    if kind == "invalid":
        return EventSpec(
            step=0,
            response=f"{{{words}",
            action="invalid",
            result="error: response is not valid JSON",
        )
    return _tool_event(tool, words, argument=words or "a.txt")


# --- receipts ------------------------------------------------------------------------

RECEIPT_PASS_KINDS = ("match", "match_spelled")
RECEIPT_FAIL_KINDS = (
    "tool",
    "tool_case",
    "tool_prefix",
    "tool_extended",
    "exit_state",
    "result",
    "result_case",
    "artifacts_reversed",
    "artifacts_prefix",
    "artifacts_suffix",
    "artifacts_superset",
    "artifacts_missing",
    "artifacts_unexpected",
)
RECEIPT_KINDS = RECEIPT_PASS_KINDS + RECEIPT_FAIL_KINDS


_EFFECT_TOOLS = ("edit_file", "write_file", "run_command")
_DEFAULT_ARTIFACTS = ("out/a0.txt", "out/b0.txt")
_ARTIFACTS_NEEDED = {
    "match_spelled": 1,
    "artifacts_reversed": 2,
    "artifacts_prefix": 1,
    "artifacts_suffix": 1,
    "artifacts_missing": 1,
}


@dataclass(frozen=True)
class ReceiptFact:
    """One receipt expectation, the receipt stored for it, and how it is stored.

    `stored` is "put" (through the target's store), "appended" (a valid
    line written to the log after the store was built, so only a reload sees
    it) or "absent" (no receipt under this call id).
    """

    call_id: str = "call-1"
    tool: str = "edit_file"
    exit_state: str = "ok"
    artifacts: tuple[str, ...] = ()
    kind: str = "match"
    marker: str = "[C]"
    stored: str = "put"

    @property
    def passes(self) -> bool:
        return self.kind in RECEIPT_PASS_KINDS and self.stored != "absent"


def stored_artifacts(fact: ReceiptFact) -> tuple[str, ...]:
    """The changed artifacts of the stored receipt, as the kind needs them.

    Kinds that drop, reverse or respell artifacts need some to act on; the
    drawn ones are topped up with fixed paths (no digit-free clash: every
    drawn artifact is distinct from them by construction of the strategy).
    """
    if fact.kind == "artifacts_unexpected":
        return ()
    need = _ARTIFACTS_NEEDED.get(fact.kind, 0)
    artifacts = fact.artifacts
    for extra in _DEFAULT_ARTIFACTS:
        if len(artifacts) >= need:
            break
        if extra not in artifacts:
            artifacts = (*artifacts, extra)
    return artifacts


def receipt_result(fact: ReceiptFact) -> str:
    return f"done {fact.marker} ok"


def receipt_arguments(fact: ReceiptFact) -> dict[str, object]:
    artifacts = stored_artifacts(fact)
    path = artifacts[0] if artifacts else "notes.txt"
    if fact.tool == "run_command":
        return {"argv": ["python", "-c", "print('ok')"]}
    if fact.tool == "write_file":
        return {"path": path, "content": "text"}
    return {"path": path, "old": "1", "new": "2"}


def _other(values: tuple[str, ...], value: str) -> str:
    return next(v for v in values if v != value)


def receipt_expectation(
    fact: ReceiptFact,
) -> tuple[str, str, str, str, tuple[str, ...]]:
    """The case's (call id, tool, exit state, result substring, artifacts)."""
    artifacts = stored_artifacts(fact)
    tool, exit_state, contains = fact.tool, fact.exit_state, fact.marker
    kind = fact.kind
    if kind == "match_spelled":
        artifacts = tuple(
            spelled(tuple(a.split("/")), ("dot_slash", "double_slash")[i % 2])
            for i, a in enumerate(artifacts)
        )
    elif kind == "tool":
        tool = _other(_EFFECT_TOOLS + TOOLS, tool)
    elif kind == "tool_case":
        tool = tool.upper()
    elif kind == "tool_prefix":
        tool = tool[:-1]
    elif kind == "tool_extended":
        tool = tool + "s"
    elif kind == "exit_state":
        exit_state = _other(("ok", "error"), exit_state)
    elif kind == "result":
        contains = f"not {fact.marker}"
    elif kind == "result_case":
        contains = fact.marker.lower()
    elif kind == "artifacts_reversed":
        artifacts = tuple(reversed(artifacts))
    elif kind == "artifacts_prefix":
        artifacts = artifacts[:-1]
    elif kind == "artifacts_suffix":
        artifacts = artifacts[1:]
    elif kind == "artifacts_superset":
        artifacts = (*artifacts, "out/more0.txt")
    elif kind == "artifacts_missing":
        artifacts = ()
    elif kind == "artifacts_unexpected":
        artifacts = ("out/a0.txt",)
    return fact.call_id, tool, exit_state, contains, artifacts


# --- the receipt log ----------------------------------------------------------------

#: Damage to a path store's log, simplest first. Every kind makes the log
#: unloadable, so every receipt check fails with "receipt evidence
#: unavailable: ..."; "duplicate_identical" is the valid near miss (an
#: identical repeat of a line loads fine).
LOG_TAMPER_KINDS = (
    "non_json",
    "truncated",
    "invalid_utf8",
    "non_object",
    "missing_key",
    "extra_key",
    "stale_digest",
    "conflict",
    "directory",
)


@dataclass(frozen=True)
class LogFact:
    """Which store evaluation is handed, and what its log holds.

    store: "path" (a ReceiptStore over a log file), "memory" (no path) or
    "missing" (a path whose log does not exist). `location` puts the log in
    the workspace root ("inside") or beside it. `get_raises` names an
    exception the store instance's `get` raises (None: it does not).
    `workspace_store` is "same" (the workspace holds the store evaluation is
    given) or "separate" (the workspace holds another, empty one). `extra`
    unrelated receipts are stored too.
    """

    store: str = "path"
    location: str = "inside"
    tamper: str = "none"
    tamper_line: int = 0
    tamper_variant: int = 0
    get_raises: str | None = None
    workspace_store: str = "same"
    extra: int = 0

    @property
    def writes_log(self) -> bool:
        return self.store == "path"


#: Tampering that damages one existing line: the log needs a line for it.
LINE_TAMPER_KINDS = frozenset(
    {
        "duplicate_identical",
        "truncated",
        "invalid_utf8",
        "missing_key",
        "extra_key",
        "stale_digest",
        "conflict",
    }
)


def extra_receipts(world: World) -> int:
    """How many unrelated receipts the log holds (first, before the facts').

    Damage to one line needs a line: when no receipt is stored, one unrelated
    receipt is added so the tampering always has something to damage.
    """
    log = world.log
    if log.store != "path":
        return log.extra
    if log.tamper in LINE_TAMPER_KINDS and log.extra == 0:
        if not any(stored_as(f, log) == "put" for f in world.receipts):
            return 1
    return log.extra


def stored_as(fact: ReceiptFact, log: LogFact) -> str:
    """How the receipt is really stored, given the store it goes into.

    Nothing is ever written to a missing log, and an in-memory store has no
    log to append to, so there an appended receipt is simply put.
    """
    if log.store == "missing":
        return "absent"
    if log.store == "memory" and fact.stored == "appended":
        return "put"
    return fact.stored


def log_unavailable(log: LogFact) -> bool:
    """Whether a reload of the log must fail (every receipt check unavailable)."""
    return log.store == "path" and log.tamper not in ("none", "duplicate_identical")


def lookup_fails(log: LogFact) -> bool:
    """Whether every lookup fails: an in-memory store whose `get` raises."""
    return log.store == "memory" and log.get_raises is not None


# --- the world ---------------------------------------------------------------------


@dataclass(frozen=True)
class World:
    """Everything one evaluation sees, and (through `truth`) what it must say."""

    final: FinalFact = field(default_factory=FinalFact)
    files: tuple[FileFact, ...] = ()
    results: tuple[ResultFact, ...] = ()
    receipts: tuple[ReceiptFact, ...] = ()
    log: LogFact = field(default_factory=LogFact)
    noise: tuple[EventSpec, ...] = ()
    modified_files: tuple[str, ...] = ()


def world_events(world: World) -> tuple[EventSpec, ...]:
    """The run's events in canonical order, numbered from step 1.

    Unrelated events first, then each result fact's events in fact order
    (decoys where the kind puts them), then the final event when the run has
    a final answer.
    """
    events: list[EventSpec] = list(world.noise)
    for fact in world.results:
        events.extend(_result_events(fact))
    final, _ = final_text(world.final)
    if final is not None:
        events.append(
            EventSpec(
                step=0,
                response=json.dumps({"final": final}),
                action="final",
                final=final,
            )
        )
    return tuple(
        EventSpec(
            step=number,
            response=e.response,
            action=e.action,
            tool=e.tool,
            arguments_json=e.arguments_json,
            final=e.final,
            result=e.result,
        )
        for number, e in enumerate(events, start=1)
    )


@dataclass(frozen=True)
class CaseSpec:
    """The evaluation case, neutrally: plain strings and tuples."""

    final_contains: str
    files: tuple[tuple[str, str], ...]
    results: tuple[tuple[str, str], ...]
    receipts: tuple[tuple[str, str, str, str, tuple[str, ...]], ...]


def _results_in_case(world: World) -> Iterator[ResultFact]:
    for fact in world.results:
        yield fact
        if fact.repeat:
            yield fact


def case_spec(world: World) -> CaseSpec:
    """The case the world's facts declare, in fact order."""
    _, final_contains = final_text(world.final)
    return CaseSpec(
        final_contains=final_contains,
        files=tuple(
            (spelled(f.parts, f.spelling), file_layout(f)[0]) for f in world.files
        ),
        results=tuple((r.tool, r.marker) for r in _results_in_case(world)),
        receipts=tuple(receipt_expectation(r) for r in world.receipts),
    )


@dataclass(frozen=True)
class ExpectedCheck:
    """One check the report must hold: its name, verdict and detail.

    When `detail_is_prefix` the observed detail must start with `detail`
    (the reason after it is the implementation's own words). `fact` says in
    words what the world holds; `hint` names the usual mistake when the
    observed check differs.
    """

    name: str
    passed: bool
    detail: str
    detail_is_prefix: bool
    fact: str
    hint: str

    def accepts(self, passed: object, detail: object) -> bool:
        if passed is not self.passed or not isinstance(detail, str):
            return False
        if self.detail_is_prefix:
            return detail.startswith(self.detail)
        return detail == self.detail

    def shown(self) -> str:
        verdict = "PASS" if self.passed else "FAIL"
        detail = f"{self.detail}..." if self.detail_is_prefix else self.detail
        return f"{self.name}: {verdict} ({detail})"


def _receipt_check(world: World, fact: ReceiptFact) -> ExpectedCheck:
    name = f"receipt:{fact.call_id}"
    log = world.log
    words = _receipt_words(fact, log)
    if log_unavailable(log):
        return ExpectedCheck(
            name,
            False,
            "receipt evidence unavailable: ",
            True,
            words,
            hints.LOG_UNAVAILABLE_HINT,
        )
    if lookup_fails(log):
        return ExpectedCheck(
            name, False, "receipt lookup failed: ", True, words, hints.LOOKUP_HINT
        )
    stored = stored_as(fact, log)
    if stored == "absent":
        return ExpectedCheck(
            name,
            False,
            "receipt is absent",
            False,
            words,
            "a call id with no receipt fails with exactly 'receipt is absent'"
            " (receipts.get returns None)",
        )
    hint = hints.RECEIPT_HINTS[fact.kind]
    if stored == "appended":
        hint = (
            "reload the log through a fresh ReceiptStore(receipts.path): this"
            " receipt was appended after the store was built"
        )
    elif log.workspace_store == "separate":
        hint += "; use the receipts argument, not workspace.receipt_store"
    elif log.store == "path" and log.get_raises is not None:
        hint = (
            "a path store is reloaded from its log; the handed store's own get"
            " is not consulted"
        )
    passes = fact.kind in RECEIPT_PASS_KINDS
    detail = "receipt facts match" if passes else "receipt facts do not match"
    return ExpectedCheck(name, passes, detail, False, words, hint)


def truth(world: World) -> tuple[ExpectedCheck, ...]:
    """Every check the report must hold, in the contract's order."""
    final = world.final
    checks = [
        ExpectedCheck(
            "final",
            final.passes,
            "required final observed"
            if final.passes
            else "required final not observed",
            False,
            f"final: {hints.FINAL_WORDS[final.kind]}",
            hints.FINAL_HINTS[final.kind],
        )
    ]
    for fact in world.files:
        name = f"file:{fact.path}"
        words = _file_words(fact)
        hint = hints.FILE_HINTS[fact.kind]
        if fact.spelling != "plain":
            hint += "; the check is named with the normalised path"
        if fact.unavailable:
            checks.append(
                ExpectedCheck(name, False, "evidence unavailable: ", True, words, hint)
            )
        else:
            detail = "content matches" if fact.passes else "content does not match"
            checks.append(ExpectedCheck(name, fact.passes, detail, False, words, hint))
    for fact in _results_in_case(world):
        detail = (
            "required result observed"
            if fact.passes
            else "required result not observed"
        )
        hint = hints.RESULT_HINTS[fact.kind]
        if fact.repeat:
            hint += "; a repeated result expectation gives a repeated check"
        checks.append(
            ExpectedCheck(
                f"result:{fact.tool}",
                fact.passes,
                detail,
                False,
                _result_words(fact),
                hint,
            )
        )
    checks.extend(_receipt_check(world, fact) for fact in world.receipts)
    return tuple(checks)


# --- in words ------------------------------------------------------------------------


def _short(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


def _file_words(fact: FileFact) -> str:
    expected, disk = file_layout(fact)
    written = spelled(fact.parts, fact.spelling)
    spelling = "" if written == fact.path else f" (the case writes {written!r})"
    line = f"file {fact.path}{spelling}: {hints.FILE_WORDS[fact.kind]}"
    line += f"; expected {_short(expected)}"
    if not fact.unavailable and fact.kind != "exact" and not fact.passes:
        line += f", on disk {_short(disk)}"
    return line


def _result_words(fact: ResultFact) -> str:
    how = hints.RESULT_WORDS[fact.kind].format(
        tool=fact.tool, other=fact.other_tool, upper=fact.tool.upper()
    )
    twice = " (listed twice in the case)" if fact.repeat else ""
    return f"result {fact.tool} {fact.marker!r}{twice}: {how}"


def _receipt_words(fact: ReceiptFact, log: LogFact) -> str:
    call_id, tool, exit_state, contains, artifacts = receipt_expectation(fact)
    how = stored_as(fact, log)
    stored = {
        "put": "stored through the store",
        "appended": "appended to the log after the store was built",
        "absent": "no receipt under this call id",
    }[how]
    if how != "absent":
        stored += (
            f" (tool {fact.tool}, exit {fact.exit_state},"
            f" result {receipt_result(fact)!r},"
            f" artifacts {stored_artifacts(fact)})"
        )
    return (
        f"receipt {call_id!r}: {stored}; expected tool {tool}, exit {exit_state},"
        f" result containing {contains!r}, artifacts {artifacts}"
        f" ({hints.RECEIPT_WORDS[fact.kind]})"
    )


def _log_words(log: LogFact, extra: int) -> str:
    if log.store == "memory":
        line = "receipts: an in-memory store (no path)"
    elif log.store == "missing":
        line = "receipts: a path store whose log file does not exist"
    else:
        where = "in the workspace root" if log.location == "inside" else "beside it"
        line = f"receipts: a path store, log {where}, {hints.TAMPER_WORDS[log.tamper]}"
    if extra:
        line += f"; {extra} unrelated receipt(s) stored first"
    if log.get_raises is not None:
        line += f"; the store's get raises {log.get_raises}"
    if log.workspace_store == "separate":
        line += "; the workspace holds a different, empty store"
    return line


def describe(world: World) -> str:
    """The world in words, one fact a line: for note() and for lessons."""
    lines = [f"final: {hints.FINAL_WORDS[world.final.kind]}"]
    final, contains = final_text(world.final)
    lines[0] += (
        f" (run.completed={world.final.completed},"
        f" reason={world.final.run_reason!r}, final={final!r},"
        f" final_contains={contains!r})"
    )
    lines.extend(_file_words(fact) for fact in world.files)
    lines.extend(_result_words(fact) for fact in world.results)
    if world.receipts or world.log != LogFact():
        lines.append(_log_words(world.log, extra_receipts(world)))
    lines.extend(_receipt_words(fact, world.log) for fact in world.receipts)
    if world.noise:
        lines.append(f"{len(world.noise)} unrelated event(s) before the others")
    return "\n".join(lines)
