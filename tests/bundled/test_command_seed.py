"""A judge that cannot be memorised (issue 26): a replay table fails under another seed.

The cheat of the issue: judge a good evaluator once, record every answer it
gave keyed by what it was asked, and hand in a folder that looks the
answers up. Under the derandomized `ci` profile every run asked the same
questions, so the table passed at 100%. Here the table is recorded from the
bundled evaluator judged under one seed; the folder that replays it passes
under that seed (so the table is complete: the cheat works where it can)
and fails under another, because each run's examples and the score's probe
are drawn from the run's seed. Marked `children`: it runs the command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _command_learners import QUICK, ROOT, learner_folder

pytestmark = pytest.mark.children

RECORDED = 20261204
OTHER = 7

# Appended to a copy of the bundled evaluation.py, whose own evaluate_run is
# renamed: what the evaluator was asked, in a canonical form (the world's
# temporary tree named by a placeholder, every file in it by its bytes, as
# its path and content are wherever the tree is made), and
# the answer, recorded or replayed.
_CANONICAL = r"""

import hashlib as _hashlib
import json as _json
import os as _os
import re as _re
import dataclasses as _dataclasses
import stat as _stat

# A world's tree is a fresh temporary folder holding `w` (tempfile's "tmp"
# and eight letters, then /w), the assets' folder "assets-" and eight, as
# any learner sees them in the paths it is given: nothing names the judge.
# The first such folder of a word: the folders above it (the scratch
# directory may be a temporary folder too) are part of it, a drawn name
# inside it is not. Anchored at a word's start: unanchored, a long word with
# no tree in it (a drawn file of 96 KB) is rescanned from every position,
# quadratic.
_TREE = _re.compile(
    r"(?<![^\s'\"])[^\s'\"]*?"
    r"/(?:tmp[a-z0-9_]{8}(?=/w(?![^\s'\"/]))|assets-[a-z0-9_]{8}(?![^\s'\"/]))"
)
# The workspace root is padded to a fixed length (judge/evidence.py): its
# dashes depend on where the tree is.
_PADDED = _re.compile(r"/ws-+")


def _placed(text):
    return _PADDED.sub("/ws-", _TREE.sub("<TREE>", text))


def _text(value, trees):
    trees.update(m.group(0) for m in _TREE.finditer(value))
    return _placed(value)


def _canon(value, trees, depth=0):
    # Dataclasses (every Day 1-6 value) by their fields, private ones too;
    # anything else by its type only: a judge-side callable holds the
    # worker itself, and a repr may hold an address.
    if depth > 12:
        return "deep"
    if value is None or isinstance(value, (bool, int)):
        return [type(value).__name__, value]
    if isinstance(value, float):
        return ["float", repr(value)]
    if isinstance(value, str):
        return ["str", _text(value, trees)]
    if isinstance(value, bytes):
        return ["bytes", _hashlib.sha256(value).hexdigest()]
    if isinstance(value, _os.PathLike):
        return ["path", _text(_os.fspath(value), trees)]
    inner = depth + 1
    if isinstance(value, dict):
        pairs = [[_canon(k, trees, inner), _canon(v, trees, inner)]
                 for k, v in value.items()]
        return ["dict", pairs]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [_canon(v, trees, inner) for v in value]]
    if isinstance(value, (set, frozenset)):
        return ["set", sorted(repr(_canon(v, trees, inner)) for v in value)]
    fields = getattr(value, "__dict__", None)
    if _dataclasses.is_dataclass(value) and isinstance(fields, dict):
        return [type(value).__name__, _canon(dict(fields), trees, inner)]
    return [type(value).__name__]


def _tree_state(top):
    state = []
    for folder, folders, files in _os.walk(top):
        folders.sort()
        for name in sorted(folders + files):
            path = _os.path.join(folder, name)
            try:
                info = _os.lstat(path)
            except OSError:
                state.append([path, "gone"])
                continue
            if _stat.S_ISREG(info.st_mode):
                fd = _os.open(path, _os.O_RDONLY | _os.O_NONBLOCK | _os.O_NOFOLLOW)
                try:
                    head = _os.read(fd, 1 << 20)
                finally:
                    _os.close(fd)
                digest = _hashlib.sha256(head).hexdigest()
                state.append([path, "file", info.st_size, digest])
            elif _stat.S_ISLNK(info.st_mode):
                state.append([path, "link", _os.readlink(path)])
            else:
                state.append([path, _stat.S_IFMT(info.st_mode)])
    return state


def _key(*arguments):
    trees = set()
    asked = _canon(arguments, trees)
    state = [_tree_state(top) for top in sorted(trees) if _os.path.isdir(top)]
    whole = _placed(_json.dumps([asked, state]))
    return _hashlib.sha256(whole.encode("utf-8")).hexdigest(), trees


# A detail may name the world's tree (a log path in an error): recorded by
# its role, put back as this run's tree when replayed.
def _role(tree):
    return "<ASSETS>" if "/assets-" in tree else "<WORLD>"


def _recorded(text, trees):
    for tree in trees:
        text = text.replace(tree, _role(tree))
    return text


def _replayed(text, trees):
    for tree in trees:
        text = text.replace(_role(tree), tree)
    return text
"""

_RECORDER = r"""

def evaluate_run(run, workspace, receipts, case):
    key, trees = _key(run, workspace, receipts, case)
    try:
        report = _evaluate_run_real(run, workspace, receipts, case)
    except Exception as error:
        raised = [type(error).__name__, _recorded(str(error), trees)]
        _write({"key": key, "raised": raised})
        raise
    checks = [[c.name, c.passed, _recorded(c.detail, trees)] for c in report.checks]
    _write({"key": key, "checks": checks})
    return report


def _write(said):
    line = (_json.dumps(said) + "\n").encode("utf-8")
    fd = _os.open(RECORD, _os.O_WRONLY | _os.O_APPEND | _os.O_CREAT, 0o600)
    try:
        _os.write(fd, line)
    finally:
        _os.close(fd)
"""

_REPLAYER = r"""

import builtins as _builtins
import pathlib as _pathlib

_TABLE = {}
_LINES = _pathlib.Path(__file__).with_name("table.jsonl").read_text().splitlines()
for _line in _LINES:
    _said = _json.loads(_line)
    _TABLE[_said["key"]] = _said


def evaluate_run(run, workspace, receipts, case):
    key, trees = _key(run, workspace, receipts, case)
    said = _TABLE.get(key)
    if said is None:
        return None  # not asked before: the starter's answer
    if "raised" in said:
        kind = getattr(_builtins, said["raised"][0], ValueError)
        raise kind(_replayed(said["raised"][1], trees))
    return EvaluationReport(
        tuple(EvaluationCheck(n, p, _replayed(d, trees)) for n, p, d in said["checks"])
    )
"""


def _cheat(parent: Path, name: str, code: str) -> Path:
    """The bundled evaluator, its evaluate_run wrapped by `code`."""
    folder = learner_folder(parent, name)
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    assert source.count("\ndef evaluate_run(") == 1
    source = source.replace("\ndef evaluate_run(", "\ndef _evaluate_run_real(")
    module.write_text(source + _CANONICAL + code, encoding="utf-8")
    return folder


def _environment() -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    environment.pop("PYTHONPATH", None)
    environment.pop("CI", None)
    return environment


def _record(tmp_path: Path, seed: int) -> Path:
    """The table: the bundled evaluator judged by the command under `seed`,
    every answer written down."""
    table = tmp_path / "table.jsonl"
    recorder = _cheat(tmp_path, "recorder", f"\nRECORD = {str(table)!r}\n" + _RECORDER)
    recorded = _judged(recorder, seed, tmp_path / "recorded.json")
    assert recorded["status"] == "pass", recorded["detail"]
    return table


def _judged(folder: Path, seed: int, report: Path) -> dict:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "day7_verify",
            *QUICK,
            str(folder),
            "--seed",
            str(seed),
            "--json",
            str(report),
            "--timeout",
            "600",
            # No sandbox, so the recorder can write its table where this test
            # reads it; the same for the replay, so only the seed differs.
            "--isolation",
            "process",
        ],
        cwd=ROOT,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode in (0, 1), run.stderr
    (learner,) = json.loads(report.read_text())["learners"]
    return learner


def _failing(learner: dict) -> str:
    """Which invariants failed, with their lessons' headlines."""
    failed = [k for k, v in learner["invariants"].items() if v != "pass"]
    said = [f"{i['invariant']}: {i['headline']}" for i in learner["lessons"]]
    return f"{learner['detail']}; not passing: {failed}; " + " | ".join(said)[:3000]


def test_a_replay_table_recorded_under_one_seed_fails_under_another(tmp_path: Path):
    """The replayed answers pass under the seed they were recorded under, and
    fail under another: no run's questions can be known beforehand."""
    table = _record(tmp_path, RECORDED)
    replayer = _cheat(tmp_path, "replayer", _REPLAYER)
    (replayer / "table.jsonl").write_bytes(table.read_bytes())
    same = _judged(replayer, RECORDED, tmp_path / "same.json")
    assert same["status"] == "pass", _failing(same)
    assert same["score"]["percent"] == 100.0
    other = _judged(replayer, OTHER, tmp_path / "other.json")
    assert other["status"] == "fail"
    assert other["score"]["percent"] < 50.0, other["score"]
