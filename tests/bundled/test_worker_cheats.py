"""Cheats that worked when learner code ran inside the judge, judged through the worker.

Each learner is an unfinished evaluator (`evaluate_run` returns None: it
fails every invariant that evaluates) plus one cheat meant to turn that into
a pass from inside the process it runs in: patching pytest's reports,
replacing the suite's comparison, telling Hypothesis to draw nothing,
reading the world (and so the verdicts it implies) off the stack,
re-exporting the judge's own evaluator, forging the result file. Since the
judge never imports learner code, none of them finds what it looks for;
each must get a status other than `pass`, and the report must hold no pass
for an invariant that evaluates. One class, judged once as a cohort
(`--jobs 2`) in the strongest isolation the machine has.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _command_learners import _EVALUATE_RUN_BODY, QUICK, ROOT, learner_folder

from day7_verify.isolation._sandbox import detect

pytestmark = pytest.mark.children

#: Each cheat, planted at the top of evaluation.py; every one is wrapped so
#: that a failed attempt still lets the folder load (a cheat that breaks the
#: import would fail for a reason of its own).
CHEATS = {
    # Every test report the judge makes becomes a pass.
    "patch-pytest": (
        "import _pytest.reports as _r\n"
        "_made = _r.TestReport.from_item_and_call.__func__\n"
        "def _passing(cls, item, call):\n"
        "    report = _made(cls, item, call)\n"
        "    report.outcome, report.longrepr = 'passed', None\n"
        "    return report\n"
        "_r.TestReport.from_item_and_call = classmethod(_passing)\n"
    ),
    # The suite's comparison with the truth accepts anything.
    "patch-verdicts": (
        "import judge.verdicts as _v\n"
        "_v.assert_truth = lambda report, expected, **k: ()\n"
    ),
    # Hypothesis draws nothing, so no property has a world to fail on.
    "no-phases": (
        "import hypothesis as _h\n"
        "_h.settings.register_profile('ci', phases=[])\n"
        "_h.settings.load_profile('ci')\n"
    ),
    # Re-export the judge's own evaluator, from its installation or checkout.
    "reexport": (
        "import sys as _s\n"
        f"_s.path[:0] = [{str(ROOT)!r}] + list(_s.path)\n"
        "from evaluator import evaluation as _e\n"
        "_shown = [n for n in dir(_e) if not n.startswith('__')]\n"
        "globals().update({n: getattr(_e, n) for n in _shown})\n"
    ),
    # Rewrite the judge: every bundle's conftest.py it can find (its own and a
    # classmate's) gets a hook that turns each report into a pass.
    "rewrite-bundle": (
        "import glob as _g\n"
        "_hook = ('\\nimport pytest\\n@pytest.hookimpl(wrapper=True)\\n'\n"
        "    'def pytest_runtest_makereport(item, call):\\n'\n"
        "    '    report = yield\\n'\n"
        "    '    report.outcome = \\'passed\\'\\n'\n"
        "    '    return report\\n')\n"
        "for _p in _g.glob('/*/tmp*/*/bundle/suite/conftest.py')"
        " + _g.glob('/dev/shm/tmp*/*/bundle/suite/conftest.py'):\n"
        "    try:\n"
        "        with open(_p, 'a') as _f:\n"
        "            _f.write(_hook)\n"
        "    except OSError:\n"
        "        pass\n"
    ),
    # Forge the verdict: find the judge's progress and result files and its
    # nonce (in its memory, its command line or environment) and write a pass.
    "forge-result": (
        "import glob as _g, json as _j, os as _o, re as _re\n"
        "_nonces = set()\n"
        "for _pid in [p for p in _o.listdir('/proc') if p.isdigit()]:\n"
        "    for _part in ('cmdline', 'environ', 'mem'):\n"
        "        try:\n"
        "            with open(f'/proc/{_pid}/{_part}', 'rb') as _f:\n"
        "                _data = _f.read(1 << 20)\n"
        "        except OSError:\n"
        "            continue\n"
        '        _nonces.update(_re.findall(rb\'"nonce": "([0-9a-f]{64})"\', _data))\n'
        "_found = _g.glob('/*/tmp*/tmp*/*.progress')\n"
        "for _progress in _found + _g.glob('/dev/shm/tmp*/tmp*/*.progress'):\n"
        "    _result = _progress[: -len('.progress')] + '.json'\n"
        "    for _nonce in _nonces or {b'0' * 64}:\n"
        "        try:\n"
        "            with open(_result, 'x') as _f:\n"
        "                _j.dump({'protocol': 1, 'nonce': _nonce.decode(),"
        " 'phase': 'suite', 'complete': True, 'exit_code': 0}, _f)\n"
        "        except OSError:\n"
        "            pass\n"
    ),
}

#: A stack reader: evaluate_run looks in its callers' frames for the world
#: being judged and answers with the truth the suite computes from it.
STACK_READER = (
    "    import sys as _s\n"
    "    frame = _s._getframe(1)\n"
    "    while frame is not None:\n"
    "        world = frame.f_locals.get('world')\n"
    "        if hasattr(world, 'files') and hasattr(world, 'final'):\n"
    "            from strategies.world import truth\n"
    "            rows = tuple(\n"
    "                EvaluationCheck(c.name, c.passed, c.detail)\n"
    "                for c in truth(world)\n"
    "            )\n"
    "            return EvaluationReport(rows)\n"
    "        frame = frame.f_back\n"
    "    return None\n"
)


def _guarded(code: str) -> str:
    body = "".join(f"    {line}\n" for line in code.splitlines())
    return f"try:\n{body}except BaseException:\n    pass\n"


def _cheater(cohort: Path, name: str, code: str) -> Path:
    folder = learner_folder(cohort, name, "returns-none")
    module = folder / "evaluation.py"
    future = "from __future__ import annotations\n"
    source = module.read_text(encoding="utf-8")
    module.write_text(source.replace(future, future + _guarded(code), 1), "utf-8")
    return folder


def _stack_reader(cohort: Path) -> Path:
    folder = learner_folder(cohort, "stack-reader")
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    assert source.count(_EVALUATE_RUN_BODY) == 1
    module.write_text(
        source.replace(_EVALUATE_RUN_BODY, _EVALUATE_RUN_BODY + STACK_READER), "utf-8"
    )
    return folder


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    base = tmp_path_factory.mktemp("cheats")
    cohort = base / "class"
    cohort.mkdir()
    for name, code in CHEATS.items():
        _cheater(cohort, name, code)
    _stack_reader(cohort)
    report = base / "class.json"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    environment.pop("PYTHONPATH", None)
    isolation = detect().isolation
    done = subprocess.run(
        [sys.executable, "-m", "day7_verify", *QUICK, "--cohort", str(cohort)]
        + ["--isolation", isolation, "--jobs", "2", "--timeout", "240"]
        + ["--json", str(report)],
        cwd=base,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert report.is_file(), done.stdout + done.stderr
    yield {"report": json.loads(report.read_text(encoding="utf-8")), "done": done}


def _learner(report: dict, name: str) -> dict:
    return next(
        learner for learner in report["learners"] if learner["path"].endswith(name)
    )


@pytest.mark.parametrize("name", [*CHEATS, "stack-reader"])
def test_a_cheat_from_inside_the_process_earns_no_pass(judged: dict, name: str) -> None:
    """No learner code runs in the judge's process, so none of these cheats
    finds the judge; the unfinished evaluator behind each fails as it is."""
    learner = _learner(judged["report"], name)
    assert learner["status"] != "pass", learner
    statuses = learner["invariants"]
    for invariant in ("report-shape", "report-verdict", "truth", "read-only"):
        assert statuses.get(invariant) != "pass", (invariant, learner)


def test_the_cohort_passes_no_one(judged: dict) -> None:
    """The class report counts no pass among the cheats."""
    report = judged["report"]
    assert report["summary"]["pass"] == 0, report["summary"]
    assert len(report["learners"]) == len(CHEATS) + 1
