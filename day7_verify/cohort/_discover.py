"""Which learner folders the command judges, from the paths it is given.

A PATH is a course checkout (its `src/tiny_llm/agent` is judged), or an agent
folder itself (one holding any of the Day 7 modules); a file is a usage
error. `--cohort ROOT` finds one learner per submission: each entry directly
under ROOT is one submission, and its agent folder (itself, or the one
checkout or agent folder below it, searched no deeper than four levels below
ROOT, never inside a learner or a hidden folder) is judged. A submission
holding none, or several, is a learner too, judged `error` saying why: a
folder left empty never vanishes from the class, and one submission never
becomes many rows. Whatever cannot be read is that submission's row.

A learner's folder is what it says it is. A folder the learner could have
made a symbolic link (a PATH's own last component, anything below ROOT, a
checkout's `src`, `src/tiny_llm` or `src/tiny_llm/agent`) is never followed:
it is a learner of its own, judged `error` saying where the link points.
What leads to a PATH or to ROOT is the teacher's (on macOS /tmp is a link).

A learner is named by the path as the user wrote it (so reports made on
different machines with the same layout agree). One folder named twice is
judged once, under the first name (`named_again` says which names were
dropped); a link is never merged with the folder it points to.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from judge.target import DAY7_MODULES

__all__ = [
    "COURSE_AGENT",
    "Learner",
    "UsageError",
    "cohort",
    "learner_at",
    "named_again",
    "shown",
    "unique",
]

#: Where a course checkout keeps the learner's agent folder.
COURSE_AGENT = Path("src", "tiny_llm", "agent")

# Levels below a cohort root searched for learners: ROOT/name/src/tiny_llm/agent.
_COHORT_DEPTH = 4
# Never a learner, never searched, never a row: tool caches, and the
# resource-fork folder a zip made on a Mac unpacks beside the submissions.
_NEVER_SEARCHED = frozenset(
    {"__pycache__", "node_modules", "site-packages", "__MACOSX"}
)
_MODULE_FILES = ", ".join(f"{name}.py" for name in DAY7_MODULES)


class UsageError(Exception):
    """The command was asked something it cannot do; one line saying what."""


@dataclass(frozen=True, order=True)
class Learner:
    """One learner: its name in reports, the folder judged, and, when known
    before judging, why it cannot be judged (its status is then `error`)."""

    path: str
    folder: Path
    problem: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not self.path:
            raise ValueError("a learner needs a non-empty path")


def shown(text: str) -> str:
    """A name from the learner's disk, on one line and as data (escaped
    when it holds a line break, a control or a bidirectional mark)."""
    return text if text.isprintable() else ascii(text)


def _link_problem(what: str, link: Path) -> str:
    try:
        target = shown(os.readlink(link))
    except OSError as error:
        target = f"somewhere that cannot be read ({error.strerror})"
    return (
        f"the folder cannot be loaded: {what} is a symbolic link to {target};"
        " judge the folder itself"
    )


def _is_agent_folder(folder: Path) -> bool:
    return any((folder / f"{name}.py").is_file() for name in DAY7_MODULES)


def _is_checkout(folder: Path) -> bool:
    return (folder / COURSE_AGENT).is_dir()


def _checkout_link(checkout: Path) -> str | None:
    """Why a checkout's way to its agent folder is not the checkout's own."""
    part = checkout
    for name in COURSE_AGENT.parts:
        part = part / name
        if part.is_symlink():
            return _link_problem(
                f"{part.relative_to(checkout).as_posix()} in the checkout", part
            )
    return None


def _learner(written: str, folder: Path) -> Learner:
    """The learner at a folder known to be one (not itself a link)."""
    if not _is_agent_folder(folder) and _is_checkout(folder):
        return Learner(
            os.path.normpath(os.path.join(written, COURSE_AGENT)),
            folder / COURSE_AGENT,
            _checkout_link(folder),
        )
    return Learner(os.path.normpath(written), folder)


def _checkout_of(path: Path) -> Path | None:
    """The checkout `path` is the agent folder of (it ends in
    src/tiny_llm/agent), or None."""
    depth = len(COURSE_AGENT.parts)
    if tuple(path.parts[-depth:]) != COURSE_AGENT.parts or len(path.parts) <= depth:
        return None
    return Path(*path.parts[:-depth])


def learner_at(raw: str) -> Learner:
    """The learner a PATH names; UsageError when nothing, or a file, is there.

    A PATH that is a folder but neither a checkout nor an agent folder is
    still a learner: the judge then says why it cannot be loaded (status
    `error`). So is a PATH that is a symbolic link, wherever it points: its
    last component is the learner's; the folders leading to it the teacher's.
    """
    try:
        return _learner_at(raw)
    except OSError as error:
        # Somewhere on the way cannot be read (as an ordinary teacher): the
        # row says so, and the class is judged.
        return Learner(
            os.path.normpath(raw),
            Path(raw),
            f"the folder cannot be loaded: it cannot be read ({error.strerror})",
        )


def _learner_at(raw: str) -> Learner:
    path = Path(raw)
    # An agent folder named inside its checkout (a glob of
    # class/*/src/tiny_llm/agent): the checkout's src and src/tiny_llm are
    # the learner's too, and a link there is theirs to explain.
    checkout = _checkout_of(path)
    if checkout is not None:
        problem = _checkout_link(checkout)
        if problem is not None:
            return Learner(os.path.normpath(raw), path, problem)
    if path.is_symlink():
        return Learner(os.path.normpath(raw), path, _link_problem("it", path))
    if not path.exists():
        raise UsageError(f"{raw}: no such file or directory")
    if not path.is_dir():
        raise UsageError(
            f"{raw}: not a folder (a course checkout or its src/tiny_llm/agent)"
        )
    return _learner(raw, path)


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """The folder's entries a search looks at, by name; OSError if unreadable."""
    with os.scandir(folder) as listing:
        return sorted(
            (
                entry
                for entry in listing
                if not entry.name.startswith(".") and entry.name not in _NEVER_SEARCHED
            ),
            key=lambda entry: entry.name,
        )


def _holds_learner(folder: Path, levels: int) -> bool:
    """Whether `folder` (followed) is a learner or holds one within `levels`.

    Only the first link is followed: the walk below it is of real folders.
    A folder that cannot be read holds none that the judge could judge.
    """
    try:
        if not folder.is_dir():
            return False
        if _is_agent_folder(folder) or _is_checkout(folder):
            return True
        if levels <= 0:
            return False
        entries = _entries(folder)
        return any(
            entry.is_dir(follow_symlinks=False)
            and _holds_learner(Path(entry.path), levels - 1)
            for entry in entries
        )
    except OSError:
        return False


def _why(error: BaseException) -> str:
    """An exception as one line of a learner's row."""
    if isinstance(error, OSError) and error.strerror:
        return f"it cannot be read ({error.strerror})"
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}"[:300]


def _candidates(top: Path, written: str) -> tuple[list[Learner], str | None]:
    """Every agent folder in the submission `top` (itself one, or below it
    within four levels of ROOT), sorted by path; and the first place that
    could not be read, if any. Iterative: a deep tree costs no stack."""
    found: list[Learner] = []
    unreadable: str | None = None
    pending = [(top, written, 1)]
    while pending:
        folder, here, depth = pending.pop()
        try:
            if _is_agent_folder(folder) or _is_checkout(folder):
                found.append(_learner(here, folder))
                continue
            entries = _entries(folder) if depth < _COHORT_DEPTH else []
        except OSError as error:
            inside = os.path.relpath(here, written)
            where = "it" if inside == "." else shown(inside)
            unreadable = unreadable or f"{where} cannot be read ({error.strerror})"
            continue
        for entry in entries:
            child = Path(entry.path)
            child_written = os.path.normpath(os.path.join(here, entry.name))
            if entry.is_symlink():
                # A link matters when a learner is behind it.
                if _holds_learner(child, _COHORT_DEPTH - depth - 1):
                    found.append(
                        Learner(child_written, child, _link_problem("it", child))
                    )
            elif entry.is_dir(follow_symlinks=False):
                pending.append((child, child_written, depth + 1))
    return sorted(found), unreadable


def _submission(entry: os.DirEntry[str], written: str) -> tuple[Learner | None, bool]:
    """The one row of an entry directly under ROOT (None: a file, not a
    learner), and whether an agent folder, or a link standing for one, is
    there. A submission is one learner, however many folders it holds."""
    child = Path(entry.path)
    if entry.is_symlink():
        # Under ROOT every entry stands for a learner, a dangling link too.
        if child.is_file():
            return None, False
        return Learner(written, child, _link_problem("it", child)), True
    if not entry.is_dir(follow_symlinks=False):
        return None, False  # a file beside the learners is not one
    found, unreadable = _candidates(child, written)
    if len(found) == 1:
        return found[0], True
    if found:
        names = ", ".join(
            shown(os.path.relpath(learner.path, written)) for learner in found
        )
        return (
            Learner(
                written,
                child,
                f"the folder cannot be loaded: it holds {len(found)} agent folders"
                f" ({names}); keep one",
            ),
            True,
        )
    problem = (
        "the folder cannot be loaded: no learner folder in it, four levels"
        f" down (a course checkout, or a folder holding any of {_MODULE_FILES})"
    )
    if unreadable is not None:
        problem = f"the folder cannot be loaded: {unreadable}"
    return Learner(written, child, problem), False


def cohort(raw_root: str) -> list[Learner]:
    """One learner per submission under ROOT, sorted by path; UsageError
    when there is none.

    Each entry directly under ROOT is one submission (a file beside them is
    none): its agent folder is the one learner judged, named by its path.
    A submission holding none, or more than one, is a row judged `error`
    saying so; so is a link directly under ROOT (not to a file), or one
    inside a submission that is its only way to an agent folder. Whatever
    goes wrong with one submission is that submission's row.
    """
    root = Path(raw_root)
    try:
        if not root.is_dir():
            raise UsageError(f"--cohort {raw_root}: not a directory")
        if _is_agent_folder(root) or _is_checkout(root):
            # ROOT itself is the teacher's, a link or not; the checkout's
            # inside is not.
            return [_learner(raw_root, root)]
        entries = _entries(root)
    except OSError as error:
        raise UsageError(
            f"--cohort {raw_root}: cannot be read ({error.strerror})"
        ) from None
    found: list[Learner] = []
    any_learner = False
    for entry in entries:
        written = os.path.normpath(os.path.join(raw_root, entry.name))
        try:
            learner, holds = _submission(entry, written)
        except Exception as error:  # noqa: BLE001  one submission never takes the class
            learner, holds = (
                Learner(
                    written,
                    Path(entry.path),
                    f"the folder cannot be loaded: {_why(error)}",
                ),
                False,
            )
        any_learner = any_learner or holds
        if learner is not None:
            found.append(learner)
    if not any_learner:
        raise UsageError(
            f"--cohort {raw_root}: no learner folder under it (a course checkout,"
            " or a folder holding evaluation.py and the other Day 7 modules)"
        )
    return sorted(found)


def _sifted(
    learners: list[Learner],
) -> tuple[list[Learner], list[tuple[str, str]]]:
    """The learners kept, sorted by path, and each (name dropped, name kept)."""
    kept: dict[tuple[str, str], Learner] = {}
    again: list[tuple[str, str]] = []
    for learner in learners:
        # A learner that will not be judged is known by its name only, so a
        # link and the folder it points to are two rows, never one.
        key = (
            ("path", learner.path)
            if learner.problem is not None
            else ("folder", str(learner.folder.resolve()))
        )
        first = kept.setdefault(key, learner)
        if first is not learner and first.path != learner.path:
            again.append((learner.path, first.path))
    by_path: dict[str, Learner] = {}
    for learner in kept.values():
        if learner.path in by_path:
            raise UsageError(
                f"two different folders would both be reported as {learner.path}"
            )
        by_path[learner.path] = learner
    return sorted(by_path.values()), again


def unique(learners: list[Learner]) -> list[Learner]:
    """Each learner once, sorted by path: one folder named twice is judged
    once (the first name given wins; `named_again` lists the others)."""
    return _sifted(learners)[0]


def named_again(learners: list[Learner]) -> list[tuple[str, str]]:
    """Each name `unique` drops, with the name its folder is judged under."""
    return _sifted(learners)[1]
