"""Receipt logs: written through the target's own store, then damaged as bytes.

Logs are never written by hand. A valid line is whatever the target's
`ReceiptStore(path).put(EffectReceipt(...))` appends; tampering then works on
the bytes, so every kind of damage is exactly the damage named and nothing
else. The functions that damage bytes are pure.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

__all__ = [
    "MISSING_KEYS",
    "NON_OBJECTS",
    "STALE_FIELDS",
    "TamperError",
    "line_through_store",
    "tamper",
]

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


class TamperError(Exception):
    """The log does not have the lines the tampering needs."""


def line_through_store(target: Any, receipt: Any, scratch: Path) -> bytes:
    """The log line the target's own store writes for `receipt`.

    Written into a scratch log under `scratch` (a directory that is removed
    again), so the world's real log gets a line no store of the run holds.
    """
    scratch.mkdir()
    try:
        log = scratch / "scratch.jsonl"
        target.ReceiptStore(log).put(receipt)
        if not log.exists():
            raise TamperError(
                "ReceiptStore(path).put(receipt) did not create the log file"
            )
        return log.read_bytes()
    finally:
        shutil.rmtree(scratch)


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


def tamper(data: bytes, kind: str, line: int, variant: int, conflict: bytes) -> bytes:
    """`data` (a valid log) with one kind of damage; `conflict` is a valid line.

    `line` picks the damaged line (modulo the number of lines) and `variant`
    picks among the ways a kind can be done. `conflict` must be a valid line
    for a different receipt under the picked line's call id; it is used only
    by "conflict".
    """
    lines = _lines(data)
    if kind == "duplicate_identical":
        i = _pick(lines, line)
        return b"".join([*lines[: i + 1], lines[i], *lines[i + 1 :]])
    if kind == "non_json":
        i = line % (len(lines) + 1)
        return b"".join([*lines[:i], b"this line is not JSON\n", *lines[i:]])
    if kind == "non_object":
        i = line % (len(lines) + 1)
        value = NON_OBJECTS[variant % len(NON_OBJECTS)].encode() + b"\n"
        return b"".join([*lines[:i], value, *lines[i:]])
    if kind == "conflict":
        return data + conflict
    i = _pick(lines, line)
    original = lines[i]
    if kind == "truncated":
        body = original.rstrip(b"\n")
        cut = body[: max(1, len(body) // 2)]
        # A proper prefix of one JSON object is never valid JSON: its outer
        # brace is not closed. The last line keeps no newline (a torn write).
        damaged = cut if i == len(lines) - 1 else cut + b"\n"
    elif kind == "invalid_utf8":
        body = original.rstrip(b"\n")
        middle = len(body) // 2
        damaged = body[:middle] + b"\xff" + body[middle:] + b"\n"
    elif kind in ("missing_key", "extra_key", "stale_digest"):
        payload = json.loads(original)
        if kind == "missing_key":
            del payload[MISSING_KEYS[variant % len(MISSING_KEYS)]]
        elif kind == "extra_key":
            payload["note"] = "added"
        else:
            payload = _changed(payload, STALE_FIELDS[variant % len(STALE_FIELDS)])
        damaged = _dump(payload)
    else:
        raise ValueError(f"unknown tampering {kind!r}")
    return b"".join([*lines[:i], damaged, *lines[i + 1 :]])


def call_id_of(line: bytes) -> str:
    """The tool call id a valid log line records."""
    return str(json.loads(line)["tool_call_id"])
