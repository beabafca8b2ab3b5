"""A lesson promises a reproduction only when it has one, which rebuilds its world.

A long world is shown cut, with a line saying how much was left out; that
line says the snippet rebuilds the rest only when the lesson carries a
snippet (and the reports keep it). A lesson about two evaluations (the run's
events reordered, one fact changed, the log damaged) gets a snippet that
rebuilds both and prints both reports. Every snippet runs from any
directory. A lesson about a concrete call on no world (a case's types, a
report built directly) or on one (a wrong argument) has a snippet that makes
that call; one about a call that hung or ended its worker gives the
day7-verify line that draws it again, which tells the same lesson.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from _command_learners import QUICK, ROOT, learner_folder
from _written_worlds import EXAMPLE_WORLDS
from hypothesis import example, given, settings
from hypothesis import strategies as st

from day7_verify.reports._causes import FIELD_BOUNDS, bounded
from day7_verify.reports._report import lesson
from day7_verify.reports._text import runnable
from judge import fail, load_target, recast, timed_out
from judge.lessons import (
    REDRAW_MARK,
    WHERE_THE_REST_IS,
    CallAborted,
    InvariantFailure,
)
from judge.snippets import ABORTED
from judge.verdicts import judging, reproduction
from strategies import (
    World,
    example_invalid_specs,
    example_valid_specs,
    invalid_specs,
    valid_specs,
    world_events,
    wrong_type_specs,
)
from strategies.vocabulary import EVALUATE
from strategies.world import describe

BIG = EXAMPLE_WORLDS["everything at once"]

#: The workspace root a lesson names is the judge's, padded to a length
#: (judge.evidence `_root`); a plain test names its own `ws`.
ROOT_NAME = re.compile(r"\bws-+(?=[/:; ]|$)")


def as_tested(headline: str) -> str:
    """A lesson's headline as its plain test says it: the root as `ws`."""
    return ROOT_NAME.sub("ws", headline)


def _run(snippet: str, where: Path) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run(
        ["sh", "-c", runnable(snippet)],
        cwd=where,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_cut_world_promises_the_snippet_only_when_there_is_one():
    """Without a snippet the cut world says only that lines were left out."""
    words = describe(BIG)
    assert len(words.splitlines()) > 12
    bare = InvariantFailure(world=words, expected="x", observed="y")
    assert "more line(s) of the world, not shown" in bare.world
    assert WHERE_THE_REST_IS not in bare.world
    assert WHERE_THE_REST_IS not in bare.as_dict()["world"]
    with pytest.raises(InvariantFailure) as raised, judging(BIG, load_target()):
        fail(world=words, expected="x", observed="y")
    assert raised.value.reproduce
    assert WHERE_THE_REST_IS in raised.value.as_dict()["world"]


def test_the_largest_written_world_keeps_its_snippet_in_the_reports():
    """A snippet of the biggest world, twice over, is within the report's bound."""
    target = load_target()
    snippet = reproduction(BIG, target, then=("changed", replace(BIG, noise=()), None))
    assert len(snippet) <= FIELD_BOUNDS["reproduce"].chars
    with pytest.raises(InvariantFailure) as raised, judging(BIG, target):
        fail(world=describe(BIG), expected="x", observed="y", cause="c")
    (kept,) = bounded([lesson(raised.value.as_dict())])
    assert kept["reproduce"] and WHERE_THE_REST_IS in kept["world"]


def test_a_snippet_left_out_as_too_long_is_no_longer_promised():
    """When the reports drop a snippet too long to show, the world stops
    saying the snippet rebuilds it."""
    with pytest.raises(InvariantFailure) as raised, judging(BIG, load_target()):
        fail(world=describe(BIG), expected="x", observed="y", cause="c")
    fields = raised.value.as_dict()
    fields["reproduce"] += "\n#" + "x" * FIELD_BOUNDS["reproduce"].chars
    (kept,) = bounded([lesson(fields)])
    assert kept["reproduce"] == ""
    assert WHERE_THE_REST_IS not in kept["world"]
    assert "more line(s) of the world, not shown" in kept["world"]


def _prints_both(snippet: str, tmp_path: Path, second: str) -> None:
    """The snippet runs from elsewhere and prints both reports, each under its line."""
    ran = _run(snippet, tmp_path)
    assert ran.returncode == 0, ran.stderr
    printed = ran.stdout.splitlines()
    assert printed[0] == "# world" and second in printed
    assert sum(line.startswith("evaluation: ") for line in printed) == 2


def _two_world_snippet(world, then) -> str:
    """The reproduction snippet of a lesson failing inside judging(world, then=...)."""
    with (
        pytest.raises(InvariantFailure) as raised,
        judging(world, load_target(), then=then),
    ):
        fail(world=describe(world), expected="x", observed="y")
    return raised.value.reproduce


def test_a_lesson_about_two_evaluations_rebuilds_both(tmp_path: Path):
    """judging(..., then=...) gives a snippet that prints the report on the
    world, then on the second one (here: its events reversed), from anywhere."""
    world = EXAMPLE_WORLDS["result split"]
    events = tuple(reversed(world_events(world)))
    snippet = _two_world_snippet(world, ("events reversed", world, events))
    assert "events = (EventSpec(" in snippet
    _prints_both(snippet, tmp_path, "# events reversed")


def test_a_second_world_is_written_as_what_changed(tmp_path: Path):
    """A lesson's second world that differs in a field is written as
    replace(world, that=...), and the snippet still runs both evaluations."""
    snippet = _two_world_snippet(BIG, ("noise dropped", replace(BIG, noise=()), None))
    assert "other = replace(world, noise=())" in snippet
    _prints_both(snippet, tmp_path, "# noise dropped")


# --- end to end ---------------------------------------------------------------------

_VERDICTS = ("check:", "detail:", "names:")


def _reproduced(item: dict[str, str], printed: str) -> bool:
    """Whether a snippet's output shows what its lesson says happened."""
    if item["invariant"].startswith("read-only"):
        # The tree's paths differ from the judge's: that something changed.
        return "tree changes: ['" in printed or "changed: ['" in printed
    if item["cause"].startswith((*_VERDICTS, "invariant:report-shape")):
        # The report printed: its checks' names and verdicts are the lesson.
        return re.match("(# world\n)?evaluation: ", printed) is not None
    return item["observed"].removesuffix("...") in printed


def _redrawn(folder: str, item: dict, environment: dict, tmp_path: Path) -> None:
    """The lesson's `day7-verify FOLDER [--profile P] --seed N` line, run,
    tells it again (a run judged with a profile other than the default
    names it: another draws other examples)."""
    line = item["reproduce"].splitlines()[-1].removeprefix("#").strip()
    drawn = re.fullmatch(r"day7-verify (.+?)(?: --profile (\w+))? --seed (\d+)", line)
    assert drawn is not None and drawn[1] == folder, (folder, line)
    profile = ["--profile", drawn[2]] if drawn[2] else []
    again = tmp_path / "again.json"
    subprocess.run(
        [sys.executable, "-m", "day7_verify", folder, *profile, "--seed", drawn[3]]
        + ["--json", str(again)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        timeout=900,
    )
    (learner,) = json.loads(again.read_text(encoding="utf-8"))["learners"]
    told = {(i["invariant"], i["headline"]) for i in learner["lessons"]}
    assert (item["invariant"], item["headline"]) in told, (line, told)


def _outcome(build):
    """What building gives: the object, or the type of what it raised."""
    try:
        return ("made", build())
    except Exception as error:  # the outcome compared, whatever it is
        return ("raised", type(error))


@settings(max_examples=150, deadline=None)
@given(spec=st.one_of(invalid_specs(), valid_specs()))
@example(spec=wrong_type_specs()[0])
def test_a_specifications_code_builds_what_it_makes(spec):
    """A case specification's `code` (what its lessons' snippets run) builds
    what its `make` builds, or raises as it does."""
    target = load_target()
    assert spec.code
    built = _outcome(lambda: spec.make(target, recast=recast))
    scope = {"target": target, "recast": recast}
    assert _outcome(lambda: eval(spec.code, scope)) == built


def test_every_hand_written_specification_has_code_that_builds_it():
    """The explicit examples and the wrong types, as the drawn ones."""
    target = load_target()
    scope = {"target": target, "recast": recast}
    for spec in [*example_invalid_specs(), *wrong_type_specs(), *example_valid_specs()]:
        built = _outcome(lambda spec=spec: spec.make(target, recast=recast))
        assert _outcome(lambda spec=spec: eval(spec.code, scope)) == built


def test_a_hang_on_a_world_is_drawn_again_not_written():
    """A hang's lesson gives the day7-verify line that draws it again, and
    says why no test file makes the call (it would wait on it for ever)."""
    world = World()
    with pytest.raises(CallAborted) as raised, judging(world, load_target()):
        raise timed_out(EVALUATE, 5.0, world=describe(world))
    snippet = raised.value.reproduce
    assert snippet.startswith(f"{REDRAW_MARK} {ABORTED['hang']}.")
    assert "#     day7-verify " in snippet and "call_target" not in snippet


#: A planted evaluate_run that hangs, one that ends its process, and one
#: that runs out of memory, on an argument of the wrong type (None):
#: argument-types' lesson is the call.
_ABORTING = {
    "hang": "hangs-on-no-run",
    "crash": "crashes-on-no-run",
    "memory": "eats-memory",
}


def _environment() -> dict[str, str]:
    return {
        k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "PYTHON"))
    }


@pytest.fixture(scope="module")
def aborting(tmp_path_factory) -> dict[str, tuple[Path, dict]]:
    """The three learners of `_ABORTING`, judged as one class (one command,
    two at a time): each topic's folder and its learner's JSON."""
    cohort = tmp_path_factory.mktemp("aborting")
    folders = {t: learner_folder(cohort, t, plant) for t, plant in _ABORTING.items()}
    report = cohort.parent / f"{cohort.name}.json"
    subprocess.run(
        [sys.executable, "-m", "day7_verify", "--cohort", str(cohort), *QUICK]
        + ["--seed", "3", "--jobs", "2", "--json", str(report)],
        cwd=ROOT,
        env=_environment(),
        capture_output=True,
        timeout=900,
    )
    learners = json.loads(report.read_text(encoding="utf-8"))["learners"]
    by_path = {learner["path"]: learner for learner in learners}
    return {t: (folder, by_path[str(folder)]) for t, folder in folders.items()}


@pytest.mark.children
@pytest.mark.parametrize("topic", sorted(_ABORTING))
def test_a_call_that_hung_or_crashed_is_told_again_by_its_day7_verify_line(
    tmp_path: Path, topic: str, aborting
):
    """A learner whose evaluate_run hangs (ends its process, runs out of
    memory) is told so with the `day7-verify FOLDER --seed N` line, saying
    why no test file makes that call, and that line, run, tells the same
    lesson again."""
    folder, learner = aborting[topic]
    # The call's own lesson (the suite's line for a run stopped says so too).
    (item,) = [i for i in learner["lessons"] if i["topic"] == topic and i["reproduce"]]
    assert item["reproduce"].startswith(f"{REDRAW_MARK} {ABORTED[topic]}.")
    assert item["reproduce"].endswith(f"day7-verify {folder} --profile quick --seed 3")
    environment = _environment()
    _redrawn(str(folder), item, environment, tmp_path)


def test_a_day_1_to_6_call_that_failed_is_told_again_not_a_traceback():
    """A substrate lesson (the world could not be built through the target)
    gets a snippet that prints the lesson's headline where the build fails."""
    world = World()
    with pytest.raises(InvariantFailure) as raised, judging(world, load_target()):
        fail(
            world="w",
            expected="e",
            observed="o",
            topic="substrate",
            cause="substrate:ReceiptStore.put",
        )
    snippet = raised.value.reproduce
    assert "except (CallAborted, InvariantFailure) as lesson:" in snippet
    assert "call_target('evaluate_run(run, workspace, receipts, case)'" in snippet
