"""Edits: one operator on a file's bytes, or on what is expected, its effect known.

A file's content is drawn as text; an `Edit` then changes the file (side
"world") or the case's expected text (side "case") by one operator: a byte
changed, a cut, bytes inserted, line endings, a BOM, another encoding, a
Unicode form, whitespace, letter case. `content_verdict` reads the truth off
the bytes the generator made, so an edit that changes nothing (NFC of NFC
text, Latin-1 of ASCII, CRLF where there is no line) leaves a passing file,
and the operator's table holds only how it reads and the mistake it exposes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from strategies.kinds import FAIL, PASS, UNAVAILABLE
from strategies.vocabulary import BOM

__all__ = [
    "CASE_EDITS",
    "EDITS",
    "KEPT",
    "READINGS",
    "Edit",
    "content_verdict",
    "edit_words",
    "edited",
    "perturbing_edits",
]


@dataclass(frozen=True)
class Edit:
    """One change, by operator `op`, to the file (side "world") or to what is
    expected (side "case"). `at` is a position or a length (taken modulo the
    data's length plus one, so any integer is one); `arg` is what the
    operator needs (inserted text, where a lone surrogate U+DC80-U+DCFF
    stands for the raw byte, a line ending, a codec, a Unicode form, a str
    method). `reading` (side "world" only): the expected text is the file
    read with that lenient decoder, so only a strict one tells it apart."""

    op: str = "kept"
    at: int = 0
    arg: str = ""
    side: str = "world"
    reading: str = ""

    def __post_init__(self) -> None:
        if self.op not in EDITS or self.side not in ("world", "case"):
            raise ValueError(f"edit: {self.op!r} on the {self.side!r}")
        if self.reading not in READINGS:
            raise ValueError(f"edit: reading {self.reading!r}")


_ENDING = re.compile(rb"\r\n|\r|\n")
_Apply = Callable[[str, bytes, Edit], bytes]


def _cut(n: int, at: int) -> int:
    return at % (n + 1)


def _byte(text: str, data: bytes, edit: Edit) -> bytes:
    if not data:
        return data
    i = edit.at % len(data)
    return data[:i] + edit.arg.encode("latin-1")[:1] + data[i + 1 :]


def _insert(text: str, data: bytes, edit: Edit) -> bytes:
    i = _cut(len(data), edit.at)
    return data[:i] + edit.arg.encode("utf-8", "surrogateescape") + data[i:]


def _line_blanks(text: str, data: bytes, edit: Edit) -> bytes:
    blank = edit.arg.encode()
    return _ENDING.sub(lambda m: blank + m.group(), data) + blank


@dataclass(frozen=True)
class _Op:
    apply: _Apply
    words: str  # how the edited text reads; {at}, {arg}, {cut} filled in
    hint: str


#: Every operator, simplest first; the hint names the mistake it exposes.
EDITS: dict[str, _Op] = {
    "kept": _Op(lambda t, d, e: d, "as it is", ""),
    "byte": _Op(
        _byte, "with byte {at} changed to {arg!r}", "compare the whole content with =="
    ),
    "truncate": _Op(
        lambda t, d, e: d[: _cut(len(d), e.at)],
        "cut to its first {cut} bytes",
        "compare with ==, not startswith() or `in`",
    ),
    "insert": _Op(
        _insert,
        "with {arg!r} inserted at byte {cut}",
        "compare with ==, not startswith() or `in`",
    ),
    "endings": _Op(
        lambda t, d, e: _ENDING.sub(e.arg.encode(), d),
        "with every line ending made {arg!r}",
        "line endings are content: read bytes (text mode, read_text() or open()"
        " without newline='' turns CRLF and CR into LF)",
    ),
    "bom": _Op(
        lambda t, d, e: BOM.encode() + d,
        "with a BOM in front",
        "a BOM is content: decode with 'utf-8', not 'utf-8-sig'",
    ),
    "encode": _Op(
        lambda t, d, e: t.encode(e.arg, "replace"),
        "encoded as {arg} instead of UTF-8",
        "decode strictly as UTF-8: no fallback to another encoding",
    ),
    "normalise": _Op(
        lambda t, d, e: unicodedata.normalize(e.arg, t).encode(),
        "in Unicode form {arg}",
        "compare the decoded text as it is: no unicodedata.normalize on either"
        " side (NFC, NFD, NFKC, NFKD are different text)",
    ),
    "trail": _Op(
        lambda t, d, e: d + e.arg.encode(),
        "with {arg!r} appended",
        "compare exactly: whitespace and newlines at the end are content (no"
        " strip(), rstrip())",
    ),
    "line_blanks": _Op(
        _line_blanks,
        "with {arg!r} at the end of every line",
        "compare exactly: spaces at the end of a line are content (no rstrip()"
        " per line)",
    ),
    "strip": _Op(
        lambda t, d, e: t.strip().encode(),
        "stripped of surrounding whitespace",
        "compare exactly: do not strip() either side",
    ),
    "case": _Op(
        lambda t, d, e: getattr(t, e.arg)().encode(),
        "changed by str.{arg}()",
        "compare exactly: no lower(), upper() or casefold()",
    ),
}

#: Lenient decoders an expected text may follow (`Edit.reading`).
READINGS = {
    "": ("utf-8", "strict"),
    "replace": ("utf-8", "replace"),
    "ignore": ("utf-8", "ignore"),
    "surrogateescape": ("utf-8", "surrogateescape"),
    "latin-1": ("latin-1", "strict"),
}
KEPT = Edit()


def edited(text: str, edit: Edit) -> bytes:
    return EDITS[edit.op].apply(text, text.encode(), edit)


def content_verdict(expected: str, disk: bytes) -> str:
    """The truth of a readable regular file, from the bytes alone.

    UNAVAILABLE when the bytes are not UTF-8, PASS when they are exactly the
    expected text's UTF-8 (a lone surrogate encodes, with surrogatepass, to
    bytes no UTF-8 file holds, so such content never passes), FAIL otherwise.
    """
    try:
        disk.decode("utf-8")
    except UnicodeDecodeError:
        return UNAVAILABLE
    return PASS if disk == expected.encode("utf-8", "surrogatepass") else FAIL


def edit_words(text: str, edit: Edit) -> str:
    """How an edit of `text` reads: what the file (or the expected text) is."""
    data = text.encode()
    raw = any("\udc80" <= c <= "\udcff" for c in edit.arg)  # raw bytes, shown so
    arg = edit.arg.encode("utf-8", "surrogateescape") if raw else edit.arg
    words = EDITS[edit.op].words.format(
        at=edit.at % max(1, len(data)), arg=arg, cut=_cut(len(data), edit.at)
    )
    if edit.side == "case":
        return f"holds the base text; the expected text is the base text {words}"
    read = (
        f" (the expected text is it read with {edit.reading!r})" if edit.reading else ""
    )
    return f"holds the expected text {words}{read}"


def perturbing_edits(text: str) -> tuple[Edit, ...]:
    """Edits of a passing file, one per operator, each likely to change it
    (`file_perturbations` keeps those that do)."""
    n = len(text.encode())
    return (
        Edit("byte", n // 2, "x"),
        Edit("truncate", n - 1),
        Edit("insert", -1, "x"),
        Edit("endings", arg="\r\n"),
        Edit("endings", arg="\r"),
        Edit("bom"),
        Edit("normalise", arg="NFD"),
        Edit("trail", arg="\n"),
        Edit("line_blanks", arg=" \t"),
        Edit("case", arg="swapcase"),
        Edit("insert", n // 2, "\udcff"),
        *CASE_EDITS,
    )


#: Changes to the case alone, each always false: they apply to a real run too.
CASE_EDITS = (
    Edit("insert", -1, "|", side="case"),
    Edit("trail", arg="\n", side="case"),
    Edit("bom", side="case"),
)
