"""Learner code cannot reach the judge's Hypothesis storage.

Hypothesis reads its Unicode tables (what characters text is drawn from)
from its storage directory. Were that directory the judge's working
directory, as it is by default, a learner's code, which shares that working
directory, could plant tables of its choosing and so choose what text its
own judge draws. The command gives each judge a storage directory in its
private folder (HYPOTHESIS_STORAGE_DIRECTORY); here a learner looks for it
everywhere it could be and says what it reached.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _command_learners import QUICK, learner_folder

from day7_verify.isolation._sandbox import detect

pytestmark = pytest.mark.children

#: At import, in the worker: try to leave a file in every place the judge's
#: storage could be; a write that lands makes the import fail, saying where
#: (the one channel out of a sandbox: the verdict itself).
_SEEKER = """\
import glob as _glob, os as _os
_places = [_os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY") or ""]
_places += _glob.glob("/*/tmp*/tmp*/hypothesis")
_places += _glob.glob("/*/*/tmp*/tmp*/hypothesis")
_places += _glob.glob("/dev/shm/tmp*/tmp*/hypothesis")
for _place in _places:
    if not _place:
        continue
    try:
        with open(_os.path.join(_place, "planted-by-learner"), "w") as _f:
            _f.write("x")
    except OSError:
        continue
    raise ImportError(f"REACHED-JUDGE-STORAGE {_place}")
"""


def _judge(folder: Path, isolation: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    environment.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-m", "day7_verify", *QUICK, str(folder), "--verbose"]
        + ["--isolation", isolation, "--timeout", "240"],
        cwd=folder.parent,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _seeker(tmp_path: Path) -> Path:
    folder = learner_folder(tmp_path, "seeker")
    module = folder / "evaluation.py"
    future = "from __future__ import annotations\n"
    source = module.read_text(encoding="utf-8")
    assert source.count(future) == 1
    module.write_text(source.replace(future, future + _SEEKER), encoding="utf-8")
    return folder


def test_a_sandboxed_learner_cannot_write_the_judges_storage(tmp_path: Path) -> None:
    """Under the sandbox the storage is in no place the worker can see: the
    learner reaches nothing, and its correct evaluator still passes."""
    if detect().isolation != "sandbox":
        pytest.skip(f"no sandbox on this machine: {detect().why_not_stronger}")
    done = _judge(_seeker(tmp_path), "sandbox")
    output = done.stdout + done.stderr
    assert "REACHED-JUDGE-STORAGE" not in output, output
    assert done.returncode == 0, output


def test_without_isolation_the_same_learner_reaches_it(tmp_path: Path) -> None:
    """The control: judged with --isolation process (root, no sandbox), the
    same seeker does reach the storage, so the test above can fail."""
    done = _judge(_seeker(tmp_path), "process")
    output = done.stdout + done.stderr
    assert "REACHED-JUDGE-STORAGE" in output, output
