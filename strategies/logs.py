"""The receipt log: which store evaluation is handed, and how its log is damaged.

Logs are never written by hand. A valid line is whatever the target's own
`ReceiptStore(path).put(EffectReceipt(...))` appends, one line per receipt;
a `LogDamage` then applies one drawn operator at a drawn line and position
of those bytes (a cut at any byte, an invalid UTF-8 byte, a line that is no
receipt, a key removed, renamed or added, a field changed under the old
digest, a line repeated, other line endings, raw Unicode), or a trap stands
at the log's path instead (a directory, a FIFO...). What the damage does to
every receipt check follows from the operator and the position alone
(`damage_effect`): "valid" (each receipt is judged by its own fact),
"shortened" (the lines from the cut on are gone, so their receipts are
absent) or "unavailable" (every check fails with 'receipt evidence
unavailable: ...'). The byte function `tamper` is pure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from strategies.kinds import EITHER, PASS, UNAVAILABLE, Kind, Kinds

__all__ = [
    "COURSE_GET_ERRORS",
    "HARDENED_GET_ERRORS",
    "LOCATIONS",
    "LOG_KINDS",
    "LogDamage",
    "LogFact",
    "LogKind",
    "TamperError",
    "call_id_of",
    "OPERATOR_EFFECTS",
    "damage_effect",
    "damage_words",
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
#: A log line's keys (the contract's list) and the type json.loads gives each.
KEYS = {"arguments": dict, "changed_artifacts": list} | dict.fromkeys(
    ("exit_state", "receipt_id", "result", "tool", "tool_call_id"), str
)
#: Bytes that are never valid UTF-8, wherever they stand.
NEVER_UTF8 = bytes([0xC0, 0xC1, *range(0xF5, 0x100)])


@dataclass(frozen=True)
class LogDamage:
    """Operator `op` done at line `line` (modulo the lines; one more where a
    line is inserted) and position `at` of the log (see `tamper`).

    cut: the log ends at the line's start (`at` 0), before its newline (-1)
    or inside it. byte: byte `at` (modulo the line's) made `arg`, a byte no
    UTF-8 holds. line: `arg` (no receipt) put before the line (`at` 0) or in
    its place. key: key `arg` renamed `value` ("" removed; `arg` "": added).
    field: field `arg` made the JSON `value` ("": its old value and more).
    repeat: the line again, or (`arg` "conflict") another receipt under its
    call id. endings: newlines made `arg`. raw: non-ASCII written raw.
    """

    op: str = "kept"
    line: int = 0
    at: int = 0
    arg: str = ""
    value: str = ""

    def __post_init__(self) -> None:
        if LOG_KINDS[self.op].replace:  # an unknown operator is refused at once
            raise ValueError(f"log damage: {self.op!r} is a trap, not an operator")
        if self.op == "key" and not (self.arg or self.value):
            raise ValueError("log damage: a key added needs a name")
        if self.op in ("key", "field") and self.arg not in ("", *KEYS):
            raise ValueError(f"log damage: key {self.arg!r}")


@dataclass(frozen=True)
class LogFact:
    """Which store evaluation is handed, and what its log holds.

    store: "path" (a ReceiptStore over a log file), "memory" (no path) or
    "missing" (a path whose log does not exist). `location` puts the log in
    the workspace root ("inside"), beside it, or beside it through a
    symlinked directory ("linked"). `damage` is done to the log's bytes (a
    path store's only); `trap` names what stands at its path instead. `get`
    names what the handed store's `get` raises, or "junk" for a `get` that
    returns a dict (None: it works). `workspace_store` is "same" (the
    workspace holds the store evaluation is given) or "separate" (the
    workspace holds another, empty one). `extra` unrelated receipts are
    stored first.
    """

    store: str = "path"
    location: str = "inside"
    damage: LogDamage = field(default_factory=LogDamage)
    trap: str = ""
    get: str | None = None
    workspace_store: str = "same"
    extra: int = 0

    def __post_init__(self) -> None:
        if self.store not in _STORES:
            raise ValueError(f"log: store {self.store!r}")
        if self.trap and (self.store != "path" or not LOG_KINDS[self.trap].replace):
            raise ValueError(f"log: no trap {self.trap!r} for a {self.store} store")
        if (self.store != "path" or self.trap) and self.damage != LogDamage():
            raise ValueError("log: only a path store's log file can be damaged")
        if self.location not in LOCATIONS:
            raise ValueError(f"log: location {self.location!r}")
        if self.get not in (None, *COURSE_GET_ERRORS, *HARDENED_GET_ERRORS):
            raise ValueError(f"log: get {self.get!r}")

    @property
    def kind(self) -> str:
        """The trap at the log's path, or the operator done to it."""
        return self.trap or self.damage.op


@dataclass(frozen=True)
class LogKind(Kind):
    """An operator on the log's bytes, or a trap standing at its path.

    `replace` names the trap ("directory", "fifo", "symlink_to_fifo",
    "sparse", "million_lines", "long_line", "unreadable"). `needs_extra`:
    the log must hold an unrelated receipt whose result is not ASCII.
    """

    replace: str = ""
    needs_extra: bool = False

    @property
    def needs_line(self) -> bool:
        """The operator works on an existing line, so one is stored."""
        return self.name in ("repeat", "cut", "byte", "key", "field")


class TamperError(Exception):
    """The log does not have the lines the tampering needs."""


#: What each operator can do to the log, of "valid", "shortened" and
#: "unavailable" (an operator not named makes it unavailable): which one a
#: given damage does is `damage_effect`'s to say. The strategy draws only
#: operators that can have an effect a property asks for.
OPERATOR_EFFECTS: dict[str, tuple[str, ...]] = {
    "cut": ("shortened", "unavailable"),
    "repeat": ("valid", "unavailable"),
    "kept": ("valid",),
    "endings": ("valid",),
    "raw": ("valid",),
}


def damage_effect(damage: LogDamage) -> str:
    """What the damage does to the log: "valid", "shortened" or "unavailable".

    A cut at a line's start or before its newline leaves whole lines (a
    valid log of fewer receipts); anywhere else it leaves a proper prefix of
    a JSON object, never valid JSON. Every other change to a line's bytes
    either breaks its UTF-8 or JSON or changes a field the digest covers
    (a type change is of a type no loader converts back: null, a boolean or
    a number for the list and the object).
    """
    if damage.op == "cut":
        return "shortened" if damage.at in (0, -1) else "unavailable"
    if damage.op == "repeat":
        return "unavailable" if damage.arg else "valid"
    return "valid" if damage.op in ("kept", "endings", "raw") else "unavailable"


def _dump(payload: object, ascii_only: bool = True) -> bytes:
    return (
        json.dumps(payload, sort_keys=True, ensure_ascii=ascii_only) + "\n"
    ).encode()


def _changed(payload: dict[str, Any], damage: LogDamage) -> dict[str, Any]:
    changed = dict(payload)
    if damage.op == "key":
        if damage.arg:
            value = changed.pop(damage.arg)
            if damage.value:
                changed[damage.value] = value
        else:
            changed[damage.value] = "added"
        return changed
    old = changed[damage.arg]
    if damage.value:
        changed[damage.arg] = json.loads(damage.value)
    elif isinstance(old, list):
        changed[damage.arg] = [*old, "tampered.txt"]
    elif isinstance(old, dict):
        changed[damage.arg] = {**old, "tampered": True}
    else:
        changed[damage.arg] = f"{old}!"
    return changed


def tamper(data: bytes, damage: LogDamage, conflict: bytes = b"") -> bytes:
    """`data` (a valid log) with `damage` done; `conflict` is a valid line
    for a different receipt under the picked line's call id."""
    lines = data.splitlines(keepends=True)
    op = damage.op
    if op == "kept":
        return data
    if op == "raw":
        return b"".join(_dump(json.loads(one), False) for one in lines)
    if op == "endings":
        return data.replace(b"\n", damage.arg.encode())
    if op == "line":
        i = damage.line % (len(lines) + 1)
        rest = lines[i + (damage.at != 0) :]
        return b"".join([*lines[:i], damage.arg.encode() + b"\n", *rest])
    if not lines:
        raise TamperError("the log has no line to tamper with")
    i = damage.line % len(lines)
    before, line, after = b"".join(lines[:i]), lines[i], b"".join(lines[i + 1 :])
    body = line.rstrip(b"\n")
    if op == "cut":
        if damage.at in (0, -1):
            return before + (body if damage.at else b"")
        return before + body[: 1 + (damage.at - 1) % (len(body) - 1)]
    if op == "byte":
        at = damage.at % len(line)
        return (
            before + line[:at] + damage.arg.encode("latin-1") + line[at + 1 :] + after
        )
    if op == "repeat":
        return before + line + (conflict if damage.arg else line) + after
    return before + _dump(_changed(json.loads(line), damage)) + after


def call_id_of(line: bytes) -> str:
    """The tool call id a valid log line records."""
    return str(json.loads(line)["tool_call_id"])


def damage_words(damage: LogDamage, lines: int) -> str:
    """The damage in words, for a log of `lines` lines before it."""
    i = damage.line % max(1, lines + (damage.op == "line"))
    where = {0: "at the start of", -1: "before the newline of"}.get(damage.at, "inside")
    return LOG_KINDS[damage.op].words.format(
        line=i + 1, where=where, at=damage.at, arg=damage.arg, value=damage.value
    ) + ("" if damage.op in ("kept", "raw", "endings") else f" (of {lines} line(s))")


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


def _trap(name: str, words: str, level: str = "hardened", hint: str = _REGULAR_LOG):
    return LogKind(name, UNAVAILABLE, words, hint, level=level, replace=name)


LOG_KINDS: Kinds[LogKind] = Kinds(
    "log",
    [
        LogKind("kept", PASS, "untouched", _RELOAD),
        LogKind(
            "raw",
            PASS,
            "written again with non-ASCII characters raw instead of escaped"
            " (the same receipts, still valid UTF-8 JSON Lines)",
            "the log is UTF-8 JSON Lines: load it with a fresh ReceiptStore(path);"
            " do not require the escaped, ASCII-only form put() writes",
            needs_extra=True,
        ),
        LogKind(
            "endings",
            PASS,
            "with every newline made {arg!r} (the same receipts)",
            "a line ending of CRLF still ends a line: load the log with a fresh"
            " ReceiptStore(path)",
        ),
        LogKind(
            "repeat",
            EITHER,
            "line {line} repeated (identically, or with {arg!r} as a different"
            " receipt under its call id)",
            "an identical repeated line is valid (a store loads it once); two"
            " different receipts under one call id make the log unloadable",
        ),
        LogKind(
            "cut",
            EITHER,
            "cut {where} line {line} (at {at})",
            "reload the log: what it holds now is what counts; a whole line cut"
            " away leaves its receipt absent, a line cut inside is no JSON and"
            " fails every receipt check",
        ),
        *(
            LogKind(name, UNAVAILABLE, words, _RELOAD)
            for name, words in (
                ("byte", "byte {at} of line {line} made {arg!r}, never UTF-8"),
                ("line", "the line {arg!r} put before or in place of line {line}"),
                ("key", "line {line} with its key {arg!r} renamed {value!r}"),
                ("field", "line {line} with {arg} made {value!r} under its digest"),
            )
        ),
        _trap(
            "directory", "a directory where the log file should be", "course", _RELOAD
        ),
        _trap(
            "unreadable",
            "a log whose name is longer than NAME_MAX, so loading it raises OSError",
            "course",
            "loading a log can raise OSError (here ENAMETOOLONG, before any line is"
            " read): catch OSError as well as AgentError and UnicodeError, and fail"
            " every receipt check with 'receipt evidence unavailable: ...'",
        ),
        _trap("fifo", "a FIFO where the log file should be"),
        _trap("symlink_to_fifo", "a symlink to a FIFO as the log"),
        _trap("sparse", "a sparse log of 4 GiB of NUL bytes (one line)"),
        _trap("million_lines", "a million short lines, none a receipt"),
        _trap("long_line", "one JSON line of 2 MiB"),
    ],
)
