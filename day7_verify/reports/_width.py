"""How many terminal columns text takes, so a table's columns line up.

``len()`` counts code points: a name written with a combining accent
(``e`` + U+0301) is one column but two code points, a CJK character or an
emoji one code point but two columns. Columns here: 0 for combining marks
and format characters (zero-width joiner, variation selectors), 2 for East
Asian wide and fullwidth characters and for a character shown as an emoji
(followed by U+FE0F), 1 for everything else.
"""

from __future__ import annotations

import unicodedata

__all__ = ["clip_left", "pad", "width"]

_EMOJI_PRESENTATION = "\ufe0f"


def _columns(text: str) -> list[int]:
    """The columns each character of `text` takes."""
    columns: list[int] = []
    for index, char in enumerate(text):
        if unicodedata.combining(char) or unicodedata.category(char) in (
            "Mn",
            "Me",
            "Cf",
        ):
            columns.append(0)
        elif unicodedata.east_asian_width(char) in ("W", "F"):
            columns.append(2)
        elif text[index + 1 : index + 2] == _EMOJI_PRESENTATION:
            columns.append(2)
        else:
            columns.append(1)
    return columns


def width(text: str) -> int:
    """The columns `text` takes in a terminal."""
    return sum(_columns(text))


def pad(text: str, columns: int) -> str:
    """`text` followed by spaces up to `columns` columns (never cut)."""
    return text + " " * max(0, columns - width(text))


def clip_left(text: str, columns: int) -> str:
    """`text` if it fits in `columns`, else "…" and as much of its end as fits.

    The end is what tells learners apart (their folder names); a mark is
    never kept without the character it belongs to.
    """
    sizes = _columns(text)
    if sum(sizes) <= columns:
        return text
    room = columns - 1
    start = len(text)
    used = 0
    while start > 0 and used + sizes[start - 1] <= room:
        start -= 1
        used += sizes[start]
    while start < len(text) and sizes[start] == 0:
        start += 1  # a combining mark whose base did not fit
    return "…" + text[start:]
