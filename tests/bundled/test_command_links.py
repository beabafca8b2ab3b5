"""The command, as root in the sandbox, against a learner that leaves links.

The learner is the bundled evaluator whose ReceiptStore.put, after writing
its line, turns the log it wrote into a symlink to a file outside (a root-only
secret, or a `.pth` file that does not exist yet), and starts a daemon thread
that keeps doing so to every log and to the judge's scratch directory beside
them, racing the judge; it also tries to move the folder holding each world's
tree and leave a link in its place. The judge (root) must follow none of
them: nothing outside changes, the secret's bytes reach no report, and the
verdict is no pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _command_learners import QUICK, learner_folder

from day7_verify.isolation._sandbox import detect

pytestmark = [
    pytest.mark.children,
    pytest.mark.skipif(os.geteuid() != 0, reason="the judge is root only as root"),
    pytest.mark.skipif(
        detect().isolation != "sandbox",
        reason=f"no bubblewrap sandbox here: {detect().why_not_stronger}",
    ),
]

SECRET = "the teacher's secret, readable by root only"

# Appended to the learner's receipts.py; `{...}` filled in with the outside paths.
_LINKS = """

import os as _os
import threading as _threading
import time as _time

_TARGETS = ({secret!r}, {planted!r}, {folder!r})
_LOGS = {{}}  # each world's log, and what its own puts wrote
_LOCK = _threading.Lock()


def _link(path, number):
    try:
        _os.unlink(path)
        _os.symlink(_TARGETS[number % 2], path)
    except OSError:
        pass


def _daemon():
    # The judge's scratch directory beside each log, swapped for a link to
    # the folder outside whenever it appears.
    number = 0
    while True:
        with _LOCK:
            for path in list(_LOGS)[-4:]:  # the worlds being built now
                number += 1
                tree = _os.path.dirname(_os.path.dirname(path))
                top = _os.path.dirname(tree)
                try:  # the folder holding the tree: the judge's, not to be moved
                    if not _os.path.islink(top):
                        _os.rename(top, f"{{top}}-{{number}}")
                        _os.symlink(_TARGETS[2], top)
                except OSError:
                    pass
                scratch = _os.path.join(tree, "_scratch")
                try:
                    if not _os.path.islink(scratch):
                        _os.rename(scratch, f"{{scratch}}-{{number}}")
                        _os.symlink(_TARGETS[2], scratch)
                except OSError:
                    pass
        _time.sleep(0.001)


_put = ReceiptStore.put


def _linking_put(self, receipt):
    if self.path is None:
        return _put(self, receipt)
    path = str(self.path)
    with _LOCK:
        if path in _LOGS and _os.path.islink(path):
            # Its own writes go to its own file: the link is for the judge.
            _os.unlink(path)
            with open(path, "wb") as log:
                log.write(_LOGS[path])
        result = _put(self, receipt)
        if _os.path.basename(path) == "scratch.jsonl":
            # The judge is between its read of a world's log and its append:
            # the world's log becomes a link.
            for number, other in enumerate(list(_LOGS)):
                if not _os.path.islink(other):
                    _link(other, number)
        else:
            if not _LOGS:
                _threading.Thread(target=_daemon, daemon=True).start()
            with open(path, "rb") as log:
                _LOGS[path] = log.read()
    return result


ReceiptStore.put = _linking_put
"""


def _state(folder: Path) -> dict[str, tuple[int, int, int, bytes]]:
    return {
        entry.name: (
            entry.stat(follow_symlinks=False).st_mtime_ns,
            entry.stat(follow_symlinks=False).st_uid,
            entry.stat(follow_symlinks=False).st_mode,
            Path(entry.path).read_bytes() if entry.is_file() else b"",
        )
        for entry in os.scandir(folder)
    }


def test_links_left_by_learner_code_change_nothing_outside(tmp_path: Path) -> None:
    """Judged as root in the sandbox, a learner whose code (and daemon thread)
    turns logs and the judge's scratch into links to files outside changes
    nothing outside, shows no byte of them, and does not pass. (Its thread
    races the judge, so its run's length varies with the machine: 60 s
    bound it, and a run stopped there is a verdict too.)"""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text(SECRET, encoding="utf-8")
    secret.chmod(0o600)
    folder = learner_folder(tmp_path, "links")
    receipts = folder / "receipts.py"
    receipts.write_text(
        receipts.read_text(encoding="utf-8")
        + _LINKS.format(
            secret=str(secret),
            planted=str(outside / "day7-planted.pth"),
            folder=str(outside),
        ),
        encoding="utf-8",
    )
    before = _state(outside)
    report = tmp_path / "report.json"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    environment.pop("PYTHONPATH", None)
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "day7_verify",
            *QUICK,
            str(folder),
            "--isolation",
            "sandbox",
        ]
        + ["--timeout", "60", "--json", str(report)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert report.exists(), finished.stderr
    assert _state(outside) == before
    said = report.read_text(encoding="utf-8")
    assert SECRET not in said and SECRET not in finished.stdout + finished.stderr
    (learner,) = json.loads(said)["learners"]
    assert learner["status"] != "pass"
    assert finished.returncode != 0


#: Planted in evaluate_run once its arguments are checked: try to write in
#: the worlds' folder and to move the folder holding this world's tree (put
#: back if it moved), then raise saying how each went. The worlds' folder is
#: found from the tree (worlds/<tree's folder>/w/...): nothing in the worker's
#: environment names it. After the evaluator's own argument checks, so a
#: wrong argument is refused as the contract says: a learner's raises are one
#: lesson, shown by its first example, and that must be an attempt's.
_MOVES = (
    "    import os as _os\n"
    "    _said = {}\n"
    "    _at = str(workspace.policy.root)\n"
    "    while _os.path.basename(_at) not in ('w', '', '/'):\n"
    "        _at = _os.path.dirname(_at)\n"
    "    _worlds = _os.path.dirname(_os.path.dirname(_at))\n"
    "    try:\n"
    "        open(_os.path.join(_worlds, 'planted'), 'w').close()\n"
    "        _said['write-worlds'] = 'done'\n"
    "    except OSError as _e:\n"
    "        _said['write-worlds'] = type(_e).__name__\n"
    "    _path = str(getattr(receipts, 'path', None) or '')\n"
    "    while _path and _os.path.dirname(_path) not in (_worlds, _path):\n"
    "        _path = _os.path.dirname(_path)\n"
    "    if _path and _os.path.dirname(_path) == _worlds:\n"
    "        try:\n"
    "            _os.rename(_path, _path + '-moved')\n"
    "            _os.rename(_path + '-moved', _path)\n"
    "            _said['move-tree-folder'] = 'done'\n"
    "        except OSError as _e:\n"
    "            _said['move-tree-folder'] = type(_e).__name__\n"
    "    raise RuntimeError(f'ATTEMPTS {sorted(_said.items())}')\n"
)

_CHECKED = (
    "    _validate_case(case)  # again: a frozen case can still be altered by force\n"
)


def test_the_folders_holding_the_trees_are_not_the_workers(tmp_path: Path) -> None:
    """The worker owns its worlds' trees, never the folders holding them: it
    can neither write in the worlds' folder nor move a tree's folder (and
    leave a link in its place)."""
    folder = learner_folder(tmp_path, "moves")
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    assert source.count(_CHECKED) == 1, "evaluate_run's argument checks moved"
    module.write_text(source.replace(_CHECKED, _CHECKED + _MOVES), encoding="utf-8")
    report = tmp_path / "report.json"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    environment.pop("PYTHONPATH", None)
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "day7_verify",
            *QUICK,
            str(folder),
            "--isolation",
            "sandbox",
        ]
        + ["--timeout", "150", "--json", str(report)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert report.exists(), finished.stderr
    said = report.read_text(encoding="utf-8")
    assert "ATTEMPTS" in said and "move-tree-folder" in said, said[:2000]
    assert "('move-tree-folder', 'PermissionError')" in said
    assert "('write-worlds', 'PermissionError')" in said
    assert "'done')" not in said
