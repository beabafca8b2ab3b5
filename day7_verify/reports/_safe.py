"""A learner's text made safe for each place a report puts it.

Everything a learner chooses (its folder's name, what its code raised or
printed) is data: never a broken file, a terminal escape or code. Two
boundaries, one per medium:

- `data_text` for every report file: a lone surrogate (a folder name that
  is not UTF-8, decoded by `os.fsdecode`, or a surrogate in an error
  message) cannot be written as UTF-8, so the JSON writer would raise and
  take every report with it. Each becomes a visible escape: `\\xff` for the
  byte a non-UTF-8 name had, `\\ud800` for any other lone surrogate.
  `ClassReport` applies it to every learner it is given (`clean_verdict`).
- `terminal_text` for what the command prints: control characters (C0, DEL,
  C1) and the bidirectional overrides a terminal would obey are shown as
  escapes (`\\x1b`, `\\u202e`), so a learner's text cannot move the cursor,
  recolour, hide or rewrite a line, or start a new one (a newline is shown
  as `\\n`: the layout makes lines, a learner's text never does).

HTML escapes with `html.escape`, JUnit drops what XML 1.0 forbids; both
receive text `data_text` has already cleaned.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, TypeVar

__all__ = [
    "clean_verdict",
    "data_text",
    "data_value",
    "exact_bytes",
    "terminal_text",
]

_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 (newline and tab too: each is the layout's to place), DEL, C1; the
# bidirectional marks, embeddings, overrides and isolates; the line and
# paragraph separators some terminals break lines at.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _surrogate(match: re.Match[str]) -> str:
    point = ord(match[0])
    if 0xDC80 <= point <= 0xDCFF:
        # os.fsdecode's surrogateescape: the name's undecodable byte.
        return f"\\x{point - 0xDC00:02x}"
    return f"\\u{point:04x}"


def data_text(text: str) -> str:
    """`text` with every lone surrogate shown as an escape: valid UTF-8."""
    return _SURROGATE.sub(_surrogate, text)


def _control(match: re.Match[str]) -> str:
    char = match[0]
    if char in _SHORT:
        return _SHORT[char]
    point = ord(char)
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


def terminal_text(text: str) -> str:
    """One terminal line of `text`: surrogates and controls as visible escapes."""
    return _UNSAFE.sub(_control, data_text(text))


_Value = TypeVar("_Value")


def data_value(value: _Value) -> _Value:
    """`value` (strings, lists, tuples, mappings of them) with `data_text` applied."""
    if isinstance(value, str):
        return data_text(value)  # type: ignore[return-value]
    if isinstance(value, tuple):
        return tuple(data_value(item) for item in value)  # type: ignore[return-value]
    if isinstance(value, list):
        return [data_value(item) for item in value]  # type: ignore[return-value]
    if isinstance(value, Mapping):
        return {data_value(k): data_value(v) for k, v in value.items()}  # type: ignore[return-value]
    return value


def exact_bytes(text: str) -> bytes:
    """The bytes a name (decoded with `os.fsdecode`) was made of: a learner's
    identity, which escaping can never make equal to another's."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate no file name decodes to
        return text.encode("utf-8", "surrogatepass")


def clean_verdict(verdict: Any) -> Any:
    """A LearnerVerdict whose every string is valid UTF-8 (`data_text`); a
    path that changed keeps its exact bytes (`name_bytes`), so two names
    that escape alike are still two learners."""
    path = data_text(verdict.path)
    keep = verdict.name_bytes
    if keep is None and path != verdict.path:
        keep = exact_bytes(verdict.path)
    return replace(
        verdict,
        path=path,
        name_bytes=keep,
        detail=data_text(verdict.detail),
        invariants=data_value(verdict.invariants),
        lessons=tuple(data_value(dict(item)) for item in verdict.lessons),
        statements=data_value(dict(verdict.statements)),
        running=None if verdict.running is None else data_value(dict(verdict.running)),
        output_tail=None
        if verdict.output_tail is None
        else data_text(verdict.output_tail),
        baseline=None
        if verdict.baseline is None
        else data_value(dict(verdict.baseline)),
    )
