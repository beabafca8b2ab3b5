"""A lesson's reproduction snippet runs as it is printed and rebuilds the same world."""

from __future__ import annotations

import contextlib
import io

import pytest
from _written_worlds import EXAMPLE_WORLDS, TRAP_WORLDS

from judge import judged, load_target
from judge.verdicts import reproduction
from strategies import CHAPTER_WORLD, World

# Meta-tests of the suite's own strategies and oracle: the invariants draw
# from the same strategies on every interpreter; their distribution is
# checked once (tox: py311), since it is minutes and interpreter-neutral.
pytestmark = pytest.mark.once

WORLDS = {
    "everything at once": EXAMPLE_WORLDS["everything at once"],
    "a trap": TRAP_WORLDS["trap file symlink_out_at"],
    "a real run": CHAPTER_WORLD,
}


@pytest.mark.parametrize("name", list(WORLDS))
def test_the_snippet_prints_the_report_of_the_same_world(name: str) -> None:
    """Executed as printed, the snippet prints the rendering of a report with
    exactly the checks the suite saw for that world."""
    world: World = WORLDS[name]
    target = load_target()
    snippet = reproduction(world, target)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(snippet, "<lesson>", "exec"), {})
    lines = printed.getvalue().splitlines()
    rows = judged(target, world)
    assert lines[0] in ("evaluation: PASS", "evaluation: FAIL")
    assert [line.split(": ", 1)[0] for line in lines[1:]] == [
        f"- {row[0]}" for row in rows
    ]
