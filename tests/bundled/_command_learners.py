"""Learner folders for the command's tests: the bundled evaluator, with code planted.

A learner folder here is a copy of the bundled `evaluator/` package (its
modules load through --impl-path like a course folder's) with one piece of
code planted at the top of `evaluate_run`, or at the top of `evaluation.py`
for the ways a folder fails to load, or one bug of the planted catalogue
(`bug:<name>`, planted/bugs.py). No course code is copied.
"""

from __future__ import annotations

import os
import shutil
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EVALUATOR = ROOT / "evaluator"

_EVALUATE_RUN_BODY = (
    '    """Check ``run`` against ``case``: final, files, results, receipts,'
    ' in order."""\n'
)

#: Code planted at the top of evaluate_run's body, by the behaviour it gives.
IN_EVALUATE_RUN: dict[str, str] = {
    # An unfinished learner: every invariant fails, fast.
    "returns-none": "    return None\n",
    "loops-for-ever": "    while True:\n        pass\n",
    # The same hang without burning a core while the clock runs.
    "sleeps-for-ever": "    import time\n    while True:\n        time.sleep(0.1)\n",
    # Hangs on one argument of the wrong type (run=None) only: argument-types'
    # lesson is a hang, every other invariant holds.
    "hangs-on-no-run": (
        "    if run is None:\n"
        "        import time\n"
        "        while True:\n"
        "            time.sleep(0.1)\n"
    ),
    # The same argument ends the worker, as a crash in C code would.
    "crashes-on-no-run": (
        "    if run is None:\n"
        "        import os, signal\n"
        "        os.kill(os.getpid(), signal.SIGSEGV)\n"
    ),
    "exits": "    import os\n    os._exit(0)\n",
    # Raises on every call, whatever it is given.
    "always-raises": "    raise RuntimeError('not yet')\n",
    "sys-exit": "    import sys\n    sys.exit(0)\n",
    "interrupts": "    raise KeyboardInterrupt\n",
    "eats-memory": "    hog = [bytearray(1 << 20) for _ in range(1 << 16)]\n",
    "prints-for-ever": "    while True:\n        print('spam, spam, eggs and spam')\n",
    "kills-itself": "    import os, signal\n    os.kill(os.getpid(), signal.SIGSEGV)\n",
    # Does what a test asks through `run`: "plant:<how>" (see AT_END), else
    # judges as the bundled evaluator does. For the judge's lessons on what
    # only a worker can show (a hang ended from outside, the worker's stack).
    "obeys-run": (
        "    if isinstance(run, str) and run.startswith('plant:'):\n"
        "        return _planted(run[len('plant:'):])\n"
    ),
    # Validation, the final check and render, and nothing else: no file,
    # result or receipt check (issue 16's evaluator that "does nothing", which
    # holds read-only, determinism and the like for checks it never makes).
    "final-only": (
        "    if not (\n"
        "        isinstance(run, AgentRun)\n"
        "        and isinstance(workspace, Workspace)\n"
        "        and isinstance(receipts, ReceiptStore)\n"
        "        and isinstance(case, EvaluationCase)\n"
        "    ):\n"
        "        _reject_arguments(run, workspace, receipts, case)\n"
        "    _validate_case(case)\n"
        "    return EvaluationReport((_final_check(run, case),))\n"
    ),
    # A report that changes as it is read (set 2's s3d): its checks turn all
    # true from their `after`-th read on, and its .passed alternates then.
    "shifting-report": (
        "    if not _SHIFT['inside']:\n"
        "        _SHIFT['inside'] = True\n"
        "        try:\n"
        "            return _Shifting(evaluate_run(run, workspace, receipts, case))\n"
        "        finally:\n"
        "            _SHIFT['inside'] = False\n"
    ),
    # The working directory, as a learner's code finds it: a checkout's root.
    "rewrites-cwd": (
        "    import pathlib\n"
        "    here = pathlib.Path.cwd()\n"
        "    (here / 'pyproject.toml').write_text('[project]\\nname = \"owned\"\\n')\n"
        "    (here / 'tox.ini').write_text('[tox]\\n')\n"
        "    (here / 'README.md').unlink(missing_ok=True)\n"
    ),
    # The judge, as a learner's code finds it: through sys.modules.
    "rewrites-judge": (
        "    import pathlib, sys\n"
        "    for name in ('strategies', 'pytest', '_pytest', 'hypothesis'):\n"
        "        module = sys.modules.get(name)\n"
        "        if module is None or not getattr(module, '__file__', None):\n"
        "            continue\n"
        "        home = pathlib.Path(module.__file__).parent\n"
        "        (home / 'OWNED').write_text('owned')\n"
        "        for victim in sorted(home.glob('*.py'))[:3]:\n"
        "            victim.write_text('raise SystemExit(0)\\n')\n"
        "    for module in list(sys.modules.values()):\n"
        "        path = getattr(module, '__file__', None) or ''\n"
        "        if path.endswith('conftest.py'):\n"
        "            pathlib.Path(path).write_text('')\n"
    ),
}

#: Code appended to evaluation.py with the plant of the same name.
AT_END: dict[str, str] = {
    "obeys-run": """

def _planted(how):
    import builtins
    import time

    if how == "loop":
        return _planted_loop()
    if how == "swallow":
        # Catches everything, and carries on: only an end from outside stops it.
        while True:
            try:
                time.sleep(0.05)
            except BaseException:
                pass
    if how.startswith("raise:"):
        name, _, argument = how[len("raise:"):].partition(":")
        kind = getattr(builtins, name)
        raise kind(argument) if argument else kind()
    if how == "report-loops":
        return _PlantedReport()
    raise AssertionError(how)


def _planted_loop():
    while True:
        pass


class _PlantedReport:
    checks = ()

    @property
    def passed(self):
        return _planted_loop()

    def render(self):
        return ""
""",
}

_SHIFTING = """

_SHIFT = {"inside": False, "after": 1}


class _Shifting:
    def __init__(self, report):
        self._report, self._reads = report, {"checks": 0, "passed": 0}

    def _read(self, field):
        self._reads[field] += 1
        return self._reads[field] > _SHIFT["after"]

    @property
    def checks(self):
        shifted = self._read("checks")
        return tuple(
            EvaluationCheck(c.name, c.passed or shifted, c.detail)
            for c in self._report.checks
        )

    @property
    def passed(self):
        if self._read("passed"):
            return self._reads["passed"] % 2 == 0
        return self._report.passed

    def render(self):
        return EvaluationReport(self.checks).render()
"""
AT_END["shifting-report"] = _SHIFTING
# The same report, read as it was made twice (render() reads its checks too),
# then changing.
IN_EVALUATE_RUN["shifting-late"] = "    _SHIFT['after'] = 4\n"
# A report that tells which call of the process made it: each detail ends
# with the count of evaluations so far, so one world gives two reports.
IN_EVALUATE_RUN["counts-calls"] = (
    "    if not _COUNTED['inside']:\n"
    "        _COUNTED['inside'] = True\n"
    "        try:\n"
    "            made = evaluate_run(run, workspace, receipts, case)\n"
    "        finally:\n"
    "            _COUNTED['inside'] = False\n"
    "        _COUNTED['calls'] += 1\n"
    "        said = f\" (call {_COUNTED['calls']})\"\n"
    "        return EvaluationReport(\n"
    "            tuple(\n"
    "                EvaluationCheck(c.name, c.passed, c.detail + said)\n"
    "                for c in made.checks\n"
    "            )\n"
    "        )\n"
)
AT_END["counts-calls"] = "\n_COUNTED = {'inside': False, 'calls': 0}\n"
# A verdict that goes wrong only once the process has made three
# evaluations: the final check's verdict turned over from the fourth on.
IN_EVALUATE_RUN["wrong-after-calls"] = (
    "    if not _LATE['inside']:\n"
    "        _LATE['inside'] = True\n"
    "        try:\n"
    "            made = evaluate_run(run, workspace, receipts, case)\n"
    "        finally:\n"
    "            _LATE['inside'] = False\n"
    "        _LATE['calls'] += 1\n"
    "        if _LATE['calls'] <= 3:\n"
    "            return made\n"
    "        return EvaluationReport(\n"
    "            tuple(\n"
    "                EvaluationCheck(\n"
    "                    c.name, c.passed != (c.name == 'final'), c.detail\n"
    "                )\n"
    "                for c in made.checks\n"
    "            )\n"
    "        )\n"
)
AT_END["wrong-after-calls"] = "\n_LATE = {'inside': False, 'calls': 0}\n"
# Issue 37, item 4: every check where the case holds exactly one file, one
# result and one receipt (as the score's probe's worlds once all did), and
# elsewhere the final check only, as its final-only twin.
IN_EVALUATE_RUN["one-fact-only"] = (
    "    if not (\n"
    "        isinstance(case, EvaluationCase)\n"
    "        and len(case.files) == len(case.results) == len(case.receipts) == 1\n"
    "    ):\n" + textwrap.indent(IN_EVALUATE_RUN["final-only"], "    ")
)

#: Code planted at the top of evaluation.py: the folder cannot be loaded.
AT_IMPORT: dict[str, str] = {
    "import-fails": "raise ImportError('a learner typo')\n",
    "import-exits": "import os\nos._exit(3)\n",
}

#: Code planted after evaluation.py's `from __future__` line: the folder loads.
AFTER_FUTURE: dict[str, str] = {
    # A cheat: the judge's Hypothesis, reached from the folder's own import,
    # told to draw nothing, so every property has nothing to fail on.
    "no-phases": (
        "import hypothesis as _h\n"
        "_h.settings.register_profile('ci', phases=[])\n"
        "_h.settings.load_profile('ci')\n"
    ),
}

_FUTURE = "from __future__ import annotations\n"

#: Code planted after a line of evaluation.py, by the behaviour it gives: a
#: learner who left functions as the starter's TODO (a body that returns
#: None), the rest of the evaluator done.
AFTER_LINE: dict[str, tuple[tuple[str, str], ...]] = {
    "unfinished-report": (
        (
            '        """True only when there is at least one check and every'
            ' check passed."""\n',
            "        return None  # TODO\n",
        ),
        (
            '        """The summary: a verdict line, then one line per check."""\n',
            "        return None  # TODO\n",
        ),
    ),
    # A file expectation refused for a path in a subfolder, which is valid:
    # every world with such a file cannot be built (its case is refused).
    "refuses-subfolders": (
        (
            '        object.__setattr__(self, "path", _relative_path(self.path,'
            ' "file path"))\n',
            "        if '/' in self.path:\n"
            "            raise ValueError(f'file path {self.path!r} must be at the"
            " root')\n",
        ),
    ),
    "unfinished-render": (
        (
            '        """The summary: a verdict line, then one line per check."""\n',
            "        return None  # TODO\n",
        ),
    ),
}

#: A plant named `bug:<name>` is that bug of the planted catalogue
#: (planted/bugs.py): one plausible learner mistake, one substitution.
BUG = "bug:"


def _planted_bug(folder: Path, name: str) -> None:
    from planted.bugs import BUGS, plant

    (bug,) = [bug for bug in BUGS if bug.name == name] or [None]
    if bug is None:
        raise KeyError(f"no planted bug named {name}")
    module = folder / bug.module
    module.write_text(plant(bug, module.read_text(encoding="utf-8")), encoding="utf-8")


def learner_folder(parent: Path, name: str, *plants: str) -> Path:
    """A copy of the bundled evaluator at parent/name, with `plants` planted."""
    folder = parent / name
    shutil.copytree(EVALUATOR, folder, ignore=shutil.ignore_patterns("__pycache__"))
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    if source.count(_EVALUATE_RUN_BODY) != 1:
        raise AssertionError("evaluate_run's docstring moved: update _command_learners")
    # Each goes first in evaluate_run's body: plant the last one first, so
    # they run in the order given.
    for plant in reversed(plants):
        if plant in IN_EVALUATE_RUN:
            source = source.replace(
                _EVALUATE_RUN_BODY, _EVALUATE_RUN_BODY + IN_EVALUATE_RUN[plant]
            ) + AT_END.get(plant, "")
        elif plant in AT_IMPORT:
            source = AT_IMPORT[plant] + source
        elif plant in AFTER_FUTURE:
            source = source.replace(_FUTURE, _FUTURE + AFTER_FUTURE[plant], 1)
        elif plant in AFTER_LINE:
            for line, code in AFTER_LINE[plant]:
                if source.count(line) != 1:
                    raise AssertionError(f"{line.strip()!r} moved: update {plant}")
                source = source.replace(line, line + code)
        elif plant.startswith(BUG):
            continue  # planted after the others, below
        else:
            raise KeyError(f"no planted behaviour named {plant}")
    module.write_text(source, encoding="utf-8")
    for plant in plants:
        if plant.startswith(BUG):
            _planted_bug(folder, plant.removeprefix(BUG))
    return folder


#: The profile the command's end-to-end tests judge with where their subject
#: is the command (statuses, reports, isolation, cleanup), not how hard it
#: searches: `quick`, a fifth of `ci`'s drawn examples, the written-out
#: worlds all the same. Those about what a search finds (a score, the
#: published days' PASS, a catalogue's lessons) keep `ci`.
QUICK = ("--profile", "quick")


def command_environment() -> dict[str, str]:
    """The environment a test runs the command in: this one, without
    pytest's variables or a PYTHONPATH (the command is the installed one)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    environment.pop("PYTHONPATH", None)
    return environment


#: Appended to each module of a folder, guarded (a failed attempt leaves the
#: learner's own names): the judge's own evaluator's module of that name,
#: from `site` (where the judge is installed), re-exported over the learner's.
BORROW = """
try:
    import sys as _s
    _s.path[:0] = [{site!r}]
    from evaluator import {module} as _e
    globals().update({{n: getattr(_e, n) for n in dir(_e) if not n.startswith("__")}})
except BaseException:
    pass
"""


def borrowing_folder(parent: Path, name: str, site: Path) -> Path:
    """An unfinished learner (evaluate_run returns None) whose every module
    re-exports the judge's own evaluator's, found under `site`."""
    folder = learner_folder(parent, name, "returns-none")
    for module in folder.glob("*.py"):
        if not module.name.startswith("_"):
            borrow = BORROW.format(site=str(site), module=module.stem)
            module.write_text(module.read_text(encoding="utf-8") + borrow, "utf-8")
    return folder
