"""A world: everything one evaluation sees, and (through `truth`) what it must say.

One type for every world the suite judges: a drawn world whose run is built
from events, a hostile one whose evidence is booby-trapped (its facts are
simply of hardened kinds), and a real run, whose `plan` the target's own loop
plays (`strategies.plans`). Each fact's kind decides its check; `truth`
reads the kinds, `describe` words them. What the builder must make of a
world (its events, case, files' bytes, stored receipts, a real run's script
and replay) is worked out when the world is made, as its `blueprint`, so
the judge asks this package nothing on a world's way. Nothing here imports
Hypothesis or a target.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from strategies.compact import Compact
from strategies.edits import Edit
from strategies.files import (
    FILE_KINDS,
    FileFact,
    file_kind,
    file_layout,
    foreign_readings,
    spelled,
)
from strategies.finals import (
    FINAL_KINDS,
    FinalFact,
    final_hint,
    final_said,
    final_text,
    final_words,
)
from strategies.kinds import EITHER, PASS, UNAVAILABLE, Kind
from strategies.logs import (
    HARDENED_GET_ERRORS,
    LOG_KINDS,
    LogDamage,
    LogFact,
    damage_effect,
    damage_words,
)
from strategies.outcome import Outcome, replay
from strategies.plan_steps import Plan, commands, describe_plan, replies
from strategies.receipts import (
    RECEIPT_KINDS,
    ReceiptFact,
    Stored,
    receipt_expectation,
    receipt_kind,
    stored_receipt,
)
from strategies.results import (
    RESULT_KINDS,
    EventSpec,
    ResultFact,
    noise_event,
    result_asks,
    result_cause,
    result_events,
    result_hint,
    result_words,
    tool_event,
)

__all__ = [
    "VERBOSE_SHOWS_IT",
    "Blueprint",
    "CaseSpec",
    "ExpectedCheck",
    "Laid",
    "World",
    "blueprint",
    "case_spec",
    "check_positions",
    "crossed_receipts",
    "describe",
    "extra_receipts",
    "log_effect",
    "log_lines",
    "stored_as",
    "truth",
    "world_events",
]


@dataclass(frozen=True, repr=False)
class World(Compact):
    """Everything one evaluation sees.

    `events_as_list` hands the run its events as a list, numbered in
    descending order, so an evaluator that sorts them in place changes the
    run it was given. `crossed` puts each expectation's substring where
    another kind of evidence lives, where it must not count: the store holds
    a receipt of each result expectation's tool whose result holds its
    substring, and the run an event of each receipt expectation's tool whose
    result holds that receipt's substring (`crossed_receipts`). `padding`
    puts that many more unrelated events before all others (a run of
    thousands), and `numbering` is (first step, events per step; 0: all
    share the first): events may share a step, start at 0 or below. `plan` (a
    real run) makes the target's loop play the plan instead of building the
    run from events; its files, results and receipts are then what the plan
    leaves behind.
    """

    final: FinalFact = field(default_factory=FinalFact)
    files: tuple[FileFact, ...] = ()
    results: tuple[ResultFact, ...] = ()
    receipts: tuple[ReceiptFact, ...] = ()
    log: LogFact = field(default_factory=LogFact)
    noise: tuple[EventSpec, ...] = ()
    modified_files: tuple[str, ...] = ()
    events_as_list: bool = False
    crossed: bool = False
    padding: int = 0
    numbering: tuple[int, int] = (1, 1)
    plan: Plan | None = None
    #: Worked out from the facts above when the world is made (`blueprint`).
    blueprint: Blueprint = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "blueprint", blueprint(self))

    def kinds(self) -> Iterator[Kind]:
        """The kind of every fact of the world."""
        yield FINAL_KINDS[self.final.kind]
        yield from (file_kind(fact) for fact in self.files)
        yield from (RESULT_KINDS[fact.kind] for fact in self.results)
        yield from (receipt_kind(fact) for fact in self.receipts)
        yield LOG_KINDS[self.log.kind]

    @property
    def level(self) -> str:
        """`hardened` when any fact is judged only at the hardened level."""
        hardened = any(kind.level == "hardened" for kind in self.kinds())
        return (
            "hardened" if hardened or self.log.get in HARDENED_GET_ERRORS else "course"
        )

    @property
    def malformed(self) -> bool:
        """Whether the run breaks the contract's types (a ValueError is then fair)."""
        return any(kind.malformed for kind in self.kinds())


# Every fact type prints compactly too.
_FACTS = (FinalFact, FileFact, Edit, ResultFact, ReceiptFact, LogFact, LogDamage)
for _type in (*_FACTS, EventSpec):
    _type.__repr__ = Compact.__repr__  # type: ignore[method-assign]


# The unrelated events a long run is padded with, in turn.
_PADDING = (
    noise_event("tool", "list_files", "src"),
    noise_event("invalid", "read_file", "oops"),
    noise_event("tool", "read_file", "notes.txt"),
)


def world_events(world: World) -> tuple[EventSpec, ...]:
    """The run's events in canonical order, numbered as `numbering` says.

    The padding and unrelated events first, then each result fact's events in fact order
    (decoys where the kind puts them), then the final event when the run has
    a final answer. A real run's events come from its loop: none here.
    """
    if world.plan is not None:
        return ()
    events: list[EventSpec] = list(world.noise)
    for fact in world.results:
        events.extend(result_events(fact))
    if world.crossed:
        for receipt in world.receipts:
            wanted = receipt_expectation(receipt)
            events.append(tool_event(wanted.tool, f"ok {wanted.contains} done"))
    said = final_said(world.final)
    if said is not None:
        events.append(
            EventSpec(
                step=0,
                response=json.dumps({"final": said}),
                action="final",
                final=said,
            )
        )
    first, share = world.numbering
    padding = _padded(world.padding, first, share)
    return padding + tuple(
        replace(e, step=_step(n, first, share))
        for n, e in enumerate(events, world.padding)
    )


def _step(n: int, first: int, share: int) -> int:
    return first + (n // share if share else 0)


@functools.lru_cache(maxsize=64)
def _padded(count: int, first: int, share: int) -> tuple[EventSpec, ...]:
    # Made once per numbering: a world is made again for every perturbation.
    return tuple(
        replace(_PADDING[n % len(_PADDING)], step=_step(n, first, share))
        for n in range(count)
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
    receipts = []
    for fact in world.receipts:
        expected = receipt_expectation(fact)
        receipts.append(
            (
                expected.call_id,
                expected.tool,
                expected.exit_state,
                expected.contains,
                expected.artifacts,
            )
        )
    return CaseSpec(
        final_contains=final_contains,
        files=tuple(
            (spelled(f.parts, f.spelling), file_layout(f)[0]) for f in world.files
        ),
        results=tuple((r.tool, result_asks(r)) for r in _results_in_case(world)),
        receipts=tuple(receipts),
    )


# --- the receipt store -------------------------------------------------------------


def stored_as(fact: ReceiptFact, log: LogFact) -> str:
    """How the receipt is really stored, given the store it goes into.

    Nothing is ever written to a missing log, and an in-memory store has no
    log to append to, so there an appended receipt is simply put.
    """
    if fact.stored == "played":
        return "played"
    if log.store == "missing":
        return "absent"
    if log.store == "memory" and fact.stored == "appended":
        return "put"
    return fact.stored


def crossed_receipts(world: World) -> tuple[Stored, ...]:
    """For a crossed world, one receipt per result expectation: its tool, a
    result holding its substring, and a call id no receipt fact uses
    ("call-1", "call-2", ... skipping the taken ones), so no receipt check
    changes and no result check may."""
    if not world.crossed or world.plan is not None:
        return ()
    taken = {fact.call_id for fact in world.receipts}
    taken |= {receipt_expectation(fact).call_id for fact in world.receipts}
    taken |= {stored_receipt(fact).call_id for fact in world.receipts}
    free = (f"call-{n}" for n in range(1, 1000) if f"call-{n}" not in taken)
    return tuple(
        Stored(
            next(free),
            fact.tool,
            {"path": "notes.txt"},
            "ok",
            f"ok {result_asks(fact)} done",
            (),
        )
        for fact in world.results
    )


def extra_receipts(world: World) -> int:
    """How many unrelated receipts the log holds (first, before the facts').

    Damage to one line needs a line: when no receipt is stored, one unrelated
    receipt is added so the damage always has something to work on.
    """
    log = world.log
    if log.store != "path" or world.plan is not None:
        return log.extra
    if LOG_KINDS[log.damage.op].needs_extra:
        return max(1, log.extra)
    if LOG_KINDS[log.damage.op].needs_line and log.extra == 0:
        if not any(stored_as(f, log) == "put" for f in world.receipts):
            return 1
    return log.extra


def log_lines(world: World) -> tuple[str, ...]:
    """The call id on each line of a built log, in order, before any damage
    ("" for a receipt no fact declares): the unrelated receipts, the put
    ones, the crossed ones, then the appended ones, one line each."""
    put, appended = (
        [
            stored_receipt(f).call_id
            for f in world.receipts
            if stored_as(f, world.log) == how
        ]
        for how in ("put", "appended")
    )
    blank = [""] * extra_receipts(world), [""] * len(crossed_receipts(world))
    return (*blank[0], *put, *blank[1], *appended)


def log_effect(world: World, fact: ReceiptFact) -> str:
    """What the log does to this receipt's check: "valid", "absent" (its
    line was cut away) or "unavailable" (the log must be refused)."""
    log = world.log
    if log.store != "path" or world.plan is not None:
        return "valid"
    effect = "unavailable" if log.trap else damage_effect(log.damage)
    if effect != "shortened":
        return effect
    lines = log_lines(world)
    kept = lines[: log.damage.line % max(1, len(lines)) + (log.damage.at == -1)]
    return "valid" if stored_receipt(fact).call_id in kept else "absent"


# --- what the builder makes of a world ---------------------------------------------


@dataclass(frozen=True)
class Laid:
    """One file fact as the builder lays it out: the text a case expects,
    the bytes on disk, and the converted spellings of its path (where a
    decoy may stand)."""

    expected: str
    data: bytes
    readings: tuple[str, ...]


@dataclass(frozen=True)
class Blueprint:
    """What a world's builder makes of it, worked out from its facts when
    the world is made, so the judge reads it and asks strategies/ nothing.

    `events` are the run's (canonical order; none for a real run), `final`
    the final answer's text (or a value that is no string), `case` the case
    the facts declare, `files` one `Laid` per file fact. `put` are the
    receipts that go through the target's store, in order (unrelated ones
    first, then the facts', then a crossed world's), and `appended` the
    lines written elsewhere and appended to its log. For a real run,
    `script` is the scripted model's replies, `commands` what the policy
    allows, and `outcome` what the plan implies.
    """

    events: tuple[EventSpec, ...]
    final: object
    case: CaseSpec
    files: tuple[Laid, ...]
    put: tuple[Stored, ...] = ()
    appended: tuple[Stored, ...] = ()
    script: tuple[str, ...] = ()
    commands: tuple[tuple[str, ...], ...] = ()
    outcome: Outcome | None = None


def _extra(number: int) -> Stored:
    """An unrelated receipt the log holds before the facts'."""
    return Stored(
        f"extra-{number}",
        "run_command",
        {"argv": ["python", "-c", "print('extra')"]},
        "ok",
        f"status: 0\noutput:\nextra {number}: café ✓\n",
        (),
    )


def blueprint(world: World) -> Blueprint:
    """What the builder makes of `world` (World.blueprint holds it)."""
    final, _ = final_text(world.final)
    made = Blueprint(
        events=world_events(world),
        final=final,
        case=case_spec(world),
        files=tuple(
            Laid(*file_layout(fact), readings=foreign_readings(fact.parts))
            for fact in world.files
        ),
    )
    plan, log = world.plan, world.log
    if plan is not None:
        return replace(
            made,
            script=replies(plan, final),
            commands=commands(plan),
            outcome=replay(plan),
        )
    if log.store == "missing":
        return made
    return replace(
        made,
        put=(
            *(_extra(n) for n in range(extra_receipts(world))),
            *(stored_receipt(f) for f in world.receipts if stored_as(f, log) == "put"),
            *crossed_receipts(world),
        ),
        appended=tuple(
            stored_receipt(f) for f in world.receipts if stored_as(f, log) == "appended"
        ),
    )


# --- the truth -------------------------------------------------------------------


@dataclass(frozen=True)
class ExpectedCheck:
    """One check the report must hold: its name, verdict and detail.

    `passed` None: any verdict is honest (a hazard only to be survived).
    `detail` None: any wording. `prefix`: the observed detail must start with
    `detail`. At the course level a failing detail binds only when
    `course_binding` (the prefixes the course itself relies on), and then
    only as far as `course_words`: the words the course relies on, at the
    start of the detail, whatever follows them (a colon, a parenthesis is the
    learner's); a passing detail always binds. `fact` says in words what the
    world holds; `hint` names the usual mistake when the observed check differs.
    `kind` is "<group>:<fact kind>" (e.g. "file:newline_added"; kinds with the
    same verdict and hint are one, `Kinds.alike`): the cause of a wrong
    verdict, the same in every invariant that meets it, so the reports tell
    it once (judge/causes.py, day7_verify/reports/_causes.py).
    """

    name: str
    passed: bool | None
    detail: str | None
    prefix: bool = False
    course_binding: bool = False
    fact: str = ""
    hint: str = ""
    course_words: str | None = None
    kind: str = ""

    def binding(self, level: str) -> str | None:
        """The prefix (or exact detail) that binds at `level`."""
        if level == "course" and self.course_words is not None:
            return self.course_words
        return self.detail

    def accepts(self, passed: object, detail: object, level: str = "hardened") -> bool:
        if not isinstance(passed, bool) or not isinstance(detail, str):
            return False
        if self.passed is None:
            return True
        if passed is not self.passed:
            return False
        if self.detail is None or (
            level == "course" and not passed and not self.course_binding
        ):
            return True
        binding = self.binding(level)
        assert binding is not None
        return detail.startswith(binding) if self.prefix else detail == binding

    def same(self, first: tuple, second: tuple, level: str = "hardened") -> bool:
        """Whether two observed (name, passed, detail) rows of this check say
        the same thing, as far as `level` binds: at the course level two
        failing rows may word a non-binding detail differently (a count of
        the events searched, say)."""
        if first == second:
            return True
        return (
            level == "course"
            and not self.course_binding
            and first[:2] == second[:2]
            and first[1] is False
        )

    def shown(self, level: str = "hardened") -> str:
        if self.passed is None:
            return f"{self.name}: PASS or FAIL (either is honest here)"
        verdict = "PASS" if self.passed else "FAIL"
        loose = level == "course" and not self.passed and not self.course_binding
        if self.detail is None or loose:
            return f"{self.name}: {verdict} (any detail)"
        binding = self.binding(level)
        detail = f"{binding}..." if self.prefix else binding
        return f"{self.name}: {verdict} ({detail})"


#: The words the course relies on at the start of a receipt check's detail;
#: what follows them is the learner's at the course level.
RECEIPT_UNAVAILABLE = "receipt evidence unavailable"
LOOKUP_FAILED = "receipt lookup failed"

_DETAILS = {
    "final": ("required final observed", "required final not observed"),
    "file": ("content matches", "content does not match"),
    "result": ("required result observed", "required result not observed"),
    "receipt": ("receipt facts match", "receipt facts do not match"),
}


_TABLES = {
    "final": FINAL_KINDS,
    "file": FILE_KINDS,
    "result": RESULT_KINDS,
    "receipt": RECEIPT_KINDS,
}


def _check(group: str, name: str, kind: Kind, fact: str, hint: str) -> ExpectedCheck:
    passing, failing = _DETAILS[group]
    table = _TABLES[group]
    # A file's edit names its own cause ("file:bom"), outside the table.
    cause = f"{group}:{table.alike(kind.name) if kind.name in table else kind.name}"
    if kind.verdict == EITHER:
        return ExpectedCheck(name, None, None, fact=fact, hint=hint, kind=cause)
    if kind.verdict == UNAVAILABLE:
        return ExpectedCheck(
            name, False, "evidence unavailable: ", True, False, fact, hint, kind=cause
        )
    passes = kind.verdict == PASS
    return ExpectedCheck(
        name, passes, passing if passes else failing, fact=fact, hint=hint, kind=cause
    )


def _receipt_check(world: World, fact: ReceiptFact) -> ExpectedCheck:
    log = world.log
    kind = receipt_kind(fact)
    name = f"receipt:{receipt_expectation(fact).call_id}"
    words = _receipt_words(fact, log)
    log_kind = LOG_KINDS[log.kind]
    effect = log_effect(world, fact)
    if effect == "unavailable":
        return ExpectedCheck(
            name,
            False,
            "receipt evidence unavailable: ",
            True,
            True,
            words,
            log_kind.hint,
            course_words=RECEIPT_UNAVAILABLE,
            kind=f"receipt:log-{log_kind.name}",
        )
    if log.store == "memory" and log.get == "junk":
        return ExpectedCheck(
            name,
            False,
            None,
            fact=words,
            hint="a lookup that returns something other than a receipt fails the"
            " check: look at what get returns before reading its fields",
            kind="receipt:get-junk",
        )
    if log.store == "memory" and log.get is not None:
        return ExpectedCheck(
            name,
            False,
            "receipt lookup failed: ",
            True,
            True,
            words,
            "catch the exception from receipts.get(call_id) (AgentError and OSError"
            " at the least) and fail the check with 'receipt lookup failed: ...'",
            course_words=LOOKUP_FAILED,
            kind="receipt:get-raises",
        )
    stored = stored_as(fact, log)
    if stored == "absent" or fact.other_id or effect == "absent":
        return ExpectedCheck(
            name,
            False,
            "receipt is absent",
            fact=words,
            hint=log_kind.hint
            if effect == "absent"
            else kind.hint
            if fact.other_id
            else "a call id with no receipt fails with exactly 'receipt is absent'"
            " (receipts.get returns None)",
            kind="receipt:absent",
        )
    hint = kind.hint
    if stored == "appended":
        hint = (
            "reload the log through a fresh ReceiptStore(receipts.path): this"
            " receipt was appended after the store was built"
        )
    elif log.workspace_store == "separate":
        hint += "; use the receipts argument, not workspace.receipt_store"
    elif log.store == "path" and log.get is not None:
        hint = (
            "a path store is reloaded from its log; the handed store's own get"
            " is not consulted"
        )
    return _check("receipt", name, kind, words, hint)


def truth(world: World) -> tuple[ExpectedCheck, ...]:
    """Every check the report must hold, in the contract's order."""
    final = FINAL_KINDS[world.final.kind]
    checks = [
        _check(
            "final",
            "final",
            final,
            f"final: {_final_words(world)}",
            final_hint(world.final),
        )
    ]
    for fact in world.files:
        kind = file_kind(fact)
        hint = kind.hint
        if fact.spelling != "plain":
            hint += "; the check is named with the normalised path"
        checks.append(
            _check("file", f"file:{fact.path}", kind, _file_words(fact), hint)
        )
    for fact in _results_in_case(world):
        kind = replace(RESULT_KINDS[fact.kind], name=result_cause(fact))
        hint = result_hint(fact)
        if fact.repeat:
            hint += "; a repeated result expectation gives a repeated check"
        checks.append(
            _check("result", f"result:{fact.tool}", kind, _result_words(fact), hint)
        )
    checks.extend(_receipt_check(world, fact) for fact in world.receipts)
    return tuple(checks)


def check_positions(world: World) -> dict[tuple[str, int], tuple[int, ...]]:
    """The report positions of every fact's checks: ("file", 2) -> (3,)."""
    positions: dict[tuple[str, int], tuple[int, ...]] = {("final", 0): (0,)}
    at = 1
    for i, _ in enumerate(world.files):
        positions["file", i] = (at,)
        at += 1
    for i, fact in enumerate(world.results):
        count = 2 if fact.repeat else 1
        positions["result", i] = tuple(range(at, at + count))
        at += count
    for i, _ in enumerate(world.receipts):
        positions["receipt", i] = (at,)
        at += 1
    return positions


# --- in words ------------------------------------------------------------------------


def _short(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


def _final_words(world: World) -> str:
    fact = world.final
    final, contains = final_text(fact)
    return (
        f"{final_words(fact)} (run.completed={fact.completed},"
        f" final={_short(final)}, final_contains={contains!r})"
    )


def _file_words(fact: FileFact) -> str:
    kind = file_kind(fact)
    expected, disk = file_layout(fact)
    written = spelled(fact.parts, fact.spelling)
    shown = (
        fact.path if len(fact.path) <= 70 else f"{fact.path[:30]}...{fact.path[-30:]}"
    )
    spelling = "" if written == fact.path else f" (the case writes {written!r})"
    line = f"file {shown}{spelling}: {kind.words}; expected {_short(expected)}"
    # The bytes when they differ from the expected text's, for a file that
    # holds them (a missing file or a FIFO holds none).
    holds = FILE_KINDS[fact.kind].verdict != UNAVAILABLE
    if holds and expected.encode("utf-8", "surrogatepass") != disk:
        line += f", on disk {_short(disk)}"
    return line


def _result_words(fact: ResultFact) -> str:
    how = result_words(fact)
    twice = " (listed twice in the case)" if fact.repeat else ""
    return f"result {fact.tool} {result_asks(fact)!r}{twice}: {how}"


def _receipt_words(fact: ReceiptFact, log: LogFact) -> str:
    expected = receipt_expectation(fact)
    stored = stored_receipt(fact)
    how = stored_as(fact, log)
    said = {
        "put": "stored through the store",
        "appended": "appended to the log after the store was built",
        "absent": "no receipt under this call id",
        "played": "recorded by the run",
    }[how]
    if how != "absent":
        said += (
            f" (tool {stored.tool}, exit {stored.exit_state},"
            f" result {stored.result!r}, artifacts {stored.artifacts})"
        )
    return (
        f"receipt {expected.call_id!r}: {said}; expected tool {expected.tool},"
        f" exit {expected.exit_state}, result containing {expected.contains!r},"
        f" artifacts {expected.artifacts} ({RECEIPT_KINDS[fact.kind].words})"
    )


def _log_words(world: World) -> str:
    log, extra = world.log, extra_receipts(world)
    if log.store == "memory":
        line = "receipts: an in-memory store (no path)"
    elif log.store == "missing":
        line = "receipts: a path store whose log file does not exist"
    else:
        where = {
            "inside": "in the workspace root",
            "beside": "beside it",
            "linked": "beside it, in a directory reached through a symlink",
        }[log.location]
        how = (
            LOG_KINDS[log.trap].words
            if log.trap
            else damage_words(log.damage, len(log_lines(world)))
        )
        line = f"receipts: a path store, log {where}, {how}"
    if extra:
        line += f"; {extra} unrelated receipt(s) stored first"
    if log.get == "junk":
        line += "; the store's get returns a dict, not a receipt"
    elif log.get is not None:
        line += f"; the store's get raises {log.get}"
    if log.workspace_store == "separate":
        line += "; the workspace holds a different, empty store"
    return line


# How describe() starts a line about one declared fact.
_FACT_LINES = ("file ", "result ", "receipt '", 'receipt "')


#: What a world narrowed to one check's facts says of the rest: true where
#: the lesson is read in the terminal; the page says where its whole world is.
VERBOSE_SHOWS_IT = "(--verbose shows the whole world)"


def about_check(words: str, name: str) -> str:
    """`words` (describe's lines) with only the facts check `name` can depend on.

    A wrong verdict of one check is about its own fact, and the facts of the
    same name (a result of the same tool, a receipt of the same call id, a
    file at the same path): a learner reads those, not a world of 95 lines
    whose other facts a second mistake kept from shrinking. The rest are one
    line saying how many were left out; every other line (the final, the
    store, the noise, a real run's plan) is kept.
    """
    group, _, subject = name.partition(":")
    own = {
        "final": (),  # the run's final alone: no declared fact of the case
        "file": (f"file {subject}:", f"file {subject} ("),
        "result": (f"result {subject} ",),
        "receipt": (f"receipt {subject!r}:",),
    }.get(group)
    if own is None:
        return words
    kept: list[str] = []
    left = 0
    at = 0
    for line in words.splitlines():
        if line.startswith(_FACT_LINES) and not (own and line.startswith(own)):
            left += 1
            continue
        kept.append(line)
        if line.startswith(_FACT_LINES) or not left:
            at = len(kept)  # the count goes after the last fact shown
    if left:
        # Where the facts were, so what follows them (a reordering, a
        # perturbation) still ends the world, as judging() expects.
        kept.insert(
            at,
            f"{left} other fact(s) of the world, not {name}'s, not shown here"
            f" {VERBOSE_SHOWS_IT}",
        )
    return "\n".join(kept)


def describe(world: World) -> str:
    """The world in words, one fact a line: for note() and for lessons."""
    lines = []
    if world.plan is not None:
        lines.append(describe_plan(world.plan, world.final))
    lines.append(f"final: {_final_words(world)}")
    lines.extend(_file_words(fact) for fact in world.files)
    lines.extend(_result_words(fact) for fact in world.results)
    if world.receipts or world.log != LogFact():
        lines.append(_log_words(world))
    lines.extend(_receipt_words(fact, world.log) for fact in world.receipts)
    if world.noise or world.padding:
        count = len(world.noise) + world.padding
        lines.append(f"{count} unrelated event(s) before the others")
    first, share = world.numbering
    if (first, share) != (1, 1):
        per = f"{share} event(s) a step" if share else "every event at that step"
        lines.append(f"the events are numbered from step {first}, {per}")
    if world.events_as_list:
        lines.append("the run's events are a list, numbered in descending order")
    if world.crossed and (world.results or world.receipts):
        lines.append(
            "crossed evidence: the store also holds a receipt of each result"
            " expectation's tool whose result holds its substring (call ids no"
            " expectation names), and the run an event of each receipt"
            " expectation's tool whose result holds that receipt's substring"
        )
    return "\n".join(lines)
