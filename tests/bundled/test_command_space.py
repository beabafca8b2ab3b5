"""One learner's full disk is its own: a classmate judged at once keeps its verdict.

Two learners are judged at once (``--cohort --jobs 2``) in a scratch folder
shared by both, a small tmpfs of the test's own (in a mount namespace of its
own, so nothing of the machine's is filled): the bundled evaluator, which
passes, and one whose evaluate_run first writes files into its TMPDIR until
the disk is full, then evaluates as the bundled one does. Each learner's
scratch is a tmpfs of its own (--scratch-size), so the filler meets ENOSPC
alone and the classmate still passes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _command_learners import EVALUATOR, QUICK, learner_folder

from day7_verify.isolation._space import why_unbounded

pytestmark = [
    pytest.mark.children,
    pytest.mark.skipif(
        why_unbounded() is not None,
        reason=f"a learner's scratch cannot be bounded here: {why_unbounded()}",
    ),
]

#: Planted at the top of evaluate_run: fill TMPDIR once (32 MiB files, under
#: the per-file limit) and raise saying how far it got; then evaluate as usual.
_FILLS = (
    "    import os as _os\n"
    "    _tmp = _os.environ['TMPDIR']\n"
    "    if not _os.path.exists(_os.path.join(_tmp, 'fill-1')):\n"
    "        _chunk = b'x' * (32 << 20)\n"
    "        _number = 0\n"
    "        try:\n"
    "            while True:\n"
    "                _number += 1\n"
    "                with open(_os.path.join(_tmp, f'fill-{_number}'), 'wb') as _f:\n"
    "                    _f.write(_chunk)\n"
    "        except OSError as _error:\n"
    "            raise RuntimeError("
    "f'FILLED at file {_number}: errno {_error.errno}')\n"
)

_BODY = (
    '    """Check ``run`` against ``case``: final, files, results, receipts,'
    ' in order."""\n'
)

#: The scratch both learners share (the bundle copies, their own scratch):
#: what a filler could fill whole without a tmpfs of its own.
SHARED = "640M"


def _filler(cohort: Path) -> Path:
    folder = learner_folder(cohort, "a-filler")
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    assert source.count(_BODY) == 1, "evaluate_run's docstring moved"
    module.write_text(source.replace(_BODY, _BODY + _FILLS), encoding="utf-8")
    return folder


def test_a_learner_that_fills_its_scratch_fails_alone(tmp_path: Path) -> None:
    """A learner writing until ENOSPC, judged beside one that passes, leaves
    the other's verdict a pass: each scratch is bounded on its own."""
    assert EVALUATOR.is_dir()
    cohort = tmp_path / "class"
    cohort.mkdir()
    _filler(cohort)
    learner_folder(cohort, "b-passes")
    shared = tmp_path / "shared"
    shared.mkdir()
    report = tmp_path / "class.json"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    environment.pop("PYTHONPATH", None)
    command = [sys.executable, "-m", "day7_verify", *QUICK, "--cohort", str(cohort)]
    command += ["--jobs", "2", "--timeout", "170", "--scratch", str(shared)]
    command += ["--scratch-size", "128M", "--json", str(report)]
    # The shared scratch, a tmpfs of the test's own in a mount namespace of
    # its own: without a bound per learner the filler fills only this.
    mounting = 'mount -t tmpfs -o size="$1" day7-test "$2"; shift 2; exec "$@"'
    finished = subprocess.run(
        [shutil.which("unshare") or "unshare", "--mount", "--propagation", "private"]
        + ["/bin/sh", "-c", mounting, "day7-test", SHARED, str(shared), *command],
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert report.exists(), finished.stderr
    learners = {
        Path(learner["path"]).name: learner
        for learner in json.loads(report.read_text(encoding="utf-8"))["learners"]
    }
    filler = json.dumps(learners["a-filler"]["lessons"])
    assert "FILLED at file" in filler, learners["a-filler"]
    assert "errno 28" in filler  # ENOSPC: its own disk is full
    assert learners["b-passes"]["status"] == "pass", learners["b-passes"]
