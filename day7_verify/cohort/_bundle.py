"""The private copy of everything that judges a learner: the bundle.

A learner's code runs as root in the child that judges it, so file modes
protect nothing: whatever the child can see, the learner can rewrite. So each
child runs on its own copy of the suite (conftest.py and invariants/), the
strategies, the child's script and the third-party packages they import
(pytest, Hypothesis and what they need), started with no site-packages on
`sys.path`. A learner that rewrites that copy damages only its own judge; the
installed package, the repository and the other learners' copies stay as
they were.

The list of files is made once per command (`manifest()`); each learner's
copy is then plain file copies (`Manifest.copy_into`), timed by the caller.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CHILD_SCRIPT",
    "THIRD_PARTY",
    "BundleError",
    "Manifest",
    "manifest",
    "suite_folders",
]

# day7_verify itself: this module is in its cohort/ room.
PACKAGE = Path(__file__).resolve().parents[1]

#: The child's entry script inside a bundle.
CHILD_SCRIPT = "day7_child.py"

# What the child imports beyond the standard library, by distribution; their
# requirements (for this interpreter, without extras) come along.
_ROOTS = ("pytest", "hypothesis")

# Folders of which the child imports only a few modules: pytest imports two
# of Pygments' 250 lexers (to highlight code, which the child never does),
# and the others would be half the files of every copy.
_ONLY = {
    "pygments/lexers": frozenset({"__init__.py", "_mapping.py", "python.py", "diff.py"})
}

# The child's pytest settings: no ini file above the bundle may take part
# (a learner could plant one in a shared temporary directory).
_PYTEST_INI = """\
[pytest]
minversion = 8.0
xfail_strict = true
"""


class BundleError(Exception):
    """The suite or a package it needs cannot be found; one line saying which."""


#: Where the bundle holds pytest, Hypothesis and what they need. Named so
#: because Hypothesis, at every example of a session that just imported a
#: module, reads the constants of each module it takes for the user's own,
#: and it takes none under a "site-packages" folder for that; under any
#: other name it parsed all of pytest and itself in every part of the suite
#: (about a second a part).
THIRD_PARTY = "site-packages"

#: The packages the suite imports, each beside this one when installed:
#: the worlds, the judge, and the worker (the judge starts it from here).
SUITE_PACKAGES = ("strategies", "judge", "worker")


def suite_folders() -> tuple[Path, tuple[Path, ...]]:
    """The suite (conftest.py and invariants/) and the packages it imports.

    Installed from a wheel, the suite is `day7_verify/suite`; in a checkout or
    an editable install it is the repository's `tests/`. The packages are
    beside this one in both cases.
    """
    installed = PACKAGE / "suite"
    suite = (
        installed if (installed / "conftest.py").is_file() else PACKAGE.parent / "tests"
    )
    packages = tuple(PACKAGE.parent / name for name in SUITE_PACKAGES)
    if not (suite / "conftest.py").is_file() or not (suite / "invariants").is_dir():
        raise BundleError(
            f"the suite is not installed: no conftest.py and invariants/ in {suite}"
        )
    for package in packages:
        if not (package / "__init__.py").is_file():
            raise BundleError(
                f"the {package.name} package is not installed beside {PACKAGE}"
            )
    return suite, packages


@dataclass(frozen=True)
class Manifest:
    """Every file of a bundle: (source, path inside the bundle), and its folders."""

    files: tuple[tuple[Path, str], ...]
    folders: tuple[str, ...]
    size: int  # bytes, all files together

    def __post_init__(self) -> None:
        for _, relative in self.files:
            if Path(relative).is_absolute() or ".." in Path(relative).parts:
                raise ValueError(f"a bundle path must stay inside it: {relative!r}")

    def copy_into(self, bundle: Path) -> None:
        """Make `bundle` (which must not exist) a private copy of every file."""
        bundle.mkdir()
        for folder in self.folders:
            (bundle / folder).mkdir(parents=True, exist_ok=True)
        for source, relative in self.files:
            target = bundle / relative
            shutil.copyfile(source, target)
            # The source's times keep each copied .pyc valid for its .py, so
            # the child does not compile pytest and Hypothesis again.
            stat = source.stat()
            os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        (bundle / "suite" / "pytest.ini").write_text(_PYTEST_INI, encoding="utf-8")


def manifest() -> Manifest:
    """The files of one bundle, found once; BundleError if something is missing."""
    suite, packages = suite_folders()
    entries: list[tuple[Path, str]] = [
        (Path(__file__).resolve().parent / "_child.py", CHILD_SCRIPT)
    ]
    entries += [(suite / "conftest.py", "suite/conftest.py")]
    entries += _tree(suite / "invariants", "suite/invariants")
    for package in packages:
        entries += _tree(package, package.name)
    for top in _third_party():
        name = f"{THIRD_PARTY}/{top.name}"
        entries += _tree(top, name) if top.is_dir() else [(top, name)]
    folders = sorted({str(Path(relative).parent) for _, relative in entries} - {"."})
    size = sum(source.stat().st_size for source, _ in entries)
    return Manifest(tuple(entries), tuple(folders), size)


def _tree(root: Path, prefix: str) -> list[tuple[Path, str]]:
    """Regular files under `root`; of compiled files, only this interpreter's."""
    tag = f".{sys.implementation.cache_tag}"
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        here = Path(folder)
        compiled = here.name == "__pycache__"
        source_folder = here.parent if compiled else here
        place = f"{prefix}/{source_folder.relative_to(root).as_posix()}"
        only = _ONLY.get(place.removeprefix(f"{THIRD_PARTY}/"))
        for name in sorted(files):
            if compiled and tag not in name:
                continue
            if only is not None and name.split(".")[0] + ".py" not in only:
                continue
            path = here / name
            if path.is_file() and not path.is_symlink():
                relative = path.relative_to(root).as_posix()
                found.append((path, f"{prefix}/{relative}"))
    return found


def _third_party() -> list[Path]:
    """The top-level modules and packages of what the child imports."""
    tops: dict[str, Path] = {}
    for distribution in _needed_distributions():
        base = Path(str(distribution.locate_file("")))
        for name in _top_level_names(distribution):
            for candidate in (base / name, base / f"{name}.py"):
                if candidate.exists():
                    tops.setdefault(candidate.name, candidate)
    return [tops[name] for name in sorted(tops)]


def _needed_distributions() -> Iterator[importlib.metadata.Distribution]:
    from packaging.requirements import InvalidRequirement, Requirement

    seen: set[str] = set()
    pending = list(_ROOTS)
    while pending:
        name = pending.pop()
        key = name.lower().replace("_", "-")
        if key in seen:
            continue
        seen.add(key)
        try:
            distribution = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            if name in _ROOTS:
                raise BundleError(
                    f"{name} is not installed for {sys.executable};"
                    " reinstall day7-verify (pip install day7-verify)"
                ) from None
            continue  # a requirement of another interpreter's only
        yield distribution
        for line in distribution.requires or ():
            try:
                requirement = Requirement(line)
            except InvalidRequirement:
                continue
            marker = requirement.marker
            if marker is None or marker.evaluate({"extra": ""}):
                pending.append(requirement.name)


def _top_level_names(distribution: importlib.metadata.Distribution) -> list[str]:
    listed = distribution.read_text("top_level.txt")
    if listed:
        return [line.strip() for line in listed.splitlines() if line.strip()]
    names = set()
    for file in distribution.files or ():
        parts = file.parts
        if (
            not parts
            or parts[0] in ("..", "__pycache__")
            or parts[0].endswith((".dist-info", ".egg-info", ".data"))
        ):
            continue
        if len(parts) > 1:
            names.add(parts[0])
        elif parts[0].endswith(".py"):
            names.add(parts[0][: -len(".py")])
    return sorted(names)
