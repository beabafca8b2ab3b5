"""A dataclass repr short enough for a lesson and valid Python for its snippet."""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any

__all__ = ["Compact"]


class Compact:
    """A repr that leaves out fields at their defaults: short, valid Python,
    so a lesson's reproduction snippet can rebuild the world from it."""

    def __repr__(self) -> str:
        shown = []
        for item in fields(self):  # type: ignore[arg-type]
            if not item.repr:
                continue  # worked out from the others, not given
            value = getattr(self, item.name)
            if item.default is not MISSING:
                default = item.default
            elif item.default_factory is not MISSING:
                default = item.default_factory()
            else:
                default = MISSING
            if default is MISSING or value != default:
                shown.append(f"{item.name}={_literal(value)}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # Hypothesis pretty-prints every explicit example before it runs it
        # (to show it, should it fail), a dataclass field by field: for the
        # biggest written world, 16 ms and 230 KB each time, a tenth of a
        # passing verdict in all. The short repr is what a lesson shows.
        printer.text(repr(self))


def _literal(value: object) -> str:
    """`repr(value)`, but a long text that repeats one short piece (a file
    grown past a read limit) as `piece * n + rest`, the rest short: the same
    value, short."""
    if isinstance(value, (str, bytes)) and len(value) > 256:
        for size in range(1, 65):
            piece = value[:size]
            times = max(1, (len(value) - 256) // size)
            if not value.startswith(piece * times):
                continue
            while value.startswith(piece, times * size):
                times += 1
            rest = value[times * size :]
            tail = f" + {rest!r}" if rest else ""
            return f"{piece!r} * {times}{tail}"
    return repr(value)
