"""What evaluation may touch (hardened): the root, the receipt log, and nothing else.

Python's audit hooks report every `open`, `os.listdir`, `os.scandir`, process
start and socket of the interpreter.  strategies/watch.py installs one hook
for the whole session that records only while a test has armed it in the
thread that runs `evaluate_run`; a descriptor-relative `os.open` (the way a
careful evaluator walks the tree) is resolved through its directory
descriptor.  The worlds are hostile worlds that always hold at least one
symlink out of the root to a secret holding exactly the expected text.

The last tests plant a bug of each kind in a copy of the target and show
the property failing on it.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from strategies.hostile import (
    FileHazard,
    HostileAssets,
    HostileWorld,
    LogHazard,
    build_world,
    hostile_worlds,
    secret_links,
)
from strategies.lessons import InvariantFailure, fail, report_view
from strategies.target import Target
from strategies.watch import (
    HANG_SECONDS,
    AccessRecorder,
    Figures,
    call_with_deadline,
    reported_figures,
    short_unless_thorough,
)


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


# Built once: a strategy built inside the composite would be rebuilt (and its
# character tables recomputed) for every example.
_WORLDS = hostile_worlds(max_files=3)
_SECRET_LINKS = secret_links()


@st.composite
def audited_worlds(draw: st.DrawFn) -> HostileWorld:
    """A hostile world with at least one symlink to a secret, at a drawn position."""
    world = draw(_WORLDS)
    link = draw(_SECRET_LINKS, label="secret link")
    position = draw(st.integers(0, len(world.files)), label="its position")
    files = (*world.files[:position], link, *world.files[position:])
    return dataclasses.replace(world, files=files)


def judge_access(
    target: Target,
    world: HostileWorld,
    assets: HostileAssets,
    figures: Figures | None = None,
    *,
    seconds: float = HANG_SECONDS,
) -> None:
    """Evaluate `world` with the recorder armed; fail as a lesson on a stray access."""
    __tracebackhide__ = True
    figures = figures or Figures("unreported")
    described = world.describe()
    figures.add("worlds")
    recorder = AccessRecorder()
    with tempfile.TemporaryDirectory(prefix="day7-audit-") as scratch:
        built = build_world(target, world, Path(scratch), assets)
        outcome = call_with_deadline(
            lambda: target.evaluate_run(*built.args),
            seconds=seconds,
            fifos=built.fifos,
            inside=recorder.armed,
        )
        problems = recorder.violations(
            root=built.root, log=built.log, secrets=built.secrets
        )

    accesses = recorder.accesses
    figures.add("paths opened", sum(a.kind == "path" for a in accesses))
    figures.add("processes", sum(a.kind == "process" for a in accesses))
    figures.add("network uses", sum(a.kind == "network" for a in accesses))
    figures.add("filesystem changes", sum(a.kind == "change" for a in accesses))
    figures.add("secrets opened", sum("the secret" in p for p in problems))
    figures.add("opened outside root and log", sum("outside" in p for p in problems))
    if problems:
        fail(
            world=described,
            expected="evaluate_run opens only paths inside the root and the receipt"
            " log, for reading, and starts no process and no socket",
            observed="\n".join(problems[:6]),
            hint="resolve every path through workspace.resolve_path, open without"
            " following links (or open nothing the boundary refused), and judge"
            " only from the run, the root and the log",
        )
    if outcome.hung or outcome.error is not None:
        # A hang or a crash is the hostile-worlds invariant's lesson; here only
        # what was touched until then counts, and that was checked above.
        figures.add("hangs or exceptions (judged elsewhere)")
        return
    rows = report_view(outcome.value)
    links = {name for name, _, what in built.truth if what == "symlink-out"}
    for name, passed, detail in rows:
        if name in links and passed:
            figures.add("secret links passed")
            fail(
                world=described,
                expected=f"{name}: FAIL (a symlink out of the root is not evidence)",
                observed=f"{name}: PASS ({detail})",
                hint="a symlink at any component of the path makes the evidence"
                " unavailable, even when the text it leads to matches",
            )


@pytest.mark.hardened
@pytest.mark.invariant("confinement")
@short_unless_thorough()
@given(world=audited_worlds())
def test_evaluation_opens_nothing_outside_the_root_and_the_log(
    target: Target,
    hostile_assets: HostileAssets,
    audit_figures: Figures,
    world: HostileWorld,
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
    note(world.describe())
    judge_access(target, world, hostile_assets, audit_figures)


# --- the property fails on planted bugs -------------------------------------------

_SECRET_WORLD = HostileWorld(
    "done",
    "text",
    (FileHazard("symlink-out", ("app.py",), "print('hi')\n", at=1, absolute=True),),
    (),
    LogHazard("valid"),
)


def _planted(target: Target, before: Callable[..., None]) -> Target:
    """The target, with `before(workspace, case)` run at the start of evaluate_run."""

    def evaluate(run: Any, workspace: Any, receipts: Any, case: Any) -> Any:
        before(workspace, case)
        return target.evaluate_run(run, workspace, receipts, case)

    names = types.MappingProxyType({**target.names, "evaluate_run": evaluate})
    return dataclasses.replace(target, names=names)


def _opens_after_resolving(workspace: Any, case: Any) -> None:
    # The classic: check the boundary lexically, then open the joined path,
    # which follows the link.
    for expected in case.files:
        path = os.path.realpath(os.path.join(workspace.policy.root, expected.path))
        with open(path, "rb") as handle:
            handle.read()


def _reads_link_target(workspace: Any, case: Any) -> None:
    for expected in case.files:
        link = Path(workspace.policy.root, expected.path)
        if link.is_symlink():
            Path(link.parent, os.readlink(link)).read_bytes()


def _starts_process(workspace: Any, case: Any) -> None:
    subprocess.run(["true"], check=False)


def _opens_socket(workspace: Any, case: Any) -> None:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()


def _lists_beside_root(workspace: Any, case: Any) -> None:
    os.listdir(Path(workspace.policy.root).parent)


PLANTED = {
    "opens the resolved path": (_opens_after_resolving, "opened the secret"),
    "reads the link's target": (_reads_link_target, "opened the secret"),
    "starts a process": (_starts_process, "started a process"),
    "opens a socket": (_opens_socket, "used the network"),
    "lists beside the root": (_lists_beside_root, "opened outside the root"),
}


@pytest.mark.hardened
@pytest.mark.invariant("confinement")
@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_confinement_property_catches_a_planted_bug(
    target: Target, hostile_assets: HostileAssets, bug: str
) -> None:
    """The confinement property fails on an evaluator that reaches outside the root.

    Tasks 3 and 7: each planted evaluator does one forbidden thing and then
    evaluates correctly, so only the audit can tell it apart.
    """
    before, message = PLANTED[bug]
    with pytest.raises(InvariantFailure, match=message):
        judge_access(_planted(target, before), _SECRET_WORLD, hostile_assets)


@pytest.mark.hardened
@pytest.mark.invariant("confinement")
def test_confinement_property_catches_a_passed_secret_link(
    target: Target, hostile_assets: HostileAssets
) -> None:
    """The confinement property fails on an evaluator whose file check passes a
    symlink to a secret that holds the expected text.

    Task 3 (file facts): checked even when nothing was opened, from the report.
    """

    def evaluate(run: Any, workspace: Any, receipts: Any, case: Any) -> Any:
        report = target.evaluate_run(run, workspace, receipts, case)
        checks = tuple(
            dataclasses.replace(check, passed=True, detail="content matches")
            if check.name.startswith("file:")
            else check
            for check in report.checks
        )
        return dataclasses.replace(report, checks=checks)

    names = types.MappingProxyType({**target.names, "evaluate_run": evaluate})
    planted = dataclasses.replace(target, names=names)
    with pytest.raises(InvariantFailure, match="a symlink out of the root"):
        judge_access(planted, _SECRET_WORLD, hostile_assets)
