"""Files: what sits at each expected path, relative to the content expected there.

A file fact's kind decides three things, all written in its one entry of
`FILE_KINDS`: its layout (the expected content and the bytes put on disk,
both derived from the fact's base text), where its path lies when the kind
needs a path of its own (a protected name, a symlinked parent, a name in
another Unicode form, a path at the length limit), and how the evidence is
placed (a regular file, a FIFO, a symlink out of the root, a sparse file).

Accidental collisions are impossible by construction: every path carries its
fact's index in its last component (or in a top directory `h<index>` of its
own), directories never hold a digit, and files the builder needs for its
own sake live under names starting `_`, a character no drawn name contains.

A kind whose `changes` is "case" keeps the bytes on disk equal to the base
text: it only changes what is expected, so it can be applied to the files a
real run left behind.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import socket
import stat
import tempfile
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from strategies.kinds import EITHER, FAIL, PASS, UNAVAILABLE, Kind, Kinds
from strategies.vocabulary import BOM, NAME_MAX, PATH_MAX, PROTECTED_NAMES

__all__ = [
    "FILE_KINDS",
    "FOREIGN_FORMS",
    "ROOT_BYTES",
    "SPARSE_SIZES",
    "SPELLINGS",
    "FileFact",
    "FileKind",
    "Placed",
    "file_layout",
    "file_path",
    "place_file",
    "devices_available",
    "foreign_readings",
    "spelled",
]

#: How a case may spell a path; all of them normalise to the same path.
SPELLINGS = ("plain", "dot_slash", "double_slash", "trailing_slash", "dot_inside")

#: The workspace root of every built world is exactly this many bytes long,
#: so a path at the length limit is known before the world is built.
ROOT_BYTES = 96

_GIB = 1 << 30
#: Sizes of sparse files: past 1 GiB and past 4 GiB (a 32-bit length).
SPARSE_SIZES = (_GIB + 7, 4 * _GIB + 1)

# Over the workspace's default 64 KiB read limit: reading evidence through
# workspace.read_file refuses it.
_LARGE_BYTES = 96 * 1024
_NFC = "caf\u00e9 na\u00efve"
_NFD = unicodedata.normalize("NFD", _NFC)


@dataclass(frozen=True)
class FileFact:
    """One expected file: its normalised path, its kind, its base text.

    `parts` is the path as it exists on disk; `spelling` is how the case
    writes it; `variant` picks among the ways a kind can be done (which
    protected name, which component is a link, which sparse size).
    """

    index: int
    parts: tuple[str, ...]
    kind: str = "exact"
    text: str = ""
    spelling: str = "plain"
    variant: int = 0

    def __post_init__(self) -> None:
        FILE_KINDS[self.kind]  # an unknown kind is refused here, at once
        if self.spelling not in SPELLINGS:
            raise ValueError(f"file: spelling {self.spelling!r}")

    @property
    def path(self) -> str:
        return "/".join(self.parts)


def spelled(parts: tuple[str, ...], spelling: str) -> str:
    """`parts` written as a case might write them; normalises back to parts."""
    path = "/".join(parts)
    if spelling == "dot_slash":
        return f"./{path}"
    if spelling == "double_slash":
        return "//".join(parts) if len(parts) > 1 else f".//{path}"
    if spelling == "trailing_slash":
        return f"{path}/"
    if spelling == "dot_inside":
        return "/./".join(parts) if len(parts) > 1 else f"./{path}"
    return path


# --- layouts: (expected content, bytes on disk) from the base text ------------------

Layout = Callable[[str], "tuple[str, bytes]"]


def _same(text: str) -> tuple[str, bytes]:
    return text, text.encode()


def _both(content: str) -> tuple[str, bytes]:
    return content, content.encode()


def _with_newline(text: str) -> str:
    return text if "\n" in text else text + "\n"


def _nonempty(text: str) -> str:
    return text or "a"


def _other_char(char: str) -> str:
    return "x" if char != "x" else "y"


def _large(text: str) -> str:
    line = text.replace("\n", " ") + " filler line 0123456789\n"
    return line * (_LARGE_BYTES // len(line.encode()) + 1)


def _wrong_byte(text: str) -> tuple[str, bytes]:
    content = _nonempty(text)
    i = len(content) // 2
    return content, (content[:i] + _other_char(content[i]) + content[i + 1 :]).encode()


def _large_tail(text: str) -> tuple[str, bytes]:
    content = _large(text)
    return content, (content[:-2] + _other_char(content[-2]) + "\n").encode()


def _invalid(text: str, replaced: bool) -> tuple[str, bytes]:
    i = len(text) // 2
    content = text[:i] + "\ufffd" + text[i:] if replaced else text
    return content, text[:i].encode() + b"\xff" + text[i:].encode()


# Invalid UTF-8 of three sorts: a byte no UTF-8 holds, an overlong form of
# "/", a three-byte sequence cut short. Each lenient decoder reads it its own
# way: lone surrogates (surrogateescape), U+FFFD (replace), nothing (ignore).
_LENIENT_BYTES = b"\xff\xc0\xaf\xe2\x82"


def _leniently(errors: str) -> Layout:
    """Invalid UTF-8 on disk; expected content is exactly what decoding it
    with `errors` gives, so only a strict decoder calls it unavailable."""

    def layout(text: str) -> tuple[str, bytes]:
        i = len(text) // 2
        data = text[:i].encode() + _LENIENT_BYTES + text[i:].encode()
        return data.decode("utf-8", errors), data

    return layout


def _case_swapped(text: str) -> tuple[str, bytes]:
    content = text + "Ab"
    return content.swapcase(), content.encode()


# --- where a kind's path lies -----------------------------------------------------


@dataclass(frozen=True)
class PathDraft:
    """The drawn pieces a path is made of; the index makes it unique."""

    dirs: tuple[str, ...]
    stem: str
    suffix: str


Shape = Callable[[PathDraft, int, int], "tuple[str, ...]"]


def _plain(draft: PathDraft, index: int, variant: int) -> tuple[str, ...]:
    return (*draft.dirs, f"{draft.stem}{index}{draft.suffix}")


def _protected(draft: PathDraft, index: int, variant: int) -> tuple[str, ...]:
    # A protected name at a drawn component; the index stays in the path.
    name = PROTECTED_NAMES[variant % len(PROTECTED_NAMES)]
    forms = (
        (f"p{index}", name),
        (name, f"x{index}"),
        (f"p{index}", name, f"y{index}.txt"),
    )
    return (*draft.dirs, *forms[variant // len(PROTECTED_NAMES) % len(forms)])


def _symlinked_parent(draft: PathDraft, index: int, variant: int) -> tuple[str, ...]:
    return (*draft.dirs, f"ln{index}", f"{draft.stem}{index}{draft.suffix}")


def _own_top(draft: PathDraft, index: int, variant: int) -> tuple[str, ...]:
    # Traps that turn a directory into a link need a top directory no other
    # fact shares.
    return (f"h{index}", *draft.dirs, f"{draft.stem}{index}{draft.suffix}")


def _socket(draft: PathDraft, index: int, variant: int) -> tuple[str, ...]:
    # A socket's absolute path must fit sun_path (108 bytes).
    return (f"s{index}",)


def _leaf_as(form: Callable[[str], str]) -> Shape:
    def shape(draft: PathDraft, index: int, variant: int) -> tuple[str, ...]:
        return (*draft.dirs, form(f"{draft.stem}{index}{draft.suffix}"))

    return shape


#: How many ways `_foreign` has of writing a path (its variants cycle through them).
FOREIGN_FORMS = 5


def _foreign(draft: PathDraft, index: int, variant: int) -> tuple[str, ...]:
    """A path holding what another system reads as a separator or a drive.

    On POSIX a backslash and a colon are ordinary name characters: `w\\a0`
    is one name, `C:src` an ordinary directory, `a0:x` one file. A drive is
    a drive only at the start of a path, so the drive-like forms start it.
    """
    leaf = f"{draft.stem}{index}{draft.suffix}"
    first, *rest = (*draft.dirs, leaf)
    forms = (
        (*draft.dirs, f"w\\{leaf}"),  # a backslash inside one name: w\\a0
        (f"C:{first}", *rest),  # a drive-relative prefix: C:src/a0
        ("C:", first, *rest),  # a drive-like top directory: C:/src/a0
        (f"C:\\{first}", *rest),  # a drive and a backslash: C:\\src/a0
        (*draft.dirs, f"{leaf}:x"),  # an NTFS stream suffix: a0:x
    )
    return forms[variant % FOREIGN_FORMS]


def foreign_readings(parts: tuple[str, ...]) -> tuple[str, ...]:
    """The paths a Windows-minded evaluator reads instead of `parts`:
    backslashes turned into slashes, a drive prefix dropped, a stream suffix
    dropped; each differs from the path itself."""
    path = "/".join(parts)
    slashed = path.replace("\\", "/")
    readings = [
        slashed,
        *(re.sub(r"(^|/)[A-Za-z]:/?", r"\1", p) for p in (path, slashed)),
    ]
    if not re.match(r"[A-Za-z]:", parts[-1]):  # a colon after a drive is no stream
        readings.append(re.sub(r":[^/]*$", "", slashed))
    return tuple(dict.fromkeys(r for r in readings if r and r != path))


def _long(draft: PathDraft, index: int, variant: int) -> tuple[str, ...]:
    """Components filling the path to PATH_MAX - 1 - slack bytes from the root."""
    name_len = (NAME_MAX, 254, 128)[variant % 3]
    slack = variant // 3 % 65
    top = f"h{index}"
    budget = PATH_MAX - 1 - slack - ROOT_BYTES - 1 - len(top)
    parts: list[str] = []
    while budget > 1:
        length = min(name_len, budget - 1)
        parts.append(chr(ord("a") + len(parts) % 26) * length)
        budget -= length + 1
    return (top, *(parts or ["x"]))


def _deep(draft: PathDraft, index: int, variant: int) -> tuple[str, ...]:
    """Directories of NAME_MAX bytes nested past PATH_MAX, then a file."""
    top = f"h{index}"
    total = ROOT_BYTES + 1 + len(top)
    parts: list[str] = []
    while total <= PATH_MAX + variant % 4 * NAME_MAX:
        parts.append(chr(ord("a") + len(parts) % 26) * NAME_MAX)
        total += NAME_MAX + 1
    return (top, *parts, "file.txt")


def _too_long(draft: PathDraft, index: int, variant: int) -> tuple[str, ...]:
    return (*draft.dirs, f"n{index}" + "n" * (NAME_MAX + variant % 45))


def _nfd(name: str) -> str:
    return unicodedata.normalize("NFD", f"caf\u00e9-{name}")


def _nfc(name: str) -> str:
    return unicodedata.normalize("NFC", f"caf\u00e9-{name}")


def _spaced(name: str) -> str:
    return f" {name} "


def _cased(name: str) -> str:
    return f"Notes-{name}"


@functools.cache
def devices_available() -> bool:
    """Whether this process may make a character device (a /dev/null twin)."""
    with tempfile.TemporaryDirectory() as scratch:
        try:
            os.mknod(
                os.path.join(scratch, "null"), stat.S_IFCHR | 0o666, os.makedev(1, 3)
            )
        except (OSError, AttributeError):
            return False
    return True


# --- placing evidence -------------------------------------------------------------


@dataclass(frozen=True)
class Placed:
    """What placing one fact left that a judge must know about."""

    fifos: tuple[Path, ...] = ()  # opened for writing to unblock a hung reader
    secrets: tuple[Path, ...] = ()  # outside the root: must never be opened


@dataclass(frozen=True)
class Where:
    """Everything a placement needs: the fact's path and the tree's places."""

    fact: FileFact
    data: bytes
    path: Path  # root.joinpath(*fact.parts)
    root: Path
    outside: Path  # beside the root, never inside it


Place = Callable[[Where], Placed]


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _regular(where: Where) -> Placed:
    _write(where.path, where.data)
    return Placed()


def _missing(where: Where) -> Placed:
    where.path.parent.mkdir(parents=True, exist_ok=True)
    return Placed()


def _directory(where: Where) -> Placed:
    _write(where.path / "inside.txt", where.data)
    return Placed()


def _fifo(where: Where) -> Placed:
    where.path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(where.path)
    return Placed(fifos=(where.path,))


def _bound_socket(where: Where) -> Placed:
    where.path.parent.mkdir(parents=True, exist_ok=True)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as bound:
        try:
            bound.bind(os.fspath(where.path))
        except OSError as error:  # an unusually long scratch path: a FIFO then
            if error.errno not in (errno.ENAMETOOLONG, errno.EINVAL):
                raise
            return _fifo(where)
    return Placed()  # closed: the socket file stays, and opening it fails


def _device(where: Where) -> Placed:
    where.path.parent.mkdir(parents=True, exist_ok=True)
    os.mknod(where.path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a /dev/null twin
    return Placed()


def _link_to(real: Path, where: Where) -> None:
    _write(real, where.data)
    where.path.parent.mkdir(parents=True, exist_ok=True)
    where.path.symlink_to(real)


def _symlink_inside(where: Where) -> Placed:
    _link_to(where.root / "_real" / f"f{where.fact.index}", where)
    return Placed()


def _symlink_outside(where: Where) -> Placed:
    secret = where.outside / f"f{where.fact.index}"
    _link_to(secret, where)
    return Placed(secrets=(secret,))


def _symlinked_parent_place(where: Where) -> Placed:
    real_dir = where.root / "_real" / f"d{where.fact.index}"
    _write(real_dir / where.path.name, where.data)
    where.path.parent.parent.mkdir(parents=True, exist_ok=True)
    where.path.parent.symlink_to(real_dir, target_is_directory=True)
    return Placed()


def _symlink_loop(where: Where) -> Placed:
    path, fact = where.path, where.fact
    shape = fact.variant % 3
    if shape == 2:  # the top directory is a link to itself
        top = where.root / fact.parts[0]
        os.symlink(fact.parts[0], top)
        return Placed()
    path.parent.mkdir(parents=True, exist_ok=True)
    if shape == 0:  # the file is a link to itself
        os.symlink(path.name, path)
    else:  # two links pointing at each other
        os.symlink(f"loop_{path.name}", path)
        os.symlink(path.name, path.with_name(f"loop_{path.name}"))
    return Placed()


def _symlink_chain(where: Where) -> Placed:
    path = where.path
    real = path.with_name(f"real_{path.name}")
    _write(real, where.data)
    previous = real.name
    for link in range(where.fact.variant % 3, 0, -1):
        name = f"link{link}_{path.name}"
        os.symlink(previous, path.with_name(name))
        previous = name
    os.symlink(previous, path)
    return Placed()


def _symlink_out_at(where: Where) -> Placed:
    """Component `at` of the path is a link to a mirror outside holding the text."""
    parts = where.fact.parts
    at = where.fact.variant % len(parts)
    mirror = where.outside / f"s{where.fact.index}"
    secret = mirror.joinpath(*parts[at:])
    _write(secret, where.data)
    link = where.root.joinpath(*parts[: at + 1])
    link.parent.mkdir(parents=True, exist_ok=True)  # real directories up to it
    pointee = mirror / parts[at]
    absolute = where.fact.variant // 8 % 2 == 1
    os.symlink(pointee if absolute else os.path.relpath(pointee, link.parent), link)
    return Placed(secrets=(secret,))


def _sparse(where: Where) -> Placed:
    where.path.parent.mkdir(parents=True, exist_ok=True)
    with open(where.path, "wb") as handle:
        handle.truncate(SPARSE_SIZES[where.fact.variant % 2])  # a hole, no block
    return Placed()


def _deep_place(where: Where) -> Placed:
    """A tree deeper than PATH_MAX: only descriptor-relative calls reach it."""
    parts = where.fact.parts
    top = where.root / parts[0]
    top.mkdir(parents=True)
    directory = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts[1:-1]:
            os.mkdir(part, dir_fd=directory)
            child = os.open(part, os.O_RDONLY | os.O_DIRECTORY, dir_fd=directory)
            os.close(directory)
            directory = child
        handle = os.open(parts[-1], os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=directory)
        try:
            os.write(handle, where.data)
        finally:
            os.close(handle)
    finally:
        os.close(directory)
    return Placed()


def _twin(rename: Callable[[str], str], *, keep: bool) -> Place:
    """A file under `rename(leaf)` with other bytes; the expected one too if `keep`."""

    def place(where: Where) -> Placed:
        twin = where.path.with_name(rename(where.path.name))
        if keep:
            _write(where.path, where.data)
            _write(twin, b"a twin with other content\n")
        else:
            _write(twin, where.data)
            where.path.parent.mkdir(parents=True, exist_ok=True)
        return Placed()

    return place


def _foreign_twins(real: str) -> Place:
    """Decoys at every `foreign_readings` of the path.

    `real` says what the real path holds: "expected" (the decoys other
    text), "other" (other text; the decoys the expected content) or
    "nothing" (missing; the decoys the expected content). An evaluator that
    converts the path judges a decoy and gets the verdict wrong.
    """

    def place(where: Where) -> Placed:
        content, _ = FILE_KINDS[where.fact.kind].layout(where.fact.text)
        decoy = (
            b"a decoy with other content\n" if real == "expected" else content.encode()
        )
        for reading in foreign_readings(where.fact.parts):
            _write(where.root / reading, decoy)
        if real == "nothing":
            where.path.parent.mkdir(parents=True, exist_ok=True)
        else:
            _write(where.path, where.data)
        return Placed()

    return place


def _as_nfd(name: str) -> str:
    return unicodedata.normalize("NFD", name)


def _stripped(name: str) -> str:
    return name.strip()


def _other_case(name: str) -> str:
    return name.swapcase()


# --- the kinds --------------------------------------------------------------------


@dataclass(frozen=True)
class FileKind(Kind):
    """A kind of file fact: its layout, its path's shape, how it is placed.

    `spellable`: the case may write the path unnormalised (not for paths at
    the length limit, where one more character would cross it).
    """

    layout: Layout = _same
    shape: Shape = _plain
    place: Place = _regular
    spellable: bool = True

    @property
    def own_path(self) -> bool:
        """Whether the kind decides its path (so it cannot become another kind)."""
        return self.shape is not _plain


def file_layout(fact: FileFact) -> tuple[str, bytes]:
    """The expected content and the bytes the kind puts in the evidence file."""
    return FILE_KINDS[fact.kind].layout(fact.text)


def file_path(kind: str, draft: PathDraft, index: int, variant: int) -> FileFact:
    """The fact of kind `kind` at index `index`, its path shaped by the kind."""
    parts = FILE_KINDS[kind].shape(draft, index, variant)
    return FileFact(index, parts, kind, variant=variant)


def place_file(fact: FileFact, root: Path, outside: Path) -> Placed:
    """Put the fact's evidence below `root` (and, for links out, below `outside`)."""
    kind = FILE_KINDS[fact.kind]
    _, data = kind.layout(fact.text)
    return kind.place(Where(fact, data, root.joinpath(*fact.parts), root, outside))


_READ = (
    "resolve the path with workspace.resolve_path, read its bytes and decode them"
    " as strict UTF-8"
)
_BOUNDARY = "resolve the path through workspace.resolve_path, which refuses"
_UNAVAILABLE = "and report that as 'evidence unavailable: ...'"
_REGULAR_ONLY = "only a regular file is evidence: lstat it and refuse anything else"


def _match(name: str, words: str, hint: str, **more: object) -> FileKind:
    return FileKind(
        name, PASS, f"holds exactly the expected text, {words}", hint, **more
    )


def _mismatch(name: str, words: str, hint: str, **more: object) -> FileKind:
    return FileKind(name, FAIL, words, hint, **more)


def _unavailable(name: str, words: str, hint: str, **more: object) -> FileKind:
    return FileKind(name, UNAVAILABLE, words, hint, **more)


FILE_KINDS: Kinds[FileKind] = Kinds(
    "file",
    [
        FileKind(
            "exact", PASS, "holds exactly the expected text", f"{_READ}, then compare"
        ),
        _match(
            "exact_empty",
            "which is empty",
            "an empty file equals empty expected content",
            layout=lambda text: ("", b""),
        ),
        _match(
            "exact_crlf",
            "which has CRLF line endings",
            "CRLF is content: read bytes (text mode, read_text() or open() without"
            " newline='', turns CRLF into LF)",
            layout=lambda text: _both(_with_newline(text).replace("\n", "\r\n")),
        ),
        _match(
            "exact_cr",
            "which has CR line endings",
            "a lone CR is content: read bytes (text mode turns CR into LF)",
            layout=lambda text: _both(_with_newline(text).replace("\n", "\r")),
        ),
        _match(
            "exact_mixed",
            "which mixes CRLF, CR and LF",
            "line endings are content: read bytes, not text",
            layout=lambda text: _both(
                _with_newline(text).replace("\n", "\r\n", 1) + "z\rw\n"
            ),
        ),
        _match(
            "exact_bom",
            "which starts with a BOM",
            "decode with 'utf-8', not 'utf-8-sig': a BOM is part of the content",
            layout=lambda text: _both(BOM + text),
        ),
        _match(
            "exact_no_final_newline",
            "which has no final newline",
            "compare exactly: do not add or strip a final newline",
            layout=lambda text: _both(_nonempty(text.rstrip("\n"))),
        ),
        _match(
            "exact_padded",
            "which starts and ends with whitespace",
            "compare exactly: do not strip() the file's content",
            layout=lambda text: _both(f"  {text} \n\n"),
        ),
        _match(
            "exact_large",
            "over 64 KiB of it",
            "read the whole file directly; workspace.read_file refuses files over"
            " 64 KiB (and is a stateful tool evaluation must not call)",
            layout=lambda text: _both(_large(text)),
        ),
        _match(
            "exact_nfd",
            "which holds decomposed (NFD) accented letters",
            "compare the decoded text as it is: no unicodedata.normalize on"
            " either side",
            layout=lambda text: _both(text + _NFD),
        ),
        _match(
            "name_nfd",
            "at a name spelled with decomposed (NFD) letters",
            "use the path exactly as the case gives it: no Unicode normalisation"
            " (the names 'é' and 'e\u0301' are different files)",
            shape=_leaf_as(_nfd),
        ),
        _match(
            "name_spaced",
            "at a name that begins and ends with a space",
            "use the path exactly as the case gives it: do not strip() it (' a'"
            " and 'a' are different files)",
            shape=_leaf_as(_spaced),
        ),
        _match(
            "name_nfc_beside_nfd",
            "at a name in composed (NFC) form, beside a file of the same name in"
            " decomposed (NFD) form with other text",
            "use the path exactly as the case gives it: normalising it reads the"
            " other file",
            shape=_leaf_as(_nfc),
            place=_twin(_as_nfd, keep=True),
        ),
        _match(
            "name_spaced_beside_stripped",
            "at a name padded with spaces, beside the unpadded name holding other text",
            "use the path exactly as the case gives it: stripping it reads the"
            " other file",
            shape=_leaf_as(_spaced),
            place=_twin(_stripped, keep=True),
        ),
        _match(
            "name_cased_beside_other_case",
            "at a name with capitals, beside the same name in the other letter"
            " case holding other text",
            "use the path exactly as the case gives it: names differ by case on"
            " this filesystem, so a case-insensitive lookup reads the other file",
            shape=_leaf_as(_cased),
            place=_twin(_other_case, keep=True),
        ),
        _match(
            "name_foreign_beside_converted",
            "at a name holding a backslash, a colon or a drive-like prefix"
            " (`w\\a`, `C:a`, `C:/a`, `a:x`), beside the converted paths"
            " (`w/a`, `a`) holding other text",
            "use the path exactly as the case gives it: on POSIX a backslash or"
            " a colon is an ordinary name character; converting it to a"
            " separator or dropping a drive reads the other file",
            shape=_foreign,
            place=_foreign_twins("expected"),
        ),
        _match(
            "long_path",
            "at a path just under PATH_MAX bytes",
            "a path within NAME_MAX and PATH_MAX is ordinary evidence",
            level="hardened",
            shape=_long,
            spellable=False,
        ),
        _mismatch(
            "wrong_byte",
            "differs from the expected text in one character",
            "compare the whole content with ==",
            perturbation="one character of the file changed",
            layout=_wrong_byte,
        ),
        _mismatch(
            "crlf_twin",
            "holds the expected text with CRLF where it has LF",
            "CRLF is not LF: read bytes, not text (text mode turns CRLF into LF)",
            perturbation="file rewritten with CRLF line endings",
            layout=lambda text: (
                _with_newline(text),
                _with_newline(text).replace("\n", "\r\n").encode(),
            ),
        ),
        _mismatch(
            "cr_twin",
            "holds the expected text with CR where it has LF",
            "CR is not LF: read bytes, not text (text mode turns CR into LF)",
            perturbation="file rewritten with CR line endings",
            layout=lambda text: (
                _with_newline(text),
                _with_newline(text).replace("\n", "\r").encode(),
            ),
        ),
        _mismatch(
            "lf_twin",
            "holds the expected text with LF where it has CRLF",
            "LF is not CRLF: compare the bytes' text exactly, no newline normalisation",
            layout=lambda text: (
                _with_newline(text).replace("\n", "\r\n"),
                _with_newline(text).encode(),
            ),
        ),
        _mismatch(
            "bom_added",
            "holds a BOM followed by the expected text",
            "a BOM is content: decode with 'utf-8', not 'utf-8-sig'",
            perturbation="BOM added to the file",
            layout=lambda text: (text, (BOM + text).encode()),
        ),
        _mismatch(
            "bom_removed",
            "holds the expected text without its leading BOM",
            "a BOM is content: decode with 'utf-8', not 'utf-8-sig'",
            perturbation="expected content starts with a BOM the file lacks",
            changes="case",
            layout=lambda text: (BOM + text, text.encode()),
        ),
        _mismatch(
            "newline_added",
            "holds the expected text plus a final newline",
            "compare exactly: do not strip a trailing newline",
            perturbation="trailing newline added to the file",
            layout=lambda text: (text, (text + "\n").encode()),
        ),
        _mismatch(
            "newline_removed",
            "holds the expected text without its final newline",
            "compare exactly: do not strip a trailing newline",
            perturbation="expected content has one more newline at the end",
            changes="case",
            layout=lambda text: (text + "\n", text.encode()),
        ),
        _mismatch(
            "padded",
            "holds the expected text with whitespace around it",
            "compare exactly: do not strip() either side",
            layout=lambda text: (_nonempty(text), f" {_nonempty(text)} \n".encode()),
        ),
        _mismatch(
            "line_end_spaces",
            "holds the expected text with spaces and a tab at the end of each line",
            "compare exactly: spaces at the end of a line are content (no"
            " rstrip() per line)",
            perturbation="spaces added at the end of every line of the file",
            layout=lambda text: (
                _with_newline(text),
                "\n".join(
                    line + " \t" for line in _with_newline(text).split("\n")
                ).encode(),
            ),
        ),
        _mismatch(
            "ligature_on_disk",
            "holds the expected text with a ligature (ﬁ) where it has the two"
            " letters (fi)",
            "compare the decoded text as it is: no NFKC or NFKD normalisation",
            layout=lambda text: (text + "fi", (text + "\ufb01").encode()),
        ),
        _mismatch(
            "longer",
            "holds the expected text followed by more",
            "compare with ==, not startswith()",
            layout=lambda text: (text, (text + "x").encode()),
        ),
        _mismatch(
            "shorter",
            "holds the expected text minus its last character",
            "compare with ==, not startswith() or `in`",
            perturbation="expected content one character longer",
            changes="case",
            layout=lambda text: (text + "|", text.encode()),
        ),
        _mismatch(
            "embedded",
            "holds the expected text with more on both sides",
            "compare with ==, not `in`",
            layout=lambda text: (_nonempty(text), f"x{_nonempty(text)}y".encode()),
        ),
        _mismatch(
            "emptied",
            "is empty, but the expected text is not",
            "compare with ==, not `in`: an empty file does not hold the content",
            perturbation="file emptied",
            layout=lambda text: (_nonempty(text), b""),
        ),
        _mismatch(
            "filled",
            "holds some text, but the expected text is empty",
            "compare with ==, not `in`: empty expected content is in every string",
            layout=lambda text: ("", _nonempty(text).encode()),
        ),
        _mismatch(
            "large_tail",
            "holds over 64 KiB equal to the expected text except near the end",
            "compare the whole file, not a bounded prefix",
            layout=_large_tail,
        ),
        _mismatch(
            "case_swapped",
            "holds the expected text in the other letter case",
            "compare exactly: no lower(), upper() or casefold()",
            layout=_case_swapped,
        ),
        _mismatch(
            "nfd_on_disk",
            "holds the expected text with its accented letters decomposed (NFD)",
            "compare the decoded text as it is: NFC and NFD are different text;"
            " no unicodedata.normalize",
            perturbation="file rewritten with decomposed (NFD) accents",
            layout=lambda text: (text + _NFC, (text + _NFD).encode()),
        ),
        _mismatch(
            "nfc_on_disk",
            "holds the expected text with its accented letters composed (NFC)"
            " where the expected text has them decomposed",
            "compare the decoded text as it is: NFC and NFD are different text;"
            " no unicodedata.normalize",
            layout=lambda text: (text + _NFD, (text + _NFC).encode()),
        ),
        _mismatch(
            "content_lone_surrogate",
            "holds the expected text, which ends with a lone surrogate (U+D800)"
            " no UTF-8 file can hold",
            "expected content may hold a lone surrogate (a str allows it): compare"
            " decoded text, or encode with errors handled; a failed check, never"
            " an exception",
            layout=lambda text: (text + "\ud800", text.encode()),
        ),
        _mismatch(
            "name_foreign_converted_matches",
            "is a name holding a backslash, a colon or a drive-like prefix that"
            " holds other text; only the converted paths (`w/a`, `a`) hold the"
            " expected text",
            "use the path exactly as the case gives it: on POSIX `w\\a` is one"
            " name, not `w/a`, and `C:` is a directory, not a drive",
            layout=lambda text: (_nonempty(text), b"other content at the real name\n"),
            shape=_foreign,
            place=_foreign_twins("other"),
        ),
        _mismatch(
            "sparse",
            "is a sparse file of GiBs of NUL bytes",
            "a file longer than the expected text cannot match it: read at most"
            " one byte more than the expected length",
            level="hardened",
            shape=_own_top,
            place=_sparse,
        ),
        _unavailable(
            "missing",
            "does not exist",
            "a missing file is unavailable evidence: catch the boundary's error"
            f" {_UNAVAILABLE}",
            perturbation="file removed",
            place=_missing,
        ),
        _unavailable(
            "directory",
            "is a directory",
            f"a directory is unavailable evidence: catch the OSError {_UNAVAILABLE}",
            perturbation="file replaced by a directory",
            place=_directory,
        ),
        _unavailable(
            "symlink_inside",
            "is a symlink to a file inside the root holding exactly the expected text",
            f"{_BOUNDARY} symlinks (AgentError), {_UNAVAILABLE}",
            perturbation="file replaced by a symlink to an identical file",
            place=_symlink_inside,
        ),
        _unavailable(
            "symlink_outside",
            "is a symlink to a file outside the root holding exactly the expected text",
            f"{_BOUNDARY} symlinks (AgentError), {_UNAVAILABLE}",
            perturbation="file replaced by a symlink out of the root",
            place=_symlink_outside,
        ),
        _unavailable(
            "symlinked_parent",
            "is reached through a symlinked parent directory; the file holds"
            " exactly the expected text",
            f"{_BOUNDARY} a symlink at any component, {_UNAVAILABLE}",
            shape=_symlinked_parent,
            place=_symlinked_parent_place,
        ),
        _unavailable(
            "protected",
            "has a protected name and holds exactly the expected text",
            f"{_BOUNDARY} protected names (AgentError), whatever they hold,"
            f" {_UNAVAILABLE}",
            shape=_protected,
        ),
        _unavailable(
            "invalid_utf8",
            "holds the expected text with an invalid UTF-8 byte inserted",
            "decode strictly and report UnicodeDecodeError as 'evidence"
            " unavailable: ...'; errors='ignore' invents content",
            perturbation="invalid UTF-8 byte inserted into the file",
            layout=lambda text: _invalid(text, replaced=False),
        ),
        _unavailable(
            "invalid_utf8_replaced",
            "holds invalid UTF-8 where the expected text has U+FFFD",
            "decode strictly and report UnicodeDecodeError as 'evidence"
            " unavailable: ...'; errors='replace' invents U+FFFD",
            layout=lambda text: _invalid(text, replaced=True),
        ),
        _unavailable(
            "invalid_utf8_truncated",
            "holds the expected text plus half of a two-byte character",
            "decode strictly and report UnicodeDecodeError as 'evidence"
            " unavailable: ...'",
            layout=lambda text: (text + "é", text.encode() + "é".encode()[:1]),
        ),
        _unavailable(
            "invalid_utf8_latin1",
            "holds bytes that are not UTF-8 but read as Latin-1 give exactly the"
            " expected text",
            "decode strictly as UTF-8: no fallback to Latin-1 or cp1252 when it fails",
            layout=lambda text: (
                (text.encode() + b"\xe9").decode("latin-1"),
                text.encode() + b"\xe9",
            ),
        ),
        _unavailable(
            "invalid_utf8_as_surrogateescape",
            "holds invalid UTF-8; the expected text is what errors='surrogateescape'"
            " makes of it (lone surrogates)",
            "decode strictly and report UnicodeDecodeError as 'evidence"
            " unavailable: ...'; errors='surrogateescape' turns bad bytes into"
            " lone surrogates that can equal the expected text",
            layout=_leniently("surrogateescape"),
        ),
        _unavailable(
            "invalid_utf8_as_replace",
            "holds invalid UTF-8 of three sorts; the expected text is what"
            " errors='replace' makes of it (U+FFFD)",
            "decode strictly and report UnicodeDecodeError as 'evidence"
            " unavailable: ...'; errors='replace' invents U+FFFD",
            layout=_leniently("replace"),
        ),
        _unavailable(
            "invalid_utf8_as_ignore",
            "holds invalid UTF-8 of three sorts; the expected text is what"
            " errors='ignore' makes of it (the bad bytes left out)",
            "decode strictly and report UnicodeDecodeError as 'evidence"
            " unavailable: ...'; errors='ignore' drops bytes and invents a match",
            layout=_leniently("ignore"),
        ),
        _unavailable(
            "name_foreign_only_converted",
            "is a name holding a backslash, a colon or a drive-like prefix that"
            " does not exist; only the converted paths (`w/a`, `a`) exist,"
            " holding exactly the expected text",
            "use the path exactly as the case gives it: on POSIX `w\\a` is one"
            " name, so the file asked for is missing",
            shape=_foreign,
            place=_foreign_twins("nothing"),
        ),
        _unavailable(
            "name_nfc_only_nfd",
            "is named in composed (NFC) form, but only a file named in decomposed"
            " (NFD) form exists, holding exactly the expected text",
            "use the path exactly as the case gives it: a name in another Unicode"
            " form is another file, so this one is missing",
            shape=_leaf_as(_nfc),
            place=_twin(_as_nfd, keep=False),
        ),
        _unavailable(
            "name_spaced_only_stripped",
            "is a name padded with spaces, but only the unpadded name exists,"
            " holding exactly the expected text",
            "use the path exactly as the case gives it: do not strip() it; the"
            " padded name is missing",
            shape=_leaf_as(_spaced),
            place=_twin(_stripped, keep=False),
        ),
        _unavailable(
            "name_cased_only_other_case",
            "is a name with capitals, but only the same name in the other letter"
            " case exists, holding exactly the expected text",
            "use the path exactly as the case gives it: no case-insensitive"
            " fallback; the name asked for is missing",
            shape=_leaf_as(_cased),
            place=_twin(_other_case, keep=False),
        ),
        _unavailable(
            "fifo",
            "is a FIFO (named pipe)",
            f"{_REGULAR_ONLY}: opening a FIFO for reading blocks",
            level="hardened",
            place=_fifo,
        ),
        _unavailable(
            "socket",
            "is a Unix socket",
            _REGULAR_ONLY,
            level="hardened",
            shape=_socket,
            place=_bound_socket,
            spellable=False,
        ),
        _unavailable(
            "device",
            "is a character device (a /dev/null twin)",
            f"{_REGULAR_ONLY}: a device twin is not a file",
            level="hardened",
            place=_device,
        ),
        _unavailable(
            "symlink_loop",
            "is a symlink loop (a link to itself, two links to each other, or a"
            " top directory that links to itself)",
            "a symlink on the path makes the evidence unavailable",
            level="hardened",
            shape=_own_top,
            place=_symlink_loop,
        ),
        _unavailable(
            "symlink_chain",
            "is a chain of symlinks inside the root ending at the expected text",
            f"{_BOUNDARY} a symlink at any component, even one that stays inside",
            level="hardened",
            shape=_own_top,
            place=_symlink_chain,
        ),
        _unavailable(
            "symlink_out_at",
            "is reached through a symlink out of the root at one component; the"
            " secret it leads to holds exactly the expected text",
            f"{_BOUNDARY} a symlink at any component and never follows one",
            level="hardened",
            shape=_own_top,
            place=_symlink_out_at,
        ),
        _unavailable(
            "name_too_long",
            "has a component longer than NAME_MAX bytes (it cannot exist)",
            "a path the kernel refuses is unavailable evidence, not an exception:"
            " resolve_path may raise OSError (ENAMETOOLONG) as well as AgentError,"
            " so catch both",
            shape=_too_long,
            # Its directories exist, so the kernel's walk reaches the long
            # name (ENAMETOOLONG) instead of stopping at a missing directory.
            place=_missing,
            spellable=False,
        ),
        FileKind(
            "beyond_path_max",
            EITHER,
            "lies in a tree nested deeper than PATH_MAX bytes",
            "a path the kernel refuses must not crash or hang the evaluator",
            level="hardened",
            shape=_deep,
            place=_deep_place,
            spellable=False,
        ),
    ],
)
