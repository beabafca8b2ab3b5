"""The worlds written out, one per kind of fact: test data, not strategies.

Made from the kind tables (so a new kind gets its example by itself) and kept
beside the properties that run them as explicit examples, so every mistake a
kind exists to catch is caught on every run, whatever the seed:
`EXAMPLE_WORLDS` for course-level kinds, `TRAP_WORLDS` for hardened ones,
made from the written facts: `FINAL_EXAMPLES`, `FINAL_TRAPS`,
`RECEIPT_EXAMPLES`, `LOG_EXAMPLES`, and `CONTENT_EXAMPLES` for the contents
the file kinds once listed (the results' written facts stay in
strategies/results.py, where `PASSING_WORLD` takes one). Shipped with
the suite (day7_verify/suite/invariants); imported by its basename, as pytest
puts this folder on sys.path (tests/bundled and tests/meta add it too).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from strategies.draw import _TWO, _across, _hardened_only, _moved, examples_of
from strategies.edits import KEPT, Edit
from strategies.files import (
    FILE_KINDS,
    FOREIGN_FORMS,
    SPELLINGS,
    FileFact,
    PathDraft,
    file_path,
)
from strategies.finals import VALUES, FinalFact
from strategies.logs import (
    COURSE_GET_ERRORS,
    HARDENED_GET_ERRORS,
    LOG_KINDS,
    LogDamage,
    LogFact,
)
from strategies.receipts import PLACES, ReceiptFact
from strategies.results import RESULT_EXAMPLES, RESULT_TRAPS, ResultFact, noise_event
from strategies.vocabulary import BOM, INCOMPLETE_REASONS, TOOLS, marker
from strategies.world import World

__all__ = [
    "BROAD_EXAMPLES",
    "CONTENT_EXAMPLES",
    "EXAMPLE_WORLDS",
    "FINAL_EXAMPLES",
    "FINAL_TRAPS",
    "LOG_EXAMPLES",
    "RECEIPT_EXAMPLES",
    "TRAP_WORLDS",
    "examples",
]

F = TypeVar("F", bound=Callable[..., Any])

_FINAL_AROUND = ("done:", ".done")
#: Written-out finals, one per mistake the old kind table named, kept as
#: explicit examples so each is met under any seed.
FINAL_EXAMPLES: dict[str, FinalFact] = {
    "embedded": FinalFact(),
    "exact": FinalFact(("", "")),
    "padded_edges": FinalFact(("", ""), head=" ", tail="\n"),
    "absent": FinalFact(("done:.done",), ()),
    "extended": FinalFact(_FINAL_AROUND, ("prefix",)),
    "case_changed": FinalFact(_FINAL_AROUND, ("other_case",)),
    "case_asked_other": FinalFact(_FINAL_AROUND, marker="[a]", asked="other_case"),
    "final_event_differs": FinalFact(closing="other"),
    "only_final_event_holds": FinalFact(("done:.done",), (), closing="asked"),
    "completed_reason_limit": FinalFact(reason="step_limit"),
    "incomplete_reason_completed": FinalFact(completed=False),
    "completed_without_final_event": FinalFact(closing="none"),
    "nfd_asked_nfc": FinalFact(_FINAL_AROUND, ("decomposed",), marker="[é]"),
    "ligature_asked_plain": FinalFact(_FINAL_AROUND, ("ligature",), marker="[fi]"),
    "zero_width_inside": FinalFact(_FINAL_AROUND, ("zero_width",)),
    "none_asked_none": FinalFact(value="none", marker="None"),
    "padded_absent": FinalFact(_FINAL_AROUND, ("unpadded",), head=" ", tail=" "),
    "incomplete": FinalFact(completed=False, reason="step_limit"),
    "incomplete_without_final": FinalFact(
        completed=False, reason="step_limit", value="none", closing="none"
    ),
    "completed_without_final": FinalFact(value="none", closing="none"),
    "repeated": FinalFact(("a ", " b ", " c"), ("it", "it")),
    "overlapping": FinalFact(
        ("", "", ""), ("it", "it"), head="x", tail="x", overlap=True
    ),
    "past_the_first_line": FinalFact(("first line\nsecond ", ""), ("it",)),
    "far_from_the_start": FinalFact(("é" * 120 + " ", "."), ("it",)),
    "look_alike_then_it": FinalFact(("", " and ", ""), ("other_case", "it")),
}
#: Hardened: a final of another type (only a hardened evaluator survives).
FINAL_TRAPS: dict[str, FinalFact] = {
    f"final_{value}": FinalFact(value=value) for value in VALUES[2:]
}

_RECEIPT_AROUND = ("done ", " ok")
#: Written-out receipts, one per mistake the old kind table named: changes
#: to a receipt of two artifacts ("src/app.py", "docs/b.md"), kept as
#: explicit examples so each is met under any seed.
RECEIPT_EXAMPLES: dict[str, dict[str, object]] = {
    "match": {},
    "match_spelled": {"spellings": ("dot_slash", "double_slash")},
    "match_error_result": {"layout": FinalFact(("error: could not finish near ", ""))},
    "match_repeated": {"layout": FinalFact(("a ", " b ", " c"), ("it", "it"))},
    "match_past_the_first_line": {"layout": FinalFact(("status: 1\noutput:\n", ""))},
    "match_far_from_the_start": {"layout": FinalFact(("é" * 90, "."))},
    "artifacts_joined": {"joined": True},
    "tool": {"expected_tool": "write_file"},
    "tool_case": {"expected_tool": "EDIT_FILE"},
    "tool_prefix": {"expected_tool": "edit_fil"},
    "tool_extended": {"expected_tool": "edit_files"},
    "exit_state": {"other_exit": True},
    "result": {"layout": FinalFact(_RECEIPT_AROUND, ("prefix",))},
    "result_case": {"layout": FinalFact(asked="other_case")},
    "stored_case_changed": {"layout": FinalFact(_RECEIPT_AROUND, ("other_case",))},
    "result_nfd_held": {
        "layout": FinalFact(_RECEIPT_AROUND, ("decomposed",)),
        "marker": "[é]",
    },
    "result_ligature_held": {
        "layout": FinalFact(_RECEIPT_AROUND, ("ligature",)),
        "marker": "[fi]",
    },
    "result_zero_width": {"layout": FinalFact(_RECEIPT_AROUND, ("zero_width",))},
    "artifacts_nfd_stored": {"artifacts": ("out/cafe\u0301.txt",), "form": "NFC"},
    "artifacts_unnormalised_stored": {"artifacts": ("./src/app.py", "docs//b.md")},
    "artifacts_reversed": {"picks": (1, 0)},
    "artifacts_prefix": {"picks": (0,)},
    "artifacts_suffix": {"picks": (1,)},
    "artifacts_superset": {"picks": (0, 1, 2)},
    "artifacts_twice": {"picks": (0, 1, 0, 1)},
    "artifacts_missing": {"picks": ()},
    "artifacts_unexpected": {"artifacts": (), "picks": (0,)},
    "call_id_case": {"other_id": True},
    **{
        f"marker_in_{place}": {
            "layout": FinalFact((" done ok",), ()),
            "elsewhere": (place,),
        }
        for place in PLACES
    },
}

#: Written-out damage, one per kind the old table named (and a few more),
#: kept as explicit examples so each is met under any seed. Line 0 is the
#: first line (an unrelated receipt's, in the example worlds).
LOG_EXAMPLES: dict[str, LogDamage] = {
    "duplicate_identical": LogDamage("repeat"),
    "raw_unicode": LogDamage("raw"),
    "crlf": LogDamage("endings", arg="\r\n"),
    "emptied": LogDamage("cut"),
    "cut_after_the_first_line": LogDamage("cut", 0, -1),
    "non_json": LogDamage("line", arg="this line is not JSON"),
    "trailing_garbage": LogDamage("line", -1, arg="#"),
    "truncated": LogDamage("cut", -1, 9),
    "invalid_utf8": LogDamage("byte", 0, 40, "\xff"),
    "non_object": LogDamage("line", arg="[]"),
    "non_object_in_place": LogDamage("line", 0, 1, '["call-1"]'),
    "missing_key": LogDamage("key", arg="receipt_id"),
    "renamed_key": LogDamage("key", arg="tool", value="Tool"),
    "extra_key": LogDamage("key", value="note"),
    "stale_digest": LogDamage("field", arg="result"),
    "type_changed": LogDamage("field", arg="changed_artifacts", value="null"),
    "conflict": LogDamage("repeat", arg="conflict"),
}

_TEXT = "answer = 2\nnext é 日\n"
_NOISE = (
    noise_event("invalid", "read_file", "oops"),
    noise_event("tool", "list_files", "src"),
)
_DRAFT = PathDraft(("src",), "app", ".py")


def _file_world(
    kind: str, spelling: str = "plain", variant: int = 1, text: str = _TEXT
) -> World:
    fact = replace(file_path(kind, _DRAFT, 0, variant), text=text)
    if FILE_KINDS[kind].spellable:
        fact = replace(fact, spelling=spelling)
    return World(files=(fact,))


def _content_world(text: str, edit: Edit) -> World:
    fact = _file_world("exact", text=text).files[0]
    return World(files=(replace(fact, edit=edit),))


_NFC = "caf\u00e9 na\u00efve"
_NFD = "cafe\u0301 nai\u0308ve"
_LARGE = _across("", "\u00e9 answer = 2\n", 96 * 1024, "\u00e9", 0)  # past 64 KiB
_BAD = "\udcff\udcc0\udcaf\udce2\udc82"  # three sorts of invalid UTF-8, as bytes

#: The contents the kind table once listed, each a base text and one edit,
#: written out so every mistake they caught is met under any seed.
CONTENT_EXAMPLES: dict[str, tuple[str, Edit]] = {
    "exact": (_TEXT, KEPT),
    "exact_empty": ("", KEPT),
    "exact_crlf": (_TEXT.replace("\n", "\r\n"), KEPT),
    "exact_cr": (_TEXT.replace("\n", "\r"), KEPT),
    "exact_mixed": ("one\r\ntwo\rthree\nfour", KEPT),
    "exact_bom": (BOM + _TEXT, KEPT),
    "exact_no_final_newline": (_TEXT.rstrip("\n"), KEPT),
    "exact_padded": (f"  {_TEXT} \n\n", KEPT),
    "exact_large": (_LARGE, KEPT),
    # A character across a 4 KiB chunk's end (two bytes of "é" either side),
    # and a four-byte one across 8 KiB: a file read in chunks must join them.
    "exact_wide_across_4k": (_across("\n", _TEXT, 4096, "\u00e9", 0), KEPT),
    "exact_wide_across_8k": (_across("", "é日\n", 8192, "\U0001f600", 1), KEPT),
    "exact_nfd": (_TEXT + _NFD, KEPT),
    "exact_nfc_unchanged": (_TEXT + _NFC, Edit("normalise", arg="NFC")),
    "exact_ascii_as_latin1": ("answer = 2\n", Edit("encode", arg="latin-1")),
    "wrong_byte": (_TEXT, Edit("byte", 3, "x")),
    "crlf_twin": (_TEXT, Edit("endings", arg="\r\n")),
    "cr_twin": (_TEXT, Edit("endings", arg="\r")),
    "lf_twin": (_TEXT.replace("\n", "\r\n"), Edit("endings", arg="\n")),
    "bom_added": (_TEXT, Edit("bom")),
    "bom_removed": (_TEXT, Edit("bom", side="case")),
    "newline_added": (_TEXT, Edit("trail", arg="\n")),
    "newline_removed": (_TEXT, Edit("trail", arg="\n", side="case")),
    "padded": (_TEXT, Edit("insert", 0, " ")),
    "spaces_appended": (_TEXT, Edit("trail", arg=" \t")),
    "stripped": (f" {_TEXT} ", Edit("strip")),
    "line_end_spaces": (_TEXT, Edit("line_blanks", arg=" \t")),
    "ligature_on_disk": (_TEXT + "\ufb01", Edit("normalise", arg="NFKC", side="case")),
    "longer": (_TEXT, Edit("insert", -1, "x")),
    "shorter": (_TEXT, Edit("insert", -1, "|", side="case")),
    "truncated": (_TEXT, Edit("truncate", -2)),
    "embedded": (_TEXT, Edit("insert", 0, "x")),
    "emptied": (_TEXT, Edit("truncate", 0)),
    "filled": ("", Edit("insert", 0, "a")),
    "large_tail": (_LARGE, Edit("byte", -2, "x")),
    "case_swapped": (_TEXT + "Ab", Edit("case", arg="swapcase")),
    "nfd_on_disk": (_TEXT + _NFC, Edit("normalise", arg="NFD")),
    "nfc_on_disk": (_TEXT + _NFD, Edit("normalise", arg="NFC")),
    "content_lone_surrogate": (_TEXT, Edit("insert", -1, "\udcff", side="case")),
    "utf16": (_TEXT, Edit("encode", arg="utf-16")),
    "invalid_utf8": (_TEXT, Edit("insert", 5, "\udcff")),
    "invalid_utf8_replaced": (_TEXT, Edit("insert", 5, "\udcff", reading="replace")),
    "invalid_utf8_truncated": (_TEXT + "\u00e9", Edit("truncate", -2)),
    "invalid_utf8_latin1": (_TEXT, Edit("encode", arg="latin-1", reading="latin-1")),
    **{
        f"invalid_utf8_as_{reading}": (_TEXT, Edit("insert", 5, _BAD, reading=reading))
        for reading in ("surrogateescape", "replace", "ignore")
    },
}


def _result_world(fact: ResultFact) -> World:
    return World(
        results=(_moved(fact, "run_command", marker(1), "edit_file"),),
        noise=_NOISE,
    )


def _receipt_world(name: str = "match", stored: str = "put", **log: Any) -> World:
    """Two receipts, the first changed as RECEIPT_EXAMPLES[name] says."""
    first: Any = {"artifacts": _TWO, "marker": marker(1), **RECEIPT_EXAMPLES[name]}
    return World(
        receipts=(
            ReceiptFact("call-1", "edit_file", "ok", stored=stored, **first),
            ReceiptFact("call-2", "run_command", "error", (), marker(2)),
        ),
        log=LogFact(**log),
    )


def _everything_world() -> World:
    placed = [
        (k, _TEXT, KEPT) for k in FILE_KINDS.names() if not FILE_KINDS[k].own_path
    ]
    contents = [("exact", text, edit) for text, edit in CONTENT_EXAMPLES.values()]
    files = tuple(
        FileFact(i, ("src", f"f{i}.txt"), kind, text, SPELLINGS[i % 5], edit=edit)
        for i, (kind, text, edit) in enumerate([*placed, *contents])
    )
    results = list(RESULT_EXAMPLES.values())
    return World(
        final=FinalFact(),
        files=files,
        results=tuple(
            _moved(
                fact,
                TOOLS[i % len(TOOLS)],
                marker(1 + i),
                TOOLS[(i + 1) % len(TOOLS)],
                repeat=i == 0,
            )
            for i, fact in enumerate(results)
        ),
        receipts=tuple(
            replace(
                _receipt_world(name).receipts[0],
                call_id=f"call-{i + 1}",
                marker=marker(1 + len(results) + i),
            )
            for i, name in enumerate(RECEIPT_EXAMPLES)
            if "marker" not in RECEIPT_EXAMPLES[name]
        ),
        log=LogFact(location="beside"),
        noise=_NOISE,
        modified_files=("src/f0.txt",),
    )


#: Hand-written worlds, each named; every course-level kind appears in one.
EXAMPLE_WORLDS: dict[str, World] = {
    **{f"final {k}": World(final=fact) for k, fact in FINAL_EXAMPLES.items()},
    **{
        f"final {k} ({reason})": World(final=replace(FINAL_EXAMPLES[k], reason=reason))
        for k in ("incomplete", "incomplete_without_final", "completed_reason_limit")
        for reason in INCOMPLETE_REASONS[1:]
    },
    **{f"file {k}": _file_world(k) for k in FILE_KINDS.names() if k != "exact"},
    **{f"file {k}": _content_world(*made) for k, made in CONTENT_EXAMPLES.items()},
    **{f"file spelled {s}": _file_world("exact", s) for s in SPELLINGS[1:]},
    # Every way of writing a name another system reads as a separator or a
    # drive, so each conversion is met under any seed.
    **{
        f"file {k} (form {form})": _file_world(k, variant=form)
        for k in (
            "name_foreign_beside_converted",
            "name_foreign_converted_matches",
            "name_foreign_only_converted",
        )
        for form in range(FOREIGN_FORMS)
    },
    **{f"result {k}": _result_world(fact) for k, fact in RESULT_EXAMPLES.items()},
    "result listed twice": World(
        results=(ResultFact("read_file", marker=marker(1), repeat=True),),
        noise=_NOISE,
    ),
    **{f"receipt {k}": _receipt_world(k) for k in RECEIPT_EXAMPLES},
    "receipt appended after the store was built": _receipt_world("match", "appended"),
    "receipt absent": _receipt_world("match", "absent"),
    "receipts in memory": _receipt_world("match", store="memory"),
    "receipts beside the root": _receipt_world("match", location="beside"),
    "receipts through a symlinked directory": _receipt_world(
        "match", location="linked"
    ),
    "receipts with a separate workspace store": _receipt_world(
        "match", workspace_store="separate"
    ),
    "receipt log missing": _receipt_world("match", "absent", store="missing"),
    **{
        f"memory store whose get raises {e}": _receipt_world(
            "match", store="memory", get=e
        )
        for e in COURSE_GET_ERRORS
    },
    "path store whose get raises": _receipt_world("match", get="AgentError"),
    # The damaged line is the unrelated receipt's (line 0), so both declared
    # receipts sit on intact lines and must fail all the same.
    **{
        f"receipt log {k}": _receipt_world(damage=damage, extra=1)
        for k, damage in LOG_EXAMPLES.items()
    },
    "receipt log directory": _receipt_world(trap="directory", extra=1),
    "receipt log unreadable": _receipt_world(trap="unreadable", extra=1),
    # Names a shell expands ("~", "$HOME"), a format reads ("%", "{}") or a
    # joined list splits (", "), each holding exactly what is expected.
    "file names meaningful elsewhere": World(
        files=tuple(
            FileFact(i, parts, "exact", _TEXT)
            for i, parts in enumerate(
                (("~", "a.txt"), ("$HOME", "b.txt"), ("100%", "{x}, y %s.txt"))
            )
        )
    ),
    "file missing, expected empty": _file_world("missing", text=""),
    "final inside markup": World(final=FinalFact(("done <think>", "</think> ok"))),
    "final with escapes and non-ASCII": World(
        final=FinalFact(("saved C:\\new\\é ", " \\u00e9 done"), marker="[é]")
    ),
    "result in a run of thousands of events": replace(
        _result_world(RESULT_EXAMPLES["after_decoy"]), padding=1500
    ),
    "events all at step 0": replace(
        _result_world(RESULT_EXAMPLES["after_decoy"]), numbering=(0, 0)
    ),
    "events two to a step": replace(
        _result_world(RESULT_EXAMPLES["after_decoy"]), numbering=(1, 2)
    ),
    "receipt of a write mismatching, in memory": World(
        receipts=(
            ReceiptFact("call-1", "write_file", "ok", _TWO, marker(1), other_exit=True),
        ),
        log=LogFact(store="memory"),
    ),
    "events handed over as a list": replace(
        _result_world(RESULT_EXAMPLES["after_decoy"]), events_as_list=True
    ),
    "everything at once": _everything_world(),
    # Each kind of evidence holds the other's substrings: a result held only
    # by a stored receipt, a receipt's facts held only by an event.
    "crossed evidence": World(
        results=(
            ResultFact("run_command", (), marker(1), "edit_file"),
            ResultFact("edit_file", ("it",), marker(2), "read_file"),
        ),
        receipts=(
            ReceiptFact("call-1", "edit_file", "ok", (), marker(3)),
            ReceiptFact("call-2", "write_file", "ok", (), marker(4), "absent"),
            replace(
                _receipt_world("marker_in_call_id").receipts[0],
                call_id="call-3",
                marker=marker(5),
            ),
        ),
        noise=_NOISE,
        crossed=True,
    ),
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


#: One small world per hardened kind (a trap beside a passing final), the
#: simplest traps first: files, logs and lookups, events, finals.
TRAP_WORLDS: dict[str, World] = {
    **{f"trap file {k}": _file_world(k) for k in _hardened_only(FILE_KINDS)},
    **{f"trap log {k}": _receipt_world(trap=k) for k in _hardened_only(LOG_KINDS)},
    **{
        f"trap lookup {e}": _receipt_world("match", store="memory", get=e)
        for e in HARDENED_GET_ERRORS
    },
    **{f"trap result {k}": _result_world(fact) for k, fact in RESULT_TRAPS.items()},
    **{f"trap final {k}": World(final=fact) for k, fact in FINAL_TRAPS.items()},
}


def examples(*names: str, argument: str = "world") -> Callable[[F], F]:
    """Apply `@example` for the named EXAMPLE_WORLDS (all of them by default),
    after the BROAD_EXAMPLES."""
    chosen = tuple(dict.fromkeys((*BROAD_EXAMPLES, *names))) if names else ()
    chosen = chosen or tuple(EXAMPLE_WORLDS)
    return examples_of([EXAMPLE_WORLDS[name] for name in chosen], argument)
