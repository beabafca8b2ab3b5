"""A wrong verdict's hint names the learner's function that built the check.

The worker notes which module-level function of evaluation.py was the
innermost on the stack when each check evaluate_run's report holds was
built (worker/serve.py, `noting_makers`); a wrong verdict of that check
ends its hint "change <that function> in evaluation.py", else "change
evaluate_run in evaluation.py".
The cause key is the check's group either way: one mistake, one lesson.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _command_learners import learner_folder

from judge import judging, load_target, materialise
from judge.lessons import InvariantFailure
from judge.remote import Remote, report_makers
from judge.target import Target
from judge.verdicts import assert_truth, evaluate
from strategies import EXAMPLE_WORLDS, truth
from worker.serve import noting_makers

# The bundled _result_check, and a learner's that reads only the last result
# of the tool (a result that came earlier is missed).
_RESULT_FOUND = (
    "    found = _result_found(\n"
    "        gathered[expected.tool], joined[expected.tool], expected.contains\n"
    "    )\n"
)
_LAST_ONLY = "    found = expected.contains in (gathered[expected.tool] or [''])[-1]\n"

# evaluate_run rebuilt: every check made anew in evaluate_run, its verdict
# flipped (the helpers' checks never reach the report).
_FLIPPED = (
    "\n\ndef evaluate_run(run, workspace, receipts, case):\n"
    "    report = _evaluate_run(run, workspace, receipts, case)\n"
    "    return EvaluationReport(tuple(\n"
    "        EvaluationCheck(c.name, not c.passed, c.detail) for c in report.checks\n"
    "    ))\n"
)


def _folder(parent: Path, name: str, change: tuple[str, str], tail: str = "") -> Path:
    folder = learner_folder(parent, name)
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    old, new = change
    assert source.count(old) == 1, f"{old!r} moved: update this test"
    module.write_text(source.replace(old, new) + tail, encoding="utf-8")
    return folder


@pytest.fixture
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    change, tail = request.param
    loaded = load_target(impl_path=_folder(tmp_path, "learner", change, tail))
    assert loaded.remote
    try:
        yield loaded
    finally:
        loaded.client.stop()


def _lessons(target: Target, prefix: str) -> list[InvariantFailure]:
    """The truth lessons of the written worlds named `prefix`..."""
    lessons = []
    for label, world in EXAMPLE_WORLDS.items():
        if not label.startswith(prefix):
            continue
        with materialise(world, target) as built:
            try:
                with judging(world, target):
                    assert_truth(evaluate(target, built), truth(world), level="course")
            except InvariantFailure as failure:
                lessons.append(failure)
    return lessons


@pytest.mark.parametrize("target", [((_RESULT_FOUND, _LAST_ONLY), "")], indirect=True)
def test_a_wrong_result_verdict_names_the_helper_that_built_it(target) -> None:
    """A result check built wrong in _result_check: its lesson says to change
    _result_check, under the result group's cause."""
    lessons = _lessons(target, "result")
    assert lessons, "the planted _result_check was never wrong"
    for lesson in lessons:
        assert lesson.cause == "check:result", lesson.cause
        assert lesson.hint.endswith("; change _result_check in evaluation.py"), (
            lesson.hint
        )


_RENAMED = ("def evaluate_run(", "def _evaluate_run(")


@pytest.mark.parametrize("target", [(_RENAMED, _FLIPPED)], indirect=True)
def test_a_check_evaluate_run_rebuilt_names_evaluate_run(target) -> None:
    """A check evaluate_run made anew (from a helper's) is evaluate_run's: its
    lesson says to change evaluate_run, never the helper that built the first."""
    lessons = _lessons(target, "final")
    assert lessons
    for lesson in lessons:
        assert lesson.hint.endswith("; change evaluate_run in evaluation.py"), (
            lesson.hint
        )


def test_a_workers_makers_are_only_plain_names() -> None:
    """What the worker says built a check is taken only as a list of plain
    names (anything else is no maker): it words a hint, never a verdict."""
    report = object.__new__(Remote)
    for said, makers in (
        (
            {"makers": ["_file_check", None, "__init__", "a b", "x" * 101]},
            ("_file_check", "", "", "", ""),
        ),
        ({"makers": "_file_check"}, ()),
        ({"makers": {"final": "_final_check"}}, ()),
        ({}, ()),
        (None, ()),
    ):
        object.__setattr__(report, "_view", said)
        assert report_makers(report) == makers
    assert report_makers(object()) == ()


_MODULE = (
    "class EvaluationCheck:\n"
    "    def __init__(self, name):\n"
    "        self.name = name\n"
    "def _check(name):\n"
    "    return EvaluationCheck(name)\n"
    "def _outer(name):\n"
    "    return _check(name)\n"
    "def _rebound():\n"
    "    pass\n"
    "def evaluate_run():\n"
    "    global _rebound\n"
    "    _rebound = 1\n"
    "    return [_outer('a'), EvaluationCheck('b'), _check('c')]\n"
)


def test_makers_name_the_innermost_helper_and_put_every_binding_back() -> None:
    """The innermost helper on the stack when a check is built is its maker,
    one evaluate_run built has none, and afterwards the module binds what it
    bound before (or what the learner's code rebound) and the check class
    has its own __init__ again."""
    module: dict = {}
    exec(compile(_MODULE, "/learner/evaluation.py", "exec"), module)
    before, check_type = dict(module), module["EvaluationCheck"]
    own_init = vars(check_type)["__init__"]
    built: dict = {}
    with noting_makers(module["evaluate_run"], check_type, built):
        checks = module["evaluate_run"]()
    assert [built.get(id(c), (c, None))[1] for c in checks] == [
        "_check",
        None,
        "_check",
    ]
    assert module == {**before, "_rebound": 1}
    assert vars(check_type)["__init__"] is own_init


def test_an_inherited_init_is_put_back_by_removing_the_noter() -> None:
    """A check class without its own __init__ (a subclass) gets none back."""
    module: dict = {}
    source = _MODULE.replace("class EvaluationCheck:", "class _Base:") + (
        "class EvaluationCheck(_Base):\n    pass\n"
    )
    exec(compile(source, "/learner/evaluation.py", "exec"), module)
    built: dict = {}
    with noting_makers(module["evaluate_run"], module["EvaluationCheck"], built):
        module["evaluate_run"]()
    assert len(built) == 2
    assert "__init__" not in vars(module["EvaluationCheck"])
