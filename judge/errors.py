"""The worker's errors as the judge rebuilds them, and a broken protocol.

Kept apart from judge/remote.py so that what reads the worker's data
(judge/reading.py) and the channel that carries it import these, not each
other.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ProtocolError", "RemoteError", "rebuilt"]


class RemoteError(Exception):
    """An exception the target raised in the worker, rebuilt from its data.

    Its class has the target's exception's name and derives from the
    builtin exception that one derives from (so `except ValueError` still
    catches a learner's `class CaseError(ValueError)`); a BaseException that
    is not an Exception (SystemExit, KeyboardInterrupt) arrives as a plain
    RemoteError of that name: in the judge it must not stop anything.
    """

    where: tuple[tuple[str, int, str], ...] = ()


_ERROR_CLASSES: dict[tuple[str, str], type[RemoteError]] = {}


def _error_class(name: str, builtin: str) -> type[RemoteError]:
    key = (name, builtin)
    made = _ERROR_CLASSES.get(key)
    if made is None:
        import builtins

        base = getattr(builtins, builtin, Exception)
        if not (isinstance(base, type) and issubclass(base, Exception)):
            base = Exception
        bases: tuple[type, ...] = (
            (RemoteError,) if base is Exception else (RemoteError, base)
        )
        made = type(
            name if name.isidentifier() else "Error", bases, {"__module__": "remote"}
        )
        _ERROR_CLASSES[key] = made
    return made


def rebuilt(data: Any) -> RemoteError:
    if not isinstance(data, dict):
        return _error_class("ProtocolError", "Exception")(
            "the worker sent a malformed error"
        )
    kind = _error_class(
        str(data.get("type", "Exception"))[:80], str(data.get("builtin", ""))
    )
    error = kind(str(data.get("message", ""))[:4000])
    where = data.get("where")
    if isinstance(where, list):
        error.where = tuple(
            (str(f[0]), int(f[1]), str(f[2]))
            for f in where
            if isinstance(f, list) and len(f) == 3 and isinstance(f[1], int)
        )
    return error


class ProtocolError(Exception):
    """The worker answered with something the protocol does not allow."""
