"""A Python every uid can run, for tests that run learners as other uids.

The command run as root starts each learner's worker as an unprivileged uid,
which must be able to run the command's own interpreter; pyenv's lives under
``/root`` (mode 0700). Debian's ``/usr/bin/python3``, in a venv of its own
in a folder every user can enter, given copies of this checkout's packages
and of what the judge imports (pytest, Hypothesis and what they require),
stands in for it, where it is the same Python minor version.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _command_learners import ROOT

from day7_verify.cohort._bundle import _needed_distributions

SYSTEM_PYTHON = Path("/usr/bin/python3")


def everyone_can_run(executable: str | Path) -> bool:
    """Whether a uid of no group reaches `executable` (pyenv under /root: no)."""
    path = Path(executable).resolve()
    if not path.stat().st_mode & 0o001:
        return False
    return all(parent.stat().st_mode & 0o001 for parent in path.parents)


def why_no_system_python() -> str | None:
    """Why /usr/bin/python3 cannot stand in for this interpreter, or None."""
    if not SYSTEM_PYTHON.exists():
        return f"no {SYSTEM_PYTHON}"
    done = subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "import sys, venv; print(*sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return f"{SYSTEM_PYTHON} has no venv module"
    if done.stdout.split() != [str(part) for part in sys.version_info[:2]]:
        return f"{SYSTEM_PYTHON} is Python {done.stdout.strip()}, not this one's"
    if not everyone_can_run(SYSTEM_PYTHON):
        return f"{SYSTEM_PYTHON} is not readable by every user"
    return None


def site(base: Path) -> Path:
    """Copies of this checkout's packages and of what the judge imports, in
    `base`/site (readable by every user when `base` is)."""
    folder = base / "site"
    for distribution in _needed_distributions():
        top = Path(str(distribution.locate_file("")))
        for file in distribution.files or ():
            if file.parts and file.parts[0] == "..":
                continue  # scripts outside site-packages
            source = top / file
            if source.is_file():
                (folder / file).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, folder / file)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in ("day7_verify", "strategies", "judge", "worker", "evaluator"):
        shutil.copytree(ROOT / package, folder / package, ignore=ignore)
    (folder / "tests").mkdir()
    shutil.copy2(ROOT / "tests" / "conftest.py", folder / "tests" / "conftest.py")
    shutil.copytree(
        ROOT / "tests" / "invariants", folder / "tests" / "invariants", ignore=ignore
    )
    return folder


def venv(where: Path, packages: Path) -> Path:
    """A venv of /usr/bin/python3 at `where` that imports `packages`; its python."""
    made = subprocess.run(
        [str(SYSTEM_PYTHON), "-m", "venv", "--without-pip", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if made.returncode != 0:
        said = (made.stderr.strip().splitlines() or ["no reason given"])[-1]
        pytest.skip(f"cannot make a venv of {SYSTEM_PYTHON}: {said}")
    python = where / "bin" / "python"
    found = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
    )
    Path(found.stdout.strip(), "day7.pth").write_text(f"{packages}\n", encoding="ascii")
    return python
