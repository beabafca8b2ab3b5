"""Effect receipts and their append-only JSON Lines log.

A receipt records one effect (write, edit, command) the workspace carried out,
under the tool call id it ran as.  Each receipt names itself by the SHA-256 of
its canonical JSON, so an edited line in the log no longer matches its own
``receipt_id`` and loading refuses it.

The log's bytes are a shared format: a log written here loads in any other
implementation of the same surface and the other way round, so the canonical
form (sorted keys, ``","``/``":"`` separators, ASCII escapes) and the line form
(``json.dumps(..., sort_keys=True)`` with default separators) are fixed.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._bounded import read_at_most
from .protocol import AgentError

_EXIT_STATES = frozenset({"ok", "error"})
_FIELDS = (
    "tool_call_id",
    "tool",
    "arguments",
    "exit_state",
    "result",
    "changed_artifacts",
)
_KEYS = frozenset({"receipt_id", *_FIELDS})
_CONTAINER_TYPES = frozenset({dict, list})

# A log is read whole, so it is bounded: far above what a run writes (each
# receipt is at most a few write-sized strings), far below what would exhaust
# memory when a huge or sparse file sits at the log path.
_MAX_LOG_BYTES = 64 * 1024 * 1024

# Like Path.exists(): a path that cannot be reached is a log that does not exist.
_ABSENT_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP})
_OPEN_FLAGS = os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK


# Built once: json.dumps with these options builds a new encoder on every call,
# which costs more than encoding a receipt.  Same options, same output.
_canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode
_line = json.JSONEncoder(sort_keys=True).encode
# The same canonical text for freshly parsed JSON, which cannot hold a cycle,
# so the encoder need not look for one.
_canonical_parsed = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), check_circular=False
).encode
_raw_decode = json.JSONDecoder().raw_decode


@dataclass(frozen=True)
class EffectReceipt:
    """One effect the workspace carried out, and what came of it."""

    tool_call_id: str
    tool: str
    arguments: dict[str, Any]
    exit_state: str
    result: str
    changed_artifacts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("tool_call_id", "tool"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise ValueError(f"receipt {name} must be a non-empty string")
        # The str test first: an unhashable exit_state (a JSON list) would make
        # the membership test raise TypeError instead of refusing the receipt.
        if not isinstance(self.exit_state, str) or self.exit_state not in _EXIT_STATES:
            raise ValueError("receipt exit_state must be 'ok' or 'error'")
        if not isinstance(self.result, str):
            raise ValueError("receipt result must be a string")
        object.__setattr__(self, "arguments", _json_copy(self.arguments))
        artifacts = self.changed_artifacts
        if not isinstance(artifacts, (tuple, list)) or not all(
            isinstance(artifact, str) for artifact in artifacts
        ):
            raise ValueError("receipt changed_artifacts must be a tuple of strings")
        object.__setattr__(self, "changed_artifacts", tuple(artifacts))

    @classmethod
    def _trusted(
        cls,
        tool_call_id: str,
        tool: str,
        arguments: dict[str, Any],
        exit_state: str,
        result: str,
        changed_artifacts: tuple[str, ...],
    ) -> EffectReceipt:
        """A receipt from fields already checked and owned by the caller alone.

        What ``__init__`` does, minus ``__post_init__``: no checks and no copy
        of ``arguments``.  Only for ``_parsed_receipt``, whose caller has just
        made every value with ``json.loads``.
        """
        receipt = object.__new__(cls)
        receipt.__dict__.update(
            tool_call_id=tool_call_id,
            tool=tool,
            arguments=arguments,
            exit_state=exit_state,
            result=result,
            changed_artifacts=changed_artifacts,
        )
        return receipt

    def _payload(self) -> dict[str, Any]:
        return {
            "tool_call_id": self.tool_call_id,
            "tool": self.tool,
            "arguments": self.arguments,
            "exit_state": self.exit_state,
            "result": self.result,
            "changed_artifacts": list(self.changed_artifacts),
        }

    @property
    def receipt_id(self) -> str:
        """The SHA-256 hex digest of this receipt's canonical JSON payload."""
        return hashlib.sha256(_canonical(self._payload()).encode()).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the payload plus its ``receipt_id``."""
        return {"receipt_id": self.receipt_id, **self._payload()}

    @classmethod
    def from_dict(cls, payload: Mapping[str, Any]) -> EffectReceipt:
        """Rebuild a receipt from its JSON form; anything but an exact match fails."""
        if not isinstance(payload, Mapping):
            raise AgentError("a receipt must be a JSON object")
        keys = set(payload)
        if keys != _KEYS:
            wrong = [f"missing {name}" for name in sorted(_KEYS - keys)]
            wrong += [f"unexpected {name}" for name in sorted(keys - _KEYS)]
            raise AgentError(f"receipt is malformed: {', '.join(wrong)}")
        try:
            receipt = cls(*(payload[name] for name in _FIELDS))
        except ValueError as error:
            raise AgentError(f"receipt is malformed: {error}") from error
        if payload["receipt_id"] != receipt.receipt_id:
            raise AgentError("receipt digest does not match its contents")
        return receipt


def _parsed_receipt(payload: object) -> EffectReceipt | None:
    """The receipt in ``payload``, fresh from ``json.loads``, or ``None``.

    A fast path for loading a log, with the same verdict as ``from_dict``.
    ``None`` means "not sure": the caller then runs ``from_dict``, which
    accepts or explains.  So this only has to be right when it accepts.

    What makes it cheaper is what a fresh parse guarantees.  ``json.loads``
    gives exact ``dict``/``list``/``str``/``int``/``float``/``bool``/``None``
    values with string keys, and nobody else holds them, so ``arguments``
    needs no private copy.  The copy's round trip (``_json_copy``) changes
    such data in only two ways, both sent to ``from_dict`` here: a NaN
    (whether the copy still equals it depends on which float object each
    parse returns; any NaN puts ``NaN`` in the canonical text) and key order
    (the copy has every object's keys sorted; a log written by ``put`` has
    them sorted already).  The canonical text is encoded once and serves as
    the digest check too.
    """
    if type(payload) is not dict or payload.keys() != _KEYS:
        return None
    fields = dict(payload)
    claimed = fields.pop("receipt_id")
    call_id, tool = fields["tool_call_id"], fields["tool"]
    arguments, exit_state = fields["arguments"], fields["exit_state"]
    result, artifacts = fields["result"], fields["changed_artifacts"]
    if not (
        type(call_id) is str
        and call_id
        and type(tool) is str
        and tool
        and type(exit_state) is str
        and exit_state in _EXIT_STATES
        and type(result) is str
        and type(arguments) is dict
        and type(artifacts) is list
    ):
        return None
    for artifact in artifacts:
        if type(artifact) is not str:
            return None
    try:
        canonical = _canonical_parsed(fields)
    except (TypeError, ValueError, RecursionError):  # e.g. nesting near the limit
        return None
    keys = list(arguments)
    if keys != sorted(keys) or "NaN" in canonical:
        return None
    # The payload and its arguments make two "{"; any more is an object nested
    # in the arguments (or a "{" inside some string): then look at them all.
    if canonical.count("{") > 2 and not _keys_sorted(arguments):
        return None
    if hashlib.sha256(canonical.encode()).hexdigest() != claimed:
        return None
    return EffectReceipt._trusted(
        call_id, tool, arguments, exit_state, result, tuple(artifacts)
    )


def _keys_sorted(arguments: dict[str, Any]) -> bool:
    """Whether every JSON object within ``arguments`` has its keys in sorted order.

    A loop with a stack, not recursion: parsed JSON can nest deeper than a
    recursive walk could go.  Members are looked into only where some are
    containers (in tool arguments, rarely more than one list of strings).
    """
    pending: list[Any] = [arguments]
    while pending:
        value = pending.pop()
        if type(value) is dict:
            keys = list(value)
            if keys != sorted(keys):
                return False
            value = value.values()
        if not _CONTAINER_TYPES.isdisjoint(map(type, value)):
            pending.extend(item for item in value if type(item) in _CONTAINER_TYPES)
    return True


def _parse_line(line: str) -> Any:
    """``json.loads(line)``, without its wrapper when the line is one bare value.

    Whenever the direct decode does not take the whole line (leading or
    trailing whitespace, a BOM, extra data, invalid JSON), ``json.loads``
    itself decides, so the value or the error is always exactly its own.
    """
    try:
        value, end = _raw_decode(line)
    except (ValueError, RecursionError):
        return json.loads(line)
    if end != len(line):
        return json.loads(line)
    return value


def _json_copy(arguments: object) -> dict[str, Any]:
    """A private copy of ``arguments`` that a trip through the log leaves equal."""
    if not isinstance(arguments, dict) or not all(
        isinstance(name, str) for name in arguments
    ):
        raise ValueError("receipt arguments must be a dict with string keys")
    try:
        copied: dict[str, Any] = json.loads(_canonical(arguments))
    except (TypeError, ValueError, RecursionError) as error:
        raise ValueError("receipt arguments must be JSON data") from error
    # Tuples, NaN or non-string nested keys would come back different after a
    # reload, and the reloaded receipt would then conflict with this one.
    if copied != arguments:
        raise ValueError("receipt arguments must be JSON data")
    return copied


@dataclass
class ReceiptStore:
    """Receipts by tool call id, kept in memory and, with a ``path``, in a log.

    Building a store with a path loads that log if it exists; loading never
    creates it.  Not frozen: tests replace ``get`` on one instance.
    """

    path: Path | None = None
    _receipts: dict[str, EffectReceipt] = field(
        default_factory=dict, init=False, repr=False
    )

    def __post_init__(self) -> None:
        raw: object = self.path
        if raw is None:
            return
        if not isinstance(raw, (str, os.PathLike)):
            raise ValueError(
                f"receipt log path must be a path, not {type(raw).__name__}"
            )
        self.path = Path(raw)
        if "\0" in str(self.path):
            raise ValueError("receipt log path must not contain NUL")
        text = _read_log(self.path)
        if text is not None:
            self._load(text)

    def _load(self, text: str) -> None:
        for number, line in enumerate(text.splitlines(), start=1):
            try:
                payload = _parse_line(line)
            except (ValueError, RecursionError) as error:
                raise AgentError(
                    f"could not load receipt log: line {number} is not valid JSON"
                ) from error
            receipt = _parsed_receipt(payload)
            if receipt is None:
                try:
                    receipt = EffectReceipt.from_dict(payload)
                except AgentError as error:
                    raise AgentError(
                        f"could not load receipt log: line {number}: {error}"
                    ) from error
            previous = self._receipts.get(receipt.tool_call_id)
            if previous is not None and previous != receipt:
                raise AgentError(
                    f"could not load receipt log: line {number}: conflicting "
                    f"receipts for tool call id {receipt.tool_call_id}"
                )
            self._receipts[receipt.tool_call_id] = receipt

    def put(self, receipt: EffectReceipt) -> EffectReceipt:
        """Record ``receipt`` once; an identical repeat is a no-op."""
        if not isinstance(receipt, EffectReceipt):
            raise ValueError(
                f"put needs an EffectReceipt, not {type(receipt).__name__}"
            )
        previous = self._receipts.get(receipt.tool_call_id)
        if previous is not None:
            if previous != receipt:
                raise AgentError(
                    f"tool call id {receipt.tool_call_id} already has "
                    "a different receipt"
                )
            return previous
        if self.path is not None:
            line = _line(receipt.to_dict()) + "\n"
            _append(self.path, line.encode("utf-8"))
        self._receipts[receipt.tool_call_id] = receipt
        return receipt

    def get(self, tool_call_id: str) -> EffectReceipt | None:
        """The receipt recorded under ``tool_call_id``, or ``None``."""
        return self._receipts.get(tool_call_id)


def _read_log(path: Path) -> str | None:
    """The log's text, or ``None`` when there is no log.

    Only a regular file is read, and only up to the bound: the open does not
    block (a FIFO at the path cannot stall it) and is checked before any read.
    Invalid UTF-8 surfaces as ``UnicodeDecodeError``.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
    except OSError as error:
        if error.errno in _ABSENT_ERRNOS:
            return None
        raise AgentError(f"could not load receipt log: {error.strerror}") from error
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise AgentError("could not load receipt log: it is not a regular file")
        data = read_at_most(descriptor, _MAX_LOG_BYTES + 1)
    except OSError as error:
        raise AgentError(f"could not load receipt log: {error.strerror}") from error
    finally:
        os.close(descriptor)
    if len(data) > _MAX_LOG_BYTES:
        raise AgentError(
            f"could not load receipt log: it exceeds {_MAX_LOG_BYTES} bytes"
        )
    return data.decode("utf-8")


def _append(path: Path, data: bytes) -> None:
    """Append ``data`` to the log, creating it; refuse anything but a regular file."""
    try:
        descriptor = os.open(
            path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _OPEN_FLAGS, 0o666
        )
    except OSError as error:
        raise AgentError(f"could not append receipt log: {error.strerror}") from error
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise AgentError("could not append receipt log: it is not a regular file")
        written = 0
        while written < len(data):
            written += os.write(descriptor, data[written:])
    except OSError as error:
        raise AgentError(f"could not append receipt log: {error.strerror}") from error
    finally:
        os.close(descriptor)
