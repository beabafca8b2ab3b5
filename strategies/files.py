"""Files: what sits at each expected path, and what it holds against what is expected.

A file fact is drawn, not picked from a list of mistakes: its base text is
any text, and an `Edit` changes either the file's bytes (side "world") or
what the case expects (side "case") by one operator whose effect on the
bytes is computed here: a byte changed, a cut, bytes inserted, line endings,
a BOM, another encoding, a Unicode form, whitespace, letter case. The check's
verdict follows from the bytes the generator made (`content_verdict`): the
file passes exactly when it holds the expected text's UTF-8, is unavailable
when it is not UTF-8 at all, and fails otherwise; an edit that changes
nothing (NFC of NFC text, Latin-1 of ASCII) leaves a passing file.

What a file *is* stays a short table, `FILE_KINDS`, because that is a list:
a regular file, or missing, a directory, a symlink, a FIFO, a protected
name, a name in another form beside or instead of it... Each kind says where
its path lies when it needs a path of its own; `judge.nodes` says what
it puts on disk, and `judge.layout` makes it.

Accidental collisions are impossible by construction: every path carries its
fact's index in its last component (or in a top directory `h<index>` of its
own), directories never hold a digit, and files the builder needs for its
own sake live under names starting `_`, a character no drawn name contains.
"""

from __future__ import annotations

import functools
import os
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from strategies.edits import (
    EDITS,
    KEPT,
    READINGS,
    Edit,
    content_verdict,
    edit_words,
    edited,
    perturbing_edits,
)
from strategies.kinds import EITHER, FAIL, PASS, UNAVAILABLE, Kind, Kinds
from strategies.paths import (
    FOREIGN_FORMS,
    ROOT_BYTES,
    SHAPES,
    SPELLINGS,
    PathDraft,
    foreign_readings,
    spelled,
)

__all__ = [
    "FILE_KINDS",
    "FOREIGN_FORMS",
    "ROOT_BYTES",
    "SPARSE_SIZES",
    "SPELLINGS",
    "FileFact",
    "FileKind",
    "PathDraft",
    "devices_available",
    "file_kind",
    "file_layout",
    "file_path",
    "file_perturbations",
    "foreign_readings",
    "spelled",
]

_GIB = 1 << 30
#: Sizes of sparse files: past 1 GiB and past 4 GiB (a 32-bit length).
SPARSE_SIZES = (_GIB + 7, 4 * _GIB + 1)


@dataclass(frozen=True)
class FileFact:
    """One expected file: its normalised path, its kind, its base text and
    the edit made to it.

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
    edit: Edit = field(default=KEPT)

    def __post_init__(self) -> None:
        FILE_KINDS[self.kind]  # an unknown kind is refused here, at once
        if self.spelling not in SPELLINGS:
            raise ValueError(f"file: spelling {self.spelling!r}")

    @property
    def path(self) -> str:
        return "/".join(self.parts)


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


# --- the kinds: what a file is --------------------------------------------------------


@dataclass(frozen=True)
class FileKind(Kind):
    """What stands at a file fact's path, and where the path lies.

    `layout`, when set, replaces the edit (expected text, bytes on disk)
    from the base text. `spellable`: the case may write the path
    unnormalised (not for paths at the length limit).
    """

    layout: Callable[[str], tuple[str, bytes]] | None = None
    shape: str = "plain"  # a name in strategies.paths.SHAPES
    spellable: bool = True

    @property
    def own_path(self) -> bool:
        """Whether the kind decides its path (so it cannot become another kind)."""
        return self.shape != "plain"


def file_layout(fact: FileFact) -> tuple[str, bytes]:
    """The expected content and the bytes put in the evidence file."""
    layout = FILE_KINDS[fact.kind].layout
    if layout is not None:
        return layout(fact.text)
    edit = fact.edit
    changed = edited(fact.text, edit)
    if edit.side == "case":
        return changed.decode("utf-8", "surrogateescape"), fact.text.encode()
    expected = changed.decode(*READINGS[edit.reading]) if edit.reading else fact.text
    return expected, changed


def file_kind(fact: FileFact) -> FileKind:
    """The fact's kind, its verdict settled by its bytes when it is a
    readable file: an edit that changed them names the mistake it exposes."""
    kind = FILE_KINDS[fact.kind]
    if kind.verdict != PASS:
        return kind
    verdict = content_verdict(*file_layout(fact))
    if verdict == PASS:
        return kind
    if verdict == UNAVAILABLE:
        lenient = f"; errors={fact.edit.reading!r} reads it as the expected text"
        return replace(
            kind,
            name="invalid_utf8",
            verdict=UNAVAILABLE,
            words=f"is not valid UTF-8: it {edit_words(fact.text, fact.edit)}",
            hint="decode strictly and report UnicodeDecodeError as 'evidence"
            " unavailable: ...'" + (lenient if fact.edit.reading else ""),
        )
    return replace(
        kind,
        name=fact.edit.op,
        verdict=FAIL,
        words=edit_words(fact.text, fact.edit),
        hint=EDITS[fact.edit.op].hint,
        changes=fact.edit.side,
    )


def file_path(kind: str, draft: PathDraft, index: int, variant: int) -> FileFact:
    """The fact of kind `kind` at index `index`, its path shaped by the kind."""
    parts = SHAPES[FILE_KINDS[kind].shape](draft, index, variant)
    return FileFact(index, parts, kind, variant=variant)


def file_perturbations(fact: FileFact) -> list[tuple[str, str, FileFact]]:
    """Every single change of a passing file fact that fails its check:
    (how it reads, "case" or "world", the changed fact). Edits that leave
    the bytes as they are (CRLF where there is no line) are left out."""
    found = []
    if fact.kind == "exact":
        for edit in perturbing_edits(fact.text):
            changed = replace(fact, edit=edit)
            if content_verdict(*file_layout(changed)) != PASS:
                found.append(
                    (edit_words(changed.text, changed.edit), edit.side, changed)
                )
    for kind in FILE_KINDS.perturbations():
        found.append((kind.perturbation, kind.changes, replace(fact, kind=kind.name)))
    return found


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
            "name_nfd",
            "at a name spelled with decomposed (NFD) letters",
            "use the path exactly as the case gives it: no Unicode normalisation"
            " (the names 'é' and 'e\u0301' are different files)",
            shape="nfd",
        ),
        _match(
            "name_spaced",
            "at a name that begins and ends with a space",
            "use the path exactly as the case gives it: do not strip() it (' a'"
            " and 'a' are different files)",
            shape="spaced",
        ),
        _match(
            "name_nfc_beside_nfd",
            "at a name in composed (NFC) form, beside a file of the same name in"
            " decomposed (NFD) form with other text",
            "use the path exactly as the case gives it: normalising it reads the"
            " other file",
            shape="nfc",
        ),
        _match(
            "name_spaced_beside_stripped",
            "at a name padded with spaces, beside the unpadded name holding other text",
            "use the path exactly as the case gives it: stripping it reads the"
            " other file",
            shape="spaced",
        ),
        _match(
            "name_cased_beside_other_case",
            "at a name with capitals, beside the same name in the other letter"
            " case holding other text",
            "use the path exactly as the case gives it: names differ by case on"
            " this filesystem, so a case-insensitive lookup reads the other file",
            shape="cased",
        ),
        _match(
            "name_foreign_beside_converted",
            "at a name holding a backslash, a colon or a drive-like prefix"
            " (`w\\a`, `C:a`, `C:/a`, `a:x`), beside the converted paths"
            " (`w/a`, `a`) holding other text",
            "use the path exactly as the case gives it: on POSIX a backslash or"
            " a colon is an ordinary name character; converting it to a"
            " separator or dropping a drive reads the other file",
            shape="foreign",
        ),
        _match(
            "long_path",
            "at a path just under PATH_MAX bytes",
            "a path within NAME_MAX and PATH_MAX is ordinary evidence",
            level="hardened",
            shape="long",
            spellable=False,
        ),
        _mismatch(
            "name_foreign_converted_matches",
            "is a name holding a backslash, a colon or a drive-like prefix that"
            " holds other text; only the converted paths (`w/a`, `a`) hold the"
            " expected text",
            "use the path exactly as the case gives it: on POSIX `w\\a` is one"
            " name, not `w/a`, and `C:` is a directory, not a drive",
            layout=lambda text: (text or "a", b"other content at the real name\n"),
            shape="foreign",
        ),
        _mismatch(
            "sparse",
            "is a sparse file of GiBs of NUL bytes",
            "a file longer than the expected text cannot match it: read at most"
            " one byte more than the expected length",
            level="hardened",
            shape="own_top",
        ),
        _unavailable(
            "missing",
            "does not exist",
            "a missing file is unavailable evidence: catch the boundary's error"
            f" {_UNAVAILABLE}",
            perturbation="file removed",
        ),
        _unavailable(
            "directory",
            "is a directory",
            f"a directory is unavailable evidence: catch the OSError {_UNAVAILABLE}",
            perturbation="file replaced by a directory",
        ),
        _unavailable(
            "symlink_inside",
            "is a symlink to a file inside the root holding exactly the expected text",
            f"{_BOUNDARY} symlinks (AgentError), {_UNAVAILABLE}",
            perturbation="file replaced by a symlink to an identical file",
        ),
        _unavailable(
            "symlink_outside",
            "is a symlink to a file outside the root holding exactly the expected text",
            f"{_BOUNDARY} symlinks (AgentError), {_UNAVAILABLE}",
            perturbation="file replaced by a symlink out of the root",
        ),
        _unavailable(
            "symlinked_parent",
            "is reached through a symlinked parent directory; the file holds"
            " exactly the expected text",
            f"{_BOUNDARY} a symlink at any component, {_UNAVAILABLE}",
            shape="symlinked_parent",
        ),
        _unavailable(
            "protected",
            "has a protected name and holds exactly the expected text",
            f"{_BOUNDARY} protected names (AgentError), whatever they hold,"
            f" {_UNAVAILABLE}",
            shape="protected",
        ),
        _unavailable(
            "name_foreign_only_converted",
            "is a name holding a backslash, a colon or a drive-like prefix that"
            " does not exist; only the converted paths (`w/a`, `a`) exist,"
            " holding exactly the expected text",
            "use the path exactly as the case gives it: on POSIX `w\\a` is one"
            " name, so the file asked for is missing",
            shape="foreign",
        ),
        _unavailable(
            "name_nfc_only_nfd",
            "is named in composed (NFC) form, but only a file named in decomposed"
            " (NFD) form exists, holding exactly the expected text",
            "use the path exactly as the case gives it: a name in another Unicode"
            " form is another file, so this one is missing",
            shape="nfc",
        ),
        _unavailable(
            "name_spaced_only_stripped",
            "is a name padded with spaces, but only the unpadded name exists,"
            " holding exactly the expected text",
            "use the path exactly as the case gives it: do not strip() it; the"
            " padded name is missing",
            shape="spaced",
        ),
        _unavailable(
            "name_cased_only_other_case",
            "is a name with capitals, but only the same name in the other letter"
            " case exists, holding exactly the expected text",
            "use the path exactly as the case gives it: no case-insensitive"
            " fallback; the name asked for is missing",
            shape="cased",
        ),
        _unavailable(
            "fifo",
            "is a FIFO (named pipe)",
            f"{_REGULAR_ONLY}: opening a FIFO for reading blocks",
            level="hardened",
        ),
        _unavailable(
            "socket",
            "is a Unix socket",
            _REGULAR_ONLY,
            level="hardened",
            shape="socket",
            spellable=False,
        ),
        _unavailable(
            "device",
            "is a character device (a /dev/null twin)",
            f"{_REGULAR_ONLY}: a device twin is not a file",
            level="hardened",
        ),
        _unavailable(
            "symlink_loop",
            "is a symlink loop (a link to itself, two links to each other, or a"
            " top directory that links to itself)",
            "a symlink on the path makes the evidence unavailable",
            level="hardened",
            shape="own_top",
        ),
        _unavailable(
            "symlink_chain",
            "is a chain of symlinks inside the root ending at the expected text",
            f"{_BOUNDARY} a symlink at any component, even one that stays inside",
            level="hardened",
            shape="own_top",
        ),
        _unavailable(
            "symlink_out_at",
            "is reached through a symlink out of the root at one component; the"
            " secret it leads to holds exactly the expected text",
            f"{_BOUNDARY} a symlink at any component and never follows one",
            level="hardened",
            shape="own_top",
        ),
        _unavailable(
            "name_too_long",
            "has a component longer than NAME_MAX bytes (it cannot exist)",
            "a path the kernel refuses is unavailable evidence, not an exception:"
            " resolve_path may raise OSError (ENAMETOOLONG) as well as AgentError,"
            " so catch both",
            shape="too_long",
            spellable=False,
        ),
        FileKind(
            "beyond_path_max",
            EITHER,
            "lies in a tree nested deeper than PATH_MAX bytes",
            "a path the kernel refuses must not crash or hang the evaluator",
            level="hardened",
            shape="deep",
            spellable=False,
        ),
    ],
)
