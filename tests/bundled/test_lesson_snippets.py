"""A lesson promises a reproduction only when it has one, which rebuilds its world.

A long world is shown cut, with a line saying how much was left out; that
line says the snippet rebuilds the rest only when the lesson carries a
snippet (and the reports keep it). A lesson about two evaluations (the run's
events reordered, one fact changed, the log damaged) gets a snippet that
rebuilds both and prints both reports. Every snippet runs from any
directory.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from day7_verify._causes import FIELD_BOUNDS, bounded
from day7_verify._report import lesson
from day7_verify._text import runnable
from strategies import EXAMPLE_WORLDS, fail, load_target, world_events
from strategies.lessons import WHERE_THE_REST_IS, InvariantFailure
from strategies.verdicts import judging, reproduction
from strategies.world import describe

BIG = EXAMPLE_WORLDS["everything at once"]


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


def test_a_lesson_about_two_evaluations_rebuilds_both(tmp_path: Path):
    """judging(..., then=...) gives a snippet that prints the report on the
    world, then on the second one (here: its events reversed), from anywhere."""
    world = EXAMPLE_WORLDS["result split"]
    events = tuple(reversed(world_events(world)))
    with (
        pytest.raises(InvariantFailure) as raised,
        judging(world, load_target(), then=("events reversed", world, events)),
    ):
        fail(world=describe(world), expected="x", observed="y")
    snippet = raised.value.reproduce
    assert "events = (EventSpec(" in snippet
    ran = _run(snippet, tmp_path)
    assert ran.returncode == 0, ran.stderr
    printed = ran.stdout.splitlines()
    assert printed[0] == "# world" and "# events reversed" in printed
    assert sum(line.startswith("evaluation: ") for line in printed) == 2
