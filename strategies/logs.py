"""The receipt log: which store evaluation is handed, and how its log is damaged.

Logs are never written by hand. A valid line is whatever the target's own
`ReceiptStore(path).put(EffectReceipt(...))` appends; damage then works on
the bytes (or replaces the file by what a kind puts there), so every kind of
damage is exactly the damage named and nothing else. The byte functions are
pure.

A log kind's `effect` says what it does to every receipt check: "valid" (each
receipt is judged by its own fact), "unavailable" (every check fails with
'receipt evidence unavailable: ...') or "absent" (nothing is stored, so every
check fails with 'receipt is absent').
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from strategies.kinds import FAIL, PASS, UNAVAILABLE, Kind, Kinds

__all__ = [
    "COURSE_GET_ERRORS",
    "HARDENED_GET_ERRORS",
    "LOCATIONS",
    "LOG_KINDS",
    "LogFact",
    "LogKind",
    "TamperError",
    "call_id_of",
    "tamper",
]

#: What an in-memory store's `get` may raise at the course level (the course's
#: reference catches these two), and what only a hardened evaluator survives;
#: "junk": `get` returns a dict instead of a receipt.
COURSE_GET_ERRORS = ("AgentError", "OSError")
HARDENED_GET_ERRORS = (
    "RuntimeError",
    "KeyError",
    "TypeError",
    "AttributeError",
    "RecursionError",
    "LookupFailure",
    "junk",
)

_STORES = ("path", "memory", "missing")
#: Where the log is: in the workspace root, beside it, or beside it in a
#: directory reached through a symlink (so resolving its path changes it).
LOCATIONS = ("inside", "beside", "linked")


@dataclass(frozen=True)
class LogFact:
    """Which store evaluation is handed, and what its log holds.

    store: "path" (a ReceiptStore over a log file), "memory" (no path) or
    "missing" (a path whose log does not exist). `location` puts the log in
    the workspace root ("inside"), beside it, or beside it through a
    symlinked directory ("linked"). `kind` is the log's damage
    (for a path store), `line` and `variant` pick where and how. `get`
    names what the handed store's `get` raises, or "junk" for a `get` that
    returns a dict (None: it works). `workspace_store` is "same" (the
    workspace holds the store evaluation is given) or "separate" (the
    workspace holds another, empty one). `extra` unrelated receipts are
    stored first.
    """

    store: str = "path"
    location: str = "inside"
    kind: str = "none"
    line: int = 0
    variant: int = 0
    get: str | None = None
    workspace_store: str = "same"
    extra: int = 0

    def __post_init__(self) -> None:
        LOG_KINDS[self.kind]  # an unknown kind is refused here, at once
        if self.store not in _STORES:
            raise ValueError(f"log: store {self.store!r}")
        if self.store != "path" and self.kind != "none":
            raise ValueError(f"log: a {self.store} store has no log to damage")
        if self.location not in LOCATIONS:
            raise ValueError(f"log: location {self.location!r}")
        if self.get not in (None, *COURSE_GET_ERRORS, *HARDENED_GET_ERRORS):
            raise ValueError(f"log: get {self.get!r}")


@dataclass(frozen=True)
class LogKind(Kind):
    """A kind of log: its effect on every receipt check, and how it is made.

    `damage(data, line, variant, conflict)` rewrites a valid log's bytes;
    `replace` names what stands at the log path instead ("directory", "fifo",
    "symlink_to_fifo", "sparse", "million_lines", "long_line", "unreadable").
    `needs_line`: the damage works on an existing line, so one is stored.
    """

    effect: str = "valid"
    damage: Callable[[bytes, int, int, bytes], bytes] | None = None
    replace: str = ""
    needs_line: bool = False
    #: The log must hold an unrelated receipt (whose result is not ASCII).
    needs_extra: bool = False


class TamperError(Exception):
    """The log does not have the lines the tampering needs."""


#: JSON values that are not objects, one per line.
NON_OBJECTS = ("[]", "42", "null", '"receipt"', "true", '["call-1"]')
#: Keys one line may lose.
MISSING_KEYS = (
    "receipt_id",
    "tool",
    "result",
    "changed_artifacts",
    "tool_call_id",
    "exit_state",
    "arguments",
)
#: Fields changed under a stale digest.
STALE_FIELDS = (
    "result",
    "tool",
    "exit_state",
    "changed_artifacts",
    "arguments",
    "tool_call_id",
)


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _pick(lines: list[bytes], index: int) -> int:
    if not lines:
        raise TamperError("the log has no line to tamper with")
    return index % len(lines)


def _dump(payload: object) -> bytes:
    return (json.dumps(payload, sort_keys=True) + "\n").encode()


def _changed(payload: dict[str, Any], field: str) -> dict[str, Any]:
    changed = dict(payload)
    value = changed.get(field)
    if field == "exit_state":
        changed[field] = "error" if value == "ok" else "ok"
    elif field == "changed_artifacts":
        changed[field] = [*(value or []), "tampered.txt"]
    elif field == "arguments":
        changed[field] = {**(value or {}), "tampered": True}
    else:
        changed[field] = f"{value}!"
    return changed


def _insert(value: Callable[[int], bytes]) -> Callable[[bytes, int, int, bytes], bytes]:
    def damage(data: bytes, line: int, variant: int, conflict: bytes) -> bytes:
        lines = _lines(data)
        i = line % (len(lines) + 1)
        return b"".join([*lines[:i], value(variant), *lines[i:]])

    return damage


def _one_line(
    change: Callable[[bytes, bool, int], bytes],
) -> Callable[[bytes, int, int, bytes], bytes]:
    """Damage that rewrites one existing line: `change(line, is_last, variant)`."""

    def damage(data: bytes, line: int, variant: int, conflict: bytes) -> bytes:
        lines = _lines(data)
        i = _pick(lines, line)
        damaged = change(lines[i], i == len(lines) - 1, variant)
        return b"".join([*lines[:i], damaged, *lines[i + 1 :]])

    return damage


def _repeated(data: bytes, line: int, variant: int, conflict: bytes) -> bytes:
    lines = _lines(data)
    i = _pick(lines, line)
    return b"".join([*lines[: i + 1], lines[i], *lines[i + 1 :]])


def _truncated(original: bytes, last: bool, variant: int) -> bytes:
    body = original.rstrip(b"\n")
    # A proper prefix of one JSON object is never valid JSON: its outer brace
    # is not closed. The last line keeps no newline (a torn write).
    cut = body[: max(1, len(body) // 2)]
    return cut if last else cut + b"\n"


def _invalid_utf8(original: bytes, last: bool, variant: int) -> bytes:
    body = original.rstrip(b"\n")
    middle = len(body) // 2
    return body[:middle] + b"\xff" + body[middle:] + b"\n"


def _json_change(
    change: Callable[[dict[str, Any], int], dict[str, Any]],
) -> Callable[[bytes, bool, int], bytes]:
    return lambda original, last, variant: _dump(change(json.loads(original), variant))


def _raw_unicode(data: bytes, line: int, variant: int, conflict: bytes) -> bytes:
    """Every line written again with its non-ASCII characters raw, not escaped:
    the same receipts, still valid UTF-8 JSON."""
    return b"".join(
        (
            json.dumps(json.loads(one), sort_keys=True, ensure_ascii=False) + "\n"
        ).encode()
        for one in data.splitlines()
    )


def _without_key(payload: dict[str, Any], variant: int) -> dict[str, Any]:
    key = MISSING_KEYS[variant % len(MISSING_KEYS)]
    return {k: v for k, v in payload.items() if k != key}


def tamper(data: bytes, kind: str, line: int, variant: int, conflict: bytes) -> bytes:
    """`data` (a valid log) with the byte damage of `kind`; `conflict` is a
    valid line for a different receipt under the picked line's call id."""
    damage = LOG_KINDS[kind].damage
    if damage is None:
        raise ValueError(f"log kind {kind!r} does not damage bytes")
    return damage(data, line, variant, conflict)


def call_id_of(line: bytes) -> str:
    """The tool call id a valid log line records."""
    return str(json.loads(line)["tool_call_id"])


_RELOAD = (
    "reload a path store through a fresh ReceiptStore(receipts.path) (the store you"
    " were handed still holds what it loaded before the log changed) and turn any"
    " load error into a failed check 'receipt evidence unavailable: ...' for every"
    " receipt"
)
_REGULAR_LOG = (
    "a log that is not a readable regular file of receipts fails every receipt"
    " check: lstat it, refuse anything but a regular file, read a bounded amount"
)


def _broken(name: str, words: str, hint: str = _RELOAD, **more: Any) -> LogKind:
    return LogKind(name, UNAVAILABLE, words, hint, effect="unavailable", **more)


def _trap(name: str, words: str, replace: str) -> LogKind:
    return LogKind(
        name,
        UNAVAILABLE,
        words,
        _REGULAR_LOG,
        level="hardened",
        effect="unavailable",
        replace=replace,
    )


LOG_KINDS: Kinds[LogKind] = Kinds(
    "log",
    [
        LogKind("none", PASS, "untouched", _RELOAD),
        LogKind(
            "duplicate_identical",
            PASS,
            "one line repeated identically (still valid)",
            "an identical repeated line is valid: a store loads it once",
            damage=_repeated,
            needs_line=True,
        ),
        LogKind(
            "raw_unicode",
            PASS,
            "written again with non-ASCII characters raw instead of escaped"
            " (the same receipts, still valid UTF-8 JSON Lines)",
            "the log is UTF-8 JSON Lines: load it with a fresh ReceiptStore(path);"
            " do not require the escaped, ASCII-only form put() writes",
            damage=_raw_unicode,
            needs_extra=True,
        ),
        LogKind(
            "emptied",
            FAIL,
            "emptied after the receipts were put (a valid, empty log)",
            "reload the log: what it holds now is what counts, and an empty log"
            " holds no receipt ('receipt is absent')",
            effect="absent",
            damage=lambda data, line, variant, conflict: b"",
        ),
        _broken(
            "non_json",
            "a line that is not JSON",
            damage=_insert(lambda variant: b"this line is not JSON\n"),
        ),
        _broken(
            "truncated",
            "one line cut short",
            damage=_one_line(_truncated),
            needs_line=True,
        ),
        _broken(
            "invalid_utf8",
            "an invalid UTF-8 byte in one line",
            damage=_one_line(_invalid_utf8),
            needs_line=True,
        ),
        _broken(
            "non_object",
            "a line holding a JSON value that is not an object",
            damage=_insert(
                lambda variant: NON_OBJECTS[variant % len(NON_OBJECTS)].encode() + b"\n"
            ),
        ),
        _broken(
            "missing_key",
            "one line missing a key",
            damage=_one_line(_json_change(_without_key)),
            needs_line=True,
        ),
        _broken(
            "extra_key",
            "one line with an extra key",
            damage=_one_line(_json_change(lambda p, v: {**p, "note": "added"})),
            needs_line=True,
        ),
        _broken(
            "stale_digest",
            "one line with a field changed under its old receipt_id",
            damage=_one_line(
                _json_change(
                    lambda p, v: _changed(p, STALE_FIELDS[v % len(STALE_FIELDS)])
                )
            ),
            needs_line=True,
        ),
        _broken(
            "conflict",
            "a second, different, valid receipt under an existing call id",
            damage=lambda data, line, variant, conflict: data + conflict,
            needs_line=True,
        ),
        _broken(
            "directory", "a directory where the log file should be", replace="directory"
        ),
        _broken(
            "unreadable",
            "a log whose name is longer than NAME_MAX, so loading it raises OSError",
            "loading a log can raise OSError (here ENAMETOOLONG, before any line is"
            " read): catch OSError as well as AgentError and UnicodeError, and fail"
            " every receipt check with 'receipt evidence unavailable: ...'",
            replace="unreadable",
        ),
        _trap("fifo", "a FIFO where the log file should be", "fifo"),
        _trap("symlink_to_fifo", "a symlink to a FIFO as the log", "symlink_to_fifo"),
        _trap("sparse", "a sparse log of 4 GiB of NUL bytes (one line)", "sparse"),
        _trap(
            "million_lines", "a million short lines, none a receipt", "million_lines"
        ),
        _trap("long_line", "one JSON line of 2 MiB", "long_line"),
    ],
)
