"""Paths: the segments a file fact's path is drawn from, and the shapes a
kind of file gives its path.

A path is its parts; its normalised form is the parts joined by "/", and
`spelled` writes it as a case may (./a, a//b, a/./b, a/), each normalising
back to the parts. A plain file's path is its drawn parts as they are: any
names the contract allows (`allowed_name`), no index in them; the world
keeps facts apart by what they claim on disk (`claims`). A kind that needs
a path of its own (a protected name, a symlinked parent, a name in another
Unicode form, a path at the length limit) has a `Shape`: the parts made
from the drawn segments and the fact's index, so its own names never
collide, under a top directory no other fact shares.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from strategies.vocabulary import LOG_NAME, NAME_MAX, PATH_MAX, PROTECTED_NAMES

__all__ = [
    "FOREIGN_FORMS",
    "LINE_BREAKS",
    "allowed_name",
    "claims",
    "ROOT_BYTES",
    "SPELLINGS",
    "PathDraft",
    "SHAPES",
    "Shape",
    "foreign_readings",
    "spelled",
]

#: How a case may spell a path; all of them normalise to the same path.
SPELLINGS = ("plain", "dot_slash", "double_slash", "trailing_slash", "dot_inside")

#: The workspace root of every built world is exactly this many bytes long,
#: so a path at the length limit is known before the world is built.
ROOT_BYTES = 96


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


# --- where a kind's path lies -----------------------------------------------------


@dataclass(frozen=True)
class PathDraft:
    """The drawn pieces a path is made of; the index makes it unique."""

    dirs: tuple[str, ...]
    stem: str
    suffix: str


Shape = Callable[[PathDraft, int, int], "tuple[str, ...]"]


def _plain(draft: PathDraft, index: int, variant: int) -> tuple[str, ...]:
    return (*draft.dirs, f"{draft.stem}{draft.suffix}")


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
    return tuple(dict.fromkeys(r for r in readings if _beside(r, path)))


def _beside(reading: str, path: str) -> bool:
    """Whether a reading is a file that can lie beside `path`: a clean
    relative path (names drawn from any character can read as `a/`, `a//b`
    or `a/../b`), neither one of `path`'s folders nor below it."""
    names = reading.split("/")
    return (
        all(name not in ("", ".", "..") for name in names)
        and not f"{path}/".startswith(f"{reading}/")
        and not reading.startswith(f"{path}/")
    )


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


#: Every shape a kind may give its path, by name.
SHAPES: dict[str, Shape] = {
    "plain": _plain,
    "protected": _protected,
    "symlinked_parent": _symlinked_parent,
    "own_top": _own_top,
    "socket": _socket,
    "foreign": _foreign,
    "long": _long,
    "deep": _deep,
    "too_long": _too_long,
    "nfd": _leaf_as(_nfd),
    "nfc": _leaf_as(_nfc),
    "spaced": _leaf_as(_spaced),
    "cased": _leaf_as(_cased),
}


# --- which names a drawn path may hold, and what a fact claims on disk --------------

#: What no drawn name holds beside "/" and NUL (the contract's): line breaks,
#: because a check's name is one line of render().
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_PROTECTED = (".aws", ".env", ".git", ".ssh", "credentials", "id_ed25519", "id_rsa")


def _protected_name(name: str) -> bool:
    """Whether a workspace boundary may refuse `name`, under any folding it
    might compare with (lower, casefold, upper then lower, NFKC first)."""
    forms = {
        fold(text)
        for text in (name, unicodedata.normalize("NFKC", name))
        for fold in (str.lower, str.casefold, lambda t: t.upper().lower())
    }
    return any(
        f in _PROTECTED or f.startswith(".env.") or f.endswith((".key", ".pem"))
        for f in forms
    )


def allowed_name(name: str, *, top: bool = False) -> bool:
    """Whether a plain path may hold `name` as a component: what the contract
    allows a FileExpectation path (not empty, `.` or `..`, no "/" or NUL, no
    protected name, at most NAME_MAX bytes), on one line; at the `top`, none
    of the builder's own names (`_...`, the log's, its FIFO's)."""
    return not (
        name in ("", ".", "..")
        or any(c in name for c in "/\x00" + LINE_BREAKS)
        or len(name.encode("utf-8", "surrogatepass")) > NAME_MAX
        or _protected_name(name)
        or (top and (name.startswith(("_", LOG_NAME)) or name == "pipe"))
    )


def _key(name: str) -> str:
    # Names a twin or a converted reading might share: one key.
    return unicodedata.normalize("NFD", name.strip()).casefold()


def claims(parts: tuple[str, ...], own: bool) -> tuple[tuple[str, ...], frozenset[str]]:
    """What a fact at `parts` claims: the path itself (no other fact's path
    may equal it or lie on it) and, for a kind with a path of its own (`own`:
    its twins, decoys and links sit beside it), every top directory its
    nodes may use, folded, which no other fact may share."""
    if not own:
        return parts, frozenset()
    tops = {parts[0], *(r.split("/")[0] for r in foreign_readings(parts))}
    return parts, frozenset(_key(t) for t in tops)
