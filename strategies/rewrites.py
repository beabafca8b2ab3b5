"""Evidence changed between two evaluations the ways a cache can miss.

A `Rewrite` is two passing worlds that share their layout and differ in the
bytes of one piece of evidence, at equal length: a file's text with one drawn
span replaced by drawn characters of the same UTF-8 length, or a receipt's
marker (in its log line's stored result and in the case) replaced by an
unused marker of the same length. With it comes the way the second world's
bytes reach the first's tree: the same inode rewritten (three ways) or a new
inode of the same size, the old modification and access times put back
either way. Both worlds pass by construction (their kinds say so), so what
the second evaluation must say is `truth(after)`, never a second evaluator.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hypothesis import strategies as st

from strategies.draw import PASSING_WORLD, log_damages, log_facts, passing_worlds
from strategies.vocabulary import marker
from strategies.world import World

__all__ = ["REWRITE_WAYS", "Rewrite", "rewrites", "same_width", "written_rewrites"]

#: How the new bytes reach the disk, and how a lesson says it. The first three
#: keep the inode (judge.safefs.rewrite_in_place), the last makes a new one.
REWRITE_WAYS = {
    "overwritten": "the changed bytes written over in the same inode",
    "truncated_then_appended": "the same inode cut at the first changed byte"
    " and the rest appended, as a log truncated and appended to",
    "appended_then_truncated": "the new tail appended past the end of the same"
    " inode, written over and cut back to its length, as a log appended to and"
    " truncated back",
    "new_inode": "a new inode of the same size renamed over the old one",
}

# Characters by the bytes UTF-8 spends on each (no surrogates: the bytes on
# disk are the text's encoding, so the text must have one).
_BY_WIDTH = {
    1: st.characters(max_codepoint=0x7F, codec="utf-8"),
    2: st.characters(min_codepoint=0x80, max_codepoint=0x7FF),
    3: st.characters(min_codepoint=0x800, max_codepoint=0xFFFF, codec="utf-8"),
    4: st.characters(min_codepoint=0x10000),
}


@st.composite
def same_width(draw: st.DrawFn, width: int) -> str:
    """Any text whose UTF-8 encoding is exactly `width` bytes."""
    chars: list[str] = []
    while width:
        size = draw(st.sampled_from([w for w in _BY_WIDTH if w <= width]))
        chars.append(draw(_BY_WIDTH[size]))
        width -= size
    return "".join(chars)


@dataclass(frozen=True)
class Rewrite:
    """Two passing worlds, one piece of evidence apart at equal length, and
    how the second's bytes are put in the first's place.

    `spot` is ("file", index) or ("receipt", index): the file, or the log
    line of the receipt, whose bytes differ.
    """

    before: World
    after: World
    spot: tuple[str, int]
    way: str

    def __str__(self) -> str:
        group, index = self.spot
        if group == "file":
            what = f"file {self.before.files[index].path}"
        else:
            what = f"the log line of receipt {self.before.receipts[index].call_id}"
        return (
            f"{what} given other bytes of the same length ({REWRITE_WAYS[self.way]}),"
            " its modification and access times put back"
        )


def _bases() -> st.SearchStrategy[World]:
    # A receipt at least, in a log at a path: the log is evidence on disk.
    return passing_worlds(
        max_files=2,
        max_results=1,
        min_receipts=1,
        max_receipts=2,
        logs=log_facts(
            stores=("path",), damages=log_damages(("valid",)), traps=(), gets=(None,)
        ),
    )


@st.composite
def _file_pair(draw: st.DrawFn, world: World, index: int) -> tuple[World, World]:
    """The file at `index` as an exact copy of a drawn text, then with one
    drawn span of it replaced by other characters of the same UTF-8 length."""
    text = draw(st.text(st.characters(codec="utf-8"), min_size=1, max_size=40))
    start = draw(st.integers(0, len(text) - 1))
    end = draw(st.integers(start + 1, len(text)))
    span = text[start:end]
    new = draw(same_width(len(span.encode())).filter(lambda other: other != span))
    fact = replace(world.files[index], kind="exact", text=text)
    files = list(world.files)
    files[index] = fact
    before = replace(world, files=tuple(files))
    files[index] = replace(fact, text=text[:start] + new + text[end:])
    return before, replace(world, files=tuple(files))


def _fresh(world: World, index: int) -> list[str]:
    """Markers of the length of the receipt's at `index` that no fact uses."""
    used = {
        world.final.marker,
        *(fact.marker for fact in world.results),
        *(fact.marker for fact in world.receipts),
    }
    old = world.receipts[index].marker
    return [
        m
        for m in (marker(k) for k in range(26))
        if m not in used and len(m) == len(old)
    ]


def _receipt_marked(world: World, index: int, fresh: str) -> World:
    receipts = list(world.receipts)
    receipts[index] = replace(receipts[index], marker=fresh)
    return replace(world, receipts=tuple(receipts))


def _receipt_pair(draw: st.DrawFn, world: World, index: int) -> tuple[World, World]:
    """The receipt at `index` with its marker swapped for one of the same
    length that no fact of the world uses."""
    return world, _receipt_marked(
        world, index, draw(st.sampled_from(_fresh(world, index)))
    )


def written_rewrites() -> tuple[Rewrite, ...]:
    """The passing world's first file given one other character, and its first
    receipt another marker, each written all four ways: every cache a rewrite
    is for meets a change it misses under any seed, not only when the drawn
    worlds happen to hold a file (about one rewrite in four does)."""
    world = PASSING_WORLD
    first = world.files[0]
    text = first.text.replace("2", "3", 1)
    assert len(text.encode()) == len(first.text.encode()) and text != first.text
    changed = replace(world, files=(replace(first, text=text), *world.files[1:]))
    marked = _receipt_marked(world, 0, _fresh(world, 0)[0])
    return tuple(
        Rewrite(world, after, spot, way)
        for after, spot in ((changed, ("file", 0)), (marked, ("receipt", 0)))
        for way in REWRITE_WAYS
    )


@st.composite
def rewrites(draw: st.DrawFn) -> Rewrite:
    """A passing world, the same world with one piece of evidence changed at
    equal byte length, and the way the change is written."""
    world = draw(_bases())
    spots = [("file", i) for i in range(len(world.files))]
    spots += [("receipt", i) for i in range(len(world.receipts))]
    spot = draw(st.sampled_from(spots))
    if spot[0] == "file":
        before, after = draw(_file_pair(world, spot[1]))
    else:
        before, after = _receipt_pair(draw, world, spot[1])
    return Rewrite(before, after, spot, draw(st.sampled_from(list(REWRITE_WAYS))))
