"""The worker's errors as the judge rebuilds them, and a broken protocol.

Kept apart from judge/remote.py so that what reads the worker's data
(judge/reading.py) and the channel that carries it import these, not each
other.
"""

from __future__ import annotations

import contextlib
from typing import Any

__all__ = ["ProtocolError", "RemoteError", "rebuilt"]


class RemoteError(Exception):
    """An exception the target raised in the worker, carried here as data.

    Its class has the target's exception's name and derives from the
    builtin exception that one derives from (so `except ValueError` still
    catches a learner's `class CaseError(ValueError)`); a BaseException that
    is not an Exception (SystemExit, KeyboardInterrupt) arrives as a plain
    RemoteError of that name: in the judge it must not stop anything.

    Nothing of the learner's type is called here: the object is made with
    its builtin base's `__new__` and no arguments (never a constructor with
    guessed ones, which `UnicodeDecodeError` refuses), and its `str()` and
    `repr()` are the ones the worker computed (`said`, the worker's data).
    """

    where: tuple[tuple[str, int, str], ...] = ()
    said: dict[str, Any] = {}  # noqa: RUF012 (read only: each error sets its own)

    def __str__(self) -> str:
        text = self.said.get("message")
        return text if isinstance(text, str) else Exception.__str__(self)

    def __repr__(self) -> str:
        text = self.said.get("repr")
        return text if isinstance(text, str) else Exception.__repr__(self)


_ERROR_CLASSES: dict[tuple[str, str, str], type[RemoteError]] = {}


def _error_class(name: str, builtin: str, qualname: str = "") -> type[RemoteError]:
    """The judge's class for the target's exception type `name` deriving from
    the builtin `builtin`: one per (name, builtin, qualname), made here, no
    code of the target's in it. Any name a type may have is kept."""
    key = (name, builtin, qualname)
    made = _ERROR_CLASSES.get(key)
    if made is None:
        import builtins

        base = getattr(builtins, builtin, Exception)
        # A group keeps its base, even a BaseExceptionGroup (its members here
        # are all Exceptions, so it is one too, and stops nothing).
        if not (isinstance(base, type) and issubclass(base, Exception)):
            base = base if _is_group(base) else Exception
        bases: tuple[type, ...] = (
            (RemoteError,) if base is Exception else (RemoteError, base)
        )
        space = {"__module__": "remote"}  # never the learner's module
        if qualname:
            space["__qualname__"] = qualname
        try:
            made = type(name, bases, space)
        except (TypeError, ValueError):  # a NUL in the name, a layout refused
            made = type("Error" if "\0" in name else name, (RemoteError,), space)
        _ERROR_CLASSES[key] = made
    return made


def rebuilt(data: Any, depth: int = 0) -> RemoteError:
    """The target's exception, from the worker's data (`worker.serve._error_data`):
    an object that cannot fail to be made, whatever the data says."""
    if not isinstance(data, dict):
        data = {"type": "ProtocolError", "message": "the worker sent a malformed error"}
    said = {
        key: value[:4000]
        for key, value in data.items()
        if key in ("message", "repr") and isinstance(value, str)
    }
    name = str(data.get("type", "Exception"))[:200]
    qualname = str(data.get("qualname", ""))[:200]
    kind = _error_class(name, str(data.get("builtin", ""))[:80], qualname)
    error = _made(kind, data, depth)
    object.__setattr__(error, "said", said)
    args = data.get("args")
    if isinstance(args, list):
        with contextlib.suppress(Exception):
            error.args = tuple(
                a if isinstance(a, (str, int, bool)) else None for a in args
            )
    notes = data.get("notes")
    if isinstance(notes, list) and notes:
        error.__notes__ = [str(note)[:4000] for note in notes[:20]]
    where = data.get("where")
    if isinstance(where, list):
        error.where = tuple(
            (str(f[0]), int(f[1]), str(f[2]))
            for f in where
            if isinstance(f, list) and len(f) == 3 and isinstance(f[1], int)
        )
    return error


def _made(kind: type[RemoteError], data: dict[str, Any], depth: int) -> RemoteError:
    """An instance of `kind`, made by its builtin base's `__new__` with no
    arguments (a group's: its message and its errors, rebuilt), never by a
    call of the class; a plain `RemoteError` subclass if even that fails."""
    group = data.get("group")
    try:
        if isinstance(group, list) and group and depth < 4 and _is_group(kind):
            inner = [rebuilt(item, depth + 1) for item in group[:20]]
            message = data.get("args", [""])[0] if data.get("args") else ""
            text = message if isinstance(message, str) else ""
            # The builtin's own __new__ (its layout's), which Exception's is not.
            return kind.__base__.__new__(kind, text, inner)  # type: ignore[call-arg]
        return kind.__base__.__new__(kind)
    except Exception:
        plain = _error_class(kind.__name__, "Exception", kind.__qualname__)
        return plain.__new__(plain)


def _is_group(kind: object) -> bool:
    import builtins

    group = getattr(builtins, "BaseExceptionGroup", None)
    return group is not None and isinstance(kind, type) and issubclass(kind, group)


class ProtocolError(Exception):
    """The worker answered with something the protocol does not allow."""
