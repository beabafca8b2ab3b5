"""A wrong verdict's hint names the learner's function that built the check.

Issue 36, item 5: a hint that always says "change evaluate_run" sends a
learner whose mistake is in a helper (`_file_check`) to the wrong place.
When a wrong verdict is told (judge.verdicts `told_smaller`), the judge
evaluates the world told once more with the learner's EvaluationCheck
refusing to make that check (judge/maker.py `built_by`): the error's frames
name the learner's function that was building it. It is the learner's
word: it places a hint and never decides a verdict, so anything but a plain
function name in a plain module falls back to evaluate_run, the one function
that makes every check. The cause stays the check's group: one mistake, one
lesson, wherever it was made.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _command_learners import learner_folder
from _written_worlds import EXAMPLE_WORLDS
from hypothesis import example, given
from hypothesis import strategies as st

from judge import judging, load_target, materialise
from judge.fixes import hint_for, maker_place
from judge.lessons import InvariantFailure
from judge.maker import built_by
from judge.target import Target
from judge.verdicts import assert_truth, evaluate, fresh_rows, told_smaller
from strategies import truth

# The bundled _file_check, and a learner's that strips the file's text first
# (a file whose last line ends in a newline never matches).
_FILE_MATCHES = "    if observed is not None and observed == expected.content:\n"
_STRIPPED = "    if observed is not None and observed.strip() == expected.content:\n"

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
_RENAMED = ("def evaluate_run(", "def _evaluate_run(")
_FLIPPED = (
    "\n\ndef evaluate_run(run, workspace, receipts, case):\n"
    "    report = _evaluate_run(run, workspace, receipts, case)\n"
    "    return EvaluationReport(tuple(\n"
    "        EvaluationCheck(c.name, not c.passed, c.detail) for c in report.checks\n"
    "    ))\n"
)

# The same, made anew in a helper's list comprehension: the report holds
# _flip's checks, though _final_check made one of the same name first.
_FLIPPED_IN_A_HELPER = (
    "\n\ndef _flip(report):\n"
    "    return [\n"
    "        EvaluationCheck(c.name, not c.passed, c.detail) for c in report.checks\n"
    "    ]\n"
    "\n\ndef evaluate_run(run, workspace, receipts, case):\n"
    "    report = _evaluate_run(run, workspace, receipts, case)\n"
    "    return EvaluationReport(tuple(_flip(report)))\n"
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


def _told(target: Target, prefix: str, tries: int = 3) -> list[InvariantFailure]:
    """The first `tries` truth lessons of the written worlds named `prefix`...,
    each told as the suite tells it (`told_smaller`)."""
    lessons = []
    for label, world in EXAMPLE_WORLDS.items():
        if not label.startswith(prefix) or len(lessons) == tries:
            continue
        with materialise(world, target) as built:
            try:
                with judging(world, target):
                    assert_truth(evaluate(target, built), truth(world), level="course")
            except InvariantFailure as failure:
                assert failure.hint.endswith("; change evaluate_run in evaluation.py")
                lessons.append(failure)
    for lesson in lessons:
        told_smaller(lesson)
    return lessons


@pytest.mark.parametrize("target", [((_FILE_MATCHES, _STRIPPED), "")], indirect=True)
def test_a_wrong_file_verdict_built_in_file_check_names_file_check(target) -> None:
    """A file check built wrong in the learner's _file_check (strip() on the
    file's text): its lesson, as told, says to change _file_check in
    evaluation.py, under the file group's cause."""
    lessons = _told(target, "file")
    assert lessons, "the planted _file_check was never wrong"
    for lesson in lessons:
        assert lesson.cause == "check:file", lesson.cause
        assert lesson.hint.endswith("; change _file_check in evaluation.py"), (
            lesson.hint
        )


@pytest.mark.parametrize("target", [((_RESULT_FOUND, _LAST_ONLY), "")], indirect=True)
def test_a_wrong_result_verdict_built_in_a_helper_names_the_helper(target) -> None:
    """A result check built wrong in the learner's _result_check: its lesson
    says to change _result_check, under the result group's cause."""
    lessons = _told(target, "result")
    assert lessons, "the planted _result_check was never wrong"
    for lesson in lessons:
        assert lesson.cause == "check:result", lesson.cause
        assert lesson.hint.endswith("; change _result_check in evaluation.py"), (
            lesson.hint
        )


@pytest.mark.parametrize("target", [(_RENAMED, _FLIPPED)], indirect=True)
def test_a_check_evaluate_run_rebuilt_names_evaluate_run(target) -> None:
    """A check evaluate_run made anew inline (in its generator expression,
    from a helper's) is evaluate_run's: its lesson says to change
    evaluate_run in evaluation.py."""
    lessons = _told(target, "final")
    assert lessons
    for lesson in lessons:
        assert lesson.hint.endswith("; change evaluate_run in evaluation.py"), (
            lesson.hint
        )


@pytest.mark.parametrize("target", [(_RENAMED, _FLIPPED_IN_A_HELPER)], indirect=True)
def test_the_check_the_report_holds_names_its_maker(target) -> None:
    """The place is that of the object the report holds (made in _flip's
    list comprehension), not of an earlier one of the same name (made in
    _final_check and dropped): its lesson says to change _flip."""
    lessons = _told(target, "final")
    assert lessons
    for lesson in lessons:
        assert lesson.hint.endswith("; change _flip in evaluation.py"), lesson.hint


@pytest.mark.parametrize("target", [((_FILE_MATCHES, _STRIPPED), "")], indirect=True)
def test_the_probe_leaves_the_learner_as_it_was(target) -> None:
    """After the probe the learner's code answers as before it: the same
    rows on the same world (the worker that ran the probe is gone)."""
    world = EXAMPLE_WORLDS["file exact"]
    before = fresh_rows(target, world)
    index, name = next(
        (i, row[0]) for i, row in enumerate(before) if row[0].startswith("file:")
    )
    assert built_by(target, world, name, index) == ("_file_check", "evaluation.py")
    assert built_by(target, world, "file:elsewhere", index) is None  # not that one
    assert fresh_rows(target, world) == before


_OWN_NEW = (
    "\n\ndef _made(cls, *args, **kwargs):\n"
    "    return object.__new__(cls)\n"
    "\n\nEvaluationCheck.__new__ = staticmethod(_made)\n"
)


@pytest.mark.parametrize(
    "target", [((_FILE_MATCHES, _STRIPPED), _OWN_NEW)], indirect=True
)
def test_a_class_with_its_own_new_is_left_alone(target) -> None:
    """A learner's EvaluationCheck with a __new__ of its own is never
    replaced: no place is seen (the hint names evaluate_run), and the
    worker goes on as it was, not restarted."""
    world = EXAMPLE_WORLDS["file exact"]
    rows = fresh_rows(target, world)
    index = next(i for i, row in enumerate(rows) if row[0].startswith("file:"))
    generation = target.client.generation
    assert built_by(target, world, rows[index][0], index) is None
    assert target.client.generation == generation
    assert fresh_rows(target, world) == rows


def test_an_in_process_target_is_never_probed() -> None:
    """The bundled evaluator, judged in this process, is ours: no probe."""
    target = load_target()
    assert not target.remote
    world = EXAMPLE_WORLDS["file exact"]
    assert built_by(target, world, truth(world)[1].name, 1) is None


# --- the place: the learner's word, bounded ------------------------------------

#: A name part: a plain one, a dunder, a long one, or not one at all.
_PLAIN = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True)
_NAME = st.one_of(
    _PLAIN,
    _PLAIN.map(lambda name: f"__{name}__"),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{75,100}", fullmatch=True),
    st.text(max_size=8),
)
_ANY = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=120),
    st.lists(st.one_of(st.none(), st.integers(), st.text(max_size=120)), max_size=4),
)


@example(maker=["__init__", "/a/agent/evaluation.py", 1])  # a dunder
@example(maker=["f" * 81, "evaluation.py", 1])  # too long
@example(maker=["f.g<h>", "evaluation.py", 1])  # markup
@example(maker=["f", "evaluation.py\n", 1])  # a line break
@example(maker=["Checks.\u0430", "evaluation.py", 1])  # not ASCII
@given(
    maker=st.one_of(
        _ANY,
        st.tuples(
            st.text(max_size=120)
            | st.lists(_NAME | st.just("<locals>"), min_size=1, max_size=8).map(
                ".".join
            ),
            st.text(max_size=60)
            | st.from_regex(
                r"(/[a-z]+)*/[A-Za-z_][A-Za-z0-9_]{0,12}\.py", fullmatch=True
            ),
            st.integers(),
        ),
    )
)
def test_a_makers_place_is_plain_or_evaluate_run(maker) -> None:
    """Whatever the worker says built a check, the hint's place is a plain
    ASCII dotted name (no dunder part) of at most 80 characters in a plain
    module file, or evaluate_run with its own module.

    Task 7 (keep evaluation honest) and issue 36 item 5: the maker is what
    the learner's code (its frames, its names) let the worker see, so it
    words a hint only within these bounds: never markup, an escape, a path,
    a line break or a guess.
    """
    name, file = maker_place(maker)
    if (name, file) == ("evaluate_run", ""):
        return
    assert len(name) <= 80 and name.isascii()
    assert all(
        part.isidentifier() and not part.startswith("__") for part in name.split(".")
    )
    assert file.endswith(".py") and file[:-3].isidentifier() and file.isascii()
    hint = hint_for(truth(EXAMPLE_WORLDS["file exact"])[1], False, "course", maker)
    assert hint.endswith(f"; change {name} in {file}")
    assert "\n" not in hint and "<" not in hint


def test_a_nested_function_names_its_outermost() -> None:
    """A check built in a function nested in another (a comprehension, a
    lambda) names the outermost: the one the learner can find by name."""
    assert maker_place(["evaluate_run.<locals>.<genexpr>", "evaluation.py", 3]) == (
        "evaluate_run",
        "evaluation.py",
    )
    assert maker_place(["Checker._file", "/a/agent/checks.py", 3]) == (
        "Checker._file",
        "checks.py",
    )
    for odd in (["<lambda>", "evaluation.py", 1], ["__init__", "evaluation.py", 1]):
        assert maker_place(odd) == ("evaluate_run", "")
