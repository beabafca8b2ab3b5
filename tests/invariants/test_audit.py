"""What evaluation may touch (hardened): the root, the receipt log, and nothing else.

Python's audit hooks report every `open`, `os.listdir`, `os.scandir`, process
start and socket of the interpreter. judge/watch.py installs one hook
for the whole session that records only while a test has armed it in the
thread that runs `evaluate_run`; a descriptor-relative `os.open` (the way a
careful evaluator walks the tree) is resolved through its directory
descriptor. The worlds are hostile worlds that always hold at least one
symlink out of the root to a secret holding exactly the expected text.
tests/meta shows this property failing on a planted bug of each kind.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from judge import Figures, judge_access, reported_figures, short_unless_thorough
from strategies import World, describe, file_facts, hostile_worlds


@pytest.fixture(scope="session")
def audit_figures(pytestconfig: pytest.Config) -> Figures:
    return reported_figures(
        pytestconfig,
        "audit",
        (
            "worlds",
            "paths opened",
            "opened outside root and log",
            "secrets opened",
            "processes",
            "network uses",
            "filesystem changes",
            "secret links passed",
            "hangs or exceptions (judged elsewhere)",
        ),
    )


# Built once: a strategy built inside the composite would be rebuilt for
# every example.
_WORLDS = hostile_worlds(max_files=3)
_SECRET_LINKS = file_facts(("symlink_out_at",))


@st.composite
def audited_worlds(draw: st.DrawFn) -> World:
    """A hostile world with at least one symlink to a secret, at a drawn position."""
    world = draw(_WORLDS)
    link = draw(_SECRET_LINKS, label="secret link").at(len(world.files))
    position = draw(st.integers(0, len(world.files)), label="its position")
    files = (*world.files[:position], link, *world.files[position:])
    return replace(world, files=files)


@pytest.mark.hardened
@pytest.mark.invariant("confinement")
@short_unless_thorough()
@given(world=audited_worlds())
def test_evaluation_opens_nothing_outside_the_root_and_the_log(
    target, audit_figures: Figures, world: World
) -> None:
    """During evaluate_run every path opened is inside the workspace root or is the
    receipt log, no process or socket is started, and a symlink to a secret
    outside the root fails its check without the secret being opened.

    Tasks 3, 5 and 7 (file facts, receipts, read-only): the workspace boundary
    is what makes a file check mean "the agent left this in the workspace".
    An evaluator that follows a link out of the root grades whatever the
    link points at (a secret, a file of another run) and leaks that it
    exists; one that starts processes or opens sockets is not read-only.
    """
    note(describe(world))
    judge_access(target, world, audit_figures)
