"""Hypothesis strategies that draw whole Day 7 worlds, each knowing its truth.

One strategy per noun, plural-named: `final_facts`, `file_facts`,
`result_facts`, `receipt_facts`, `log_facts`, `noise_events`, and `worlds`,
which puts them together and gives every fact its unique marker and index.
Choices are listed simplest first, so a failing world shrinks towards one
plain file, one plain event and an untouched log.

Nothing here touches the target: a world is plain data until
`strategies.build.materialise` makes it real inside a test.

`EXAMPLE_WORLDS` are hand-written worlds, one per kind of fact: the explicit
examples kept beside the properties, so every mistake a kind exists to catch
is caught on every run, whatever the seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from hypothesis import example
from hypothesis import strategies as st

from strategies.facts import (
    FILE_KINDS,
    FILE_PASS_KINDS,
    FILE_UNAVAILABLE_KINDS,
    FINAL_KINDS,
    FINAL_PASS_KINDS,
    INCOMPLETE_REASONS,
    LOG_TAMPER_KINDS,
    RECEIPT_KINDS,
    RECEIPT_PASS_KINDS,
    RESULT_KINDS,
    RESULT_PASS_KINDS,
    SPELLINGS,
    TOOLS,
    EventSpec,
    FileFact,
    FinalFact,
    LogFact,
    ReceiptFact,
    ResultFact,
    World,
    noise_event,
)

__all__ = [
    "BROAD_EXAMPLES",
    "EXAMPLE_WORLDS",
    "HARDENED_GET_ERRORS",
    "examples",
    "file_facts",
    "final_facts",
    "log_facts",
    "marker",
    "noise_events",
    "passing_worlds",
    "receipt_facts",
    "result_facts",
    "texts",
    "unavailable_worlds",
    "worlds",
]

F = TypeVar("F", bound=Callable[..., Any])

# Filler never holds "[" or "]": markers are the only text with brackets, so
# a marker occurs exactly where its fact put it. Pools rather than drawn
# characters: the kinds carry the structure (line endings, BOMs, sizes), the
# text only needs some variety, and one draw per text keeps generation cheap.
_TEXTS = (
    "",
    "a",
    "answer = 2\n",
    "x = 1\ny = 2",
    "one\ntwo\n",
    "é 日本 ß\n",
    "  spaced out  ",
    "tab\there\n",
    "1\n\n2\n",
    "no final newline",
)
# Words around a marker in a final: no whitespace, so a marker padded with
# spaces never occurs by accident.
_WORDS = ("done", "ok", "é日", "finished")
# Directory names and file stems: no digit (a file's last component always
# holds its index, so no file is another's directory), no "." component or
# dot-protected name, no "_" (the builder's own names start with "_"), and
# no protected name such as "credentials".
_DIRS = (
    (),
    ("src",),
    ("docs", "日本"),
    ("a", "b"),
    ("über",),
    ("src", "ñu", "deep"),
    ("my dir",),
)
_STEMS = ("app", "notes", "ré", "日本", "a b", "data")
_SUFFIXES = ("", ".txt", ".py", ".md")
# Changed artifacts: no digit, so the fixed ones the kinds add ("out/a0.txt")
# never equal a drawn one.
_ARTIFACTS = (
    (),
    ("src/app.py",),
    ("src/app.py", "docs/b.md"),
    ("b.md", "a.md", "日本/c.txt"),
)

_EFFECT_TOOLS = ("edit_file", "write_file", "run_command")
_CALL_ID_STYLES = ("call-{}", "c{}", "call {}", "呼叫-{}")
_GET_ERRORS = ("AgentError", "OSError")
#: Exceptions only a hardened evaluator must survive from a store's get.
HARDENED_GET_ERRORS = ("RuntimeError", "KeyError", "TypeError", "LookupFailure")


def marker(number: int) -> str:
    """The number-th marker: [A], [B], ..., [Z], [AA], ...; unique per number."""
    letters = ""
    number += 1
    while number:
        number, rest = divmod(number - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return f"[{letters}]"


def texts() -> st.SearchStrategy[str]:
    """Short file texts, the empty one first; none holds CR, "[" or "]"."""
    return st.sampled_from(_TEXTS)


def _protected_forms(index: int) -> tuple[tuple[str, ...], ...]:
    # Each form carries the index, so two protected files never collide.
    return (
        (f"p{index}", ".env"),
        (f"x{index}.pem",),
        (".git", f"x{index}"),
        (f"p{index}", "id_rsa"),
        (f"p{index}", "credentials"),
        (f".env.local{index}",),
        (f"X{index}.KEY",),
        (".ssh", f"k{index}"),
        (".aws", f"c{index}"),
        (f"p{index}", "id_ed25519"),
        (f"p{index}", ".ENV"),
    )


@dataclass(frozen=True)
class _FileDraft:
    kind: str
    dirs: tuple[str, ...]
    stem: str
    suffix: str
    text: str
    spelling: str
    form: int

    def at(self, index: int) -> FileFact:
        leaf = f"{self.stem}{index}{self.suffix}"
        if self.kind == "protected":
            forms = _protected_forms(index)
            parts = self.dirs + forms[self.form % len(forms)]
        elif self.kind == "symlinked_parent":
            parts = (*self.dirs, f"ln{index}", leaf)
        else:
            parts = (*self.dirs, leaf)
        return FileFact(index, parts, self.kind, self.text, self.spelling)


def file_facts(kinds: Sequence[str] = FILE_KINDS) -> st.SearchStrategy[_FileDraft]:
    """Drafts of file facts; `worlds` gives each its index (and so its path)."""
    return st.builds(
        _FileDraft,
        kind=st.sampled_from(kinds),
        dirs=st.sampled_from(_DIRS),
        stem=st.sampled_from(_STEMS),
        suffix=st.sampled_from(_SUFFIXES),
        text=texts(),
        spelling=st.sampled_from(SPELLINGS),
        form=st.integers(0, 10),
    )


def final_facts(kinds: Sequence[str] = FINAL_KINDS) -> st.SearchStrategy[FinalFact]:
    """How the run ended; `worlds` gives it its marker."""
    return st.builds(
        FinalFact,
        kind=st.sampled_from(kinds),
        words=st.sampled_from(_WORDS),
        reason=st.sampled_from(INCOMPLETE_REASONS),
    )


def _result_fact(tool: int, shift: int, kind: str, repeat: bool) -> ResultFact:
    # The other tool is `shift` places on from the tool: never the tool itself.
    return ResultFact(
        tool=TOOLS[tool],
        kind=kind,
        other_tool=TOOLS[(tool + 1 + shift) % len(TOOLS)],
        repeat=repeat,
    )


def result_facts(kinds: Sequence[str] = RESULT_KINDS) -> st.SearchStrategy[ResultFact]:
    """One result expectation and its events; `worlds` gives it its marker."""
    return st.builds(
        _result_fact,
        st.integers(0, len(TOOLS) - 1),
        st.integers(0, len(TOOLS) - 2),
        st.sampled_from(kinds),
        st.booleans(),
    )


@dataclass(frozen=True)
class _ReceiptDraft:
    style: str
    tool: str
    exit_state: str
    artifacts: tuple[str, ...]
    kind: str
    stored: str

    def at(self, index: int, mark: str) -> ReceiptFact:
        return ReceiptFact(
            call_id=self.style.format(index + 1),
            tool=self.tool,
            exit_state=self.exit_state,
            artifacts=self.artifacts,
            kind=self.kind,
            marker=mark,
            stored=self.stored,
        )


def receipt_facts(
    kinds: Sequence[str] = RECEIPT_KINDS,
    stored: Sequence[str] = ("put", "appended", "absent"),
) -> st.SearchStrategy[_ReceiptDraft]:
    """Drafts of receipt facts; `worlds` gives each its call id and marker."""
    return st.builds(
        _ReceiptDraft,
        style=st.sampled_from(_CALL_ID_STYLES),
        tool=st.sampled_from(_EFFECT_TOOLS),
        exit_state=st.sampled_from(("ok", "error")),
        artifacts=st.sampled_from(_ARTIFACTS),
        kind=st.sampled_from(kinds),
        stored=st.sampled_from(stored),
    )


def log_facts(
    *,
    stores: Sequence[str] = ("path", "memory", "missing"),
    tampers: Sequence[str] = ("none", "duplicate_identical", *LOG_TAMPER_KINDS),
    get_errors: Sequence[str | None] = (None, *_GET_ERRORS),
) -> st.SearchStrategy[LogFact]:
    """Which store evaluation gets, where its log is and how it is damaged."""
    return st.builds(
        LogFact,
        store=st.sampled_from(stores),
        location=st.sampled_from(("inside", "beside")),
        tamper=st.sampled_from(tampers),
        tamper_line=st.integers(0, 4),
        tamper_variant=st.integers(0, 6),
        get_raises=st.sampled_from(get_errors),
        workspace_store=st.sampled_from(("same", "separate")),
        extra=st.integers(0, 2),
    )


def noise_events() -> st.SearchStrategy[EventSpec]:
    """Events unrelated to every expectation: no marker in them."""
    return st.builds(
        noise_event,
        st.sampled_from(("tool", "invalid")),
        st.sampled_from(TOOLS),
        st.sampled_from(("", *_WORDS)),
    )


def _consistent_log(log: LogFact) -> LogFact:
    # Tampering only means something for a log file; a memory store has none.
    if log.store != "path":
        return replace(log, tamper="none")
    return log


def _assemble(
    final: FinalFact,
    drafts: list[_FileDraft],
    results: list[ResultFact],
    log: LogFact,
    receipt_drafts: list[_ReceiptDraft],
    noise: list[EventSpec],
    modified: int,
) -> World:
    files = tuple(d.at(i) for i, d in enumerate(drafts))
    marked = tuple(replace(r, marker=marker(1 + i)) for i, r in enumerate(results))
    receipts = tuple(
        d.at(i, marker(1 + len(marked) + i)) for i, d in enumerate(receipt_drafts)
    )
    # `modified` is a bit mask over the files: which of them the run lists.
    chosen = sorted(f.path for i, f in enumerate(files) if modified >> i & 1)
    return World(
        final=replace(final, marker=marker(0)),
        files=files,
        results=marked,
        receipts=receipts,
        log=_consistent_log(log),
        noise=tuple(noise),
        modified_files=tuple(chosen),
    )


def worlds(
    *,
    finals: st.SearchStrategy[FinalFact] | None = None,
    file_kinds: Sequence[str] = FILE_KINDS,
    result_kinds: Sequence[str] = RESULT_KINDS,
    receipt_kinds: Sequence[str] = RECEIPT_KINDS,
    stored: Sequence[str] = ("put", "appended", "absent"),
    logs: st.SearchStrategy[LogFact] | None = None,
    max_files: int = 3,
    max_results: int = 3,
    min_receipts: int = 0,
    max_receipts: int = 3,
    max_noise: int = 2,
) -> st.SearchStrategy[World]:
    """A whole world: a final, files, result events, receipts and a log.

    Each fact gets its index (so its path or call id is unique) and its
    marker (so its substring occurs only where it put it). Every argument
    narrows what is drawn; `None` means the full range. The parts are built
    once, here, so drawing a world is only drawing.
    """
    return st.builds(
        _assemble,
        finals if finals is not None else final_facts(),
        st.lists(file_facts(file_kinds), max_size=max_files),
        st.lists(result_facts(result_kinds), max_size=max_results),
        logs if logs is not None else log_facts(),
        st.lists(
            receipt_facts(receipt_kinds, stored),
            min_size=min_receipts,
            max_size=max_receipts,
        ),
        st.lists(noise_events(), max_size=max_noise),
        st.integers(0, 2**max_files - 1),
    )


def passing_worlds(**narrowing: Any) -> st.SearchStrategy[World]:
    """Worlds whose every check must pass: the base of single-fact perturbations."""
    settings: dict[str, Any] = {
        "finals": final_facts(FINAL_PASS_KINDS),
        "file_kinds": FILE_PASS_KINDS,
        "result_kinds": RESULT_PASS_KINDS,
        "receipt_kinds": RECEIPT_PASS_KINDS,
        "stored": ("put", "appended"),
        "logs": log_facts(
            stores=("path", "memory"),
            tampers=("none", "duplicate_identical"),
            get_errors=(None,),
        ),
    }
    settings.update(narrowing)
    return worlds(**settings)


# --- explicit worlds, one per kind -------------------------------------------------

_TEXT = "answer = 2\nnext é 日\n"
_NOISE = (
    noise_event("invalid", "read_file", "oops"),
    noise_event("tool", "list_files", "src"),
)


def _file_world(kind: str, spelling: str = "plain") -> World:
    parts = ("src", "app0.py")
    if kind == "protected":
        parts = (".env",)
    elif kind == "symlinked_parent":
        parts = ("src", "ln0", "app0.py")
    return World(files=(FileFact(0, parts, kind, _TEXT, spelling),))


def _result_world(kind: str) -> World:
    return World(
        results=(ResultFact("run_command", kind, marker(1), "edit_file"),),
        noise=_NOISE,
    )


def _receipt_world(kind: str, stored: str = "put", **log: Any) -> World:
    return World(
        receipts=(
            ReceiptFact(
                "call-1",
                "edit_file",
                "ok",
                ("src/app.py", "docs/b.md"),
                kind,
                marker(1),
                stored,
            ),
            ReceiptFact("call-2", "run_command", "error", (), "match", marker(2)),
        ),
        log=LogFact(**log),
    )


def _everything_world() -> World:
    files = tuple(
        FileFact(i, ("src", f"f{i}.txt"), kind, _TEXT, SPELLINGS[i % len(SPELLINGS)])
        for i, kind in enumerate(k for k in FILE_KINDS if k not in _SPECIAL_PATHS)
    )
    return World(
        final=FinalFact("embedded", marker(0)),
        files=files,
        results=tuple(
            ResultFact(
                TOOLS[i % len(TOOLS)],
                kind,
                marker(1 + i),
                TOOLS[(i + 1) % len(TOOLS)],
                repeat=i == 0,
            )
            for i, kind in enumerate(RESULT_KINDS)
        ),
        receipts=tuple(
            ReceiptFact(
                f"call-{i + 1}",
                "edit_file",
                "ok",
                ("src/app.py", "docs/b.md"),
                kind,
                marker(1 + len(RESULT_KINDS) + i),
            )
            for i, kind in enumerate(RECEIPT_KINDS)
        ),
        log=LogFact(location="beside"),
        noise=_NOISE,
        modified_files=("src/f0.txt",),
    )


_SPECIAL_PATHS = ("protected", "symlinked_parent")

#: Hand-written worlds, each named; every kind of fact appears in one.
EXAMPLE_WORLDS: dict[str, World] = {
    **{f"final {k}": World(final=FinalFact(k)) for k in FINAL_KINDS},
    **{
        f"final {k} ({reason})": World(final=FinalFact(k, reason=reason))
        for k in ("incomplete", "incomplete_without_final")
        for reason in INCOMPLETE_REASONS[1:]
    },
    **{f"file {k}": _file_world(k) for k in FILE_KINDS},
    **{f"file spelled {s}": _file_world("exact", s) for s in SPELLINGS[1:]},
    **{f"result {k}": _result_world(k) for k in RESULT_KINDS},
    "result listed twice": World(
        results=(ResultFact("read_file", "embedded", marker(1), repeat=True),),
        noise=_NOISE,
    ),
    **{f"receipt {k}": _receipt_world(k) for k in RECEIPT_KINDS},
    "receipt appended after the store was built": _receipt_world("match", "appended"),
    "receipt absent": _receipt_world("match", "absent"),
    "receipts in memory": _receipt_world("match", store="memory"),
    "receipts beside the root": _receipt_world("match", location="beside"),
    "receipts with a separate workspace store": _receipt_world(
        "match", workspace_store="separate"
    ),
    "receipt log missing": _receipt_world("match", "absent", store="missing"),
    **{
        f"memory store whose get raises {e}": _receipt_world(
            "match", store="memory", get_raises=e
        )
        for e in _GET_ERRORS
    },
    "path store whose get raises": _receipt_world("match", get_raises="AgentError"),
    "receipt log with an identical repeated line": _receipt_world(
        "match", tamper="duplicate_identical", extra=1
    ),
    # The damaged line is the unrelated receipt's (line 0), so both declared
    # receipts sit on intact lines and must fail all the same.
    **{
        f"receipt log {k}": _receipt_world("match", tamper=k, extra=1)
        for k in LOG_TAMPER_KINDS
    },
    "everything at once": _everything_world(),
}


#: Worlds worth trying first in every world-based property: between them
#: they hold almost every kind of fact, so most mistakes fail on one of them
#: in the explicit phase, whatever the seed and without a long shrink.
BROAD_EXAMPLES = (
    "everything at once",
    "receipt log non_json",
    "memory store whose get raises AgentError",
    "receipt log missing",
    "final incomplete_without_final",
)


def examples(*names: str, argument: str = "world") -> Callable[[F], F]:
    """Apply `@example` for the named EXAMPLE_WORLDS (all of them by default),
    after the BROAD_EXAMPLES."""
    chosen = tuple(dict.fromkeys((*BROAD_EXAMPLES, *names))) if names else ()
    chosen = chosen or tuple(EXAMPLE_WORLDS)

    def decorate(test: F) -> F:
        for name in reversed(chosen):
            test = example(**{argument: EXAMPLE_WORLDS[name]})(test)
        return test

    return decorate


def unavailable_worlds() -> st.SearchStrategy[World]:
    """Worlds whose files are all unavailable evidence, and whose log may be too."""
    return worlds(
        file_kinds=FILE_UNAVAILABLE_KINDS,
        logs=log_facts(
            tampers=("none", *LOG_TAMPER_KINDS),
        ),
    )
