"""A world's way to the target's calls: one pure step, then the builder.

`judge.evidence.evidence(world, tree)` works out everything the builder
makes of a world (files, receipts, log damage, run, case, a real run's plan)
as plain data; the builder (judge/build.py, and the modules its way calls:
layout.py, store.py, steps.py, play.py, built.py) consumes only that. So the
way from a drawn world to the target reads in `build_in`, and a change to a
fact group's module cannot quietly change what the builder does behind the
evidence: these tests hold the builder to it.
"""

from __future__ import annotations

import ast
import errno
import os
import stat
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _written_worlds import EXAMPLE_WORLDS, TRAP_WORLDS

import judge.build
import judge.evidence
import judge.nodes
from judge import safefs
from judge.build import materialise
from judge.evidence import evidence
from judge.lessons import JudgeFault
from judge.target import load_target
from strategies.plans import WRITTEN_WORLDS

JUDGE = Path(__file__).resolve().parents[2] / "judge"

#: The judge's modules that make a world real: they take the world only as
#: the evidence (judge/evidence.py), nothing of strategies/ itself.
BUILDERS = ("build.py", "built.py", "layout.py", "play.py", "steps.py", "store.py")


def imports(path: Path) -> set[str]:
    """Every module of ours (strategies, judge) `path` imports, at any depth."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found |= {n for n in names if n.split(".")[0] in ("strategies", "judge")}
    return found


@pytest.mark.parametrize("module", BUILDERS)
def test_the_builder_takes_only_the_evidence_of_a_world(module: str) -> None:
    """The builder imports nothing of strategies/: a world reaches it only
    as `judge.evidence`, so it never goes back to a fact group's module."""
    found = imports(JUDGE / module)
    assert not {n for n in found if n.startswith("strategies")}, found
    assert "judge.evidence" in found


#: The steps of a world's way to the target, in the order build_in takes them.
WAY = ("evidence", "lay_out", "policy_step", "add_store", "finish_log", "play_plan")


def _callers(name: str) -> set[tuple[str, str]]:
    """(module, function) of every judge function that calls `name`."""
    found: set[tuple[str, str]] = set()
    for path in sorted(JUDGE.glob("*.py")):
        module = ast.parse(path.read_text(encoding="utf-8"))
        functions = [
            node
            for top in module.body
            for node in ([top] if not isinstance(top, ast.ClassDef) else top.body)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        for function in functions:
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and (
                    getattr(node.func, "id", None) == name
                    or getattr(node.func, "attr", None) == name
                ):
                    found.add((path.name, function.name))
    return found


@pytest.mark.parametrize("step", WAY)
def test_the_way_of_a_world_reads_whole_in_build_in(step: str) -> None:
    """Each step of a world's way (its evidence, the files, the policy and
    the store, the log made hostile, a real run played) is taken in
    judge/build.py's `build_in` and nowhere else in the judge, so a
    newcomer reads the whole way in one function, never a step hidden in
    another. The one other reader of a world's evidence is judge/snippets.py,
    which writes the same evidence out as a learner's plain test (source
    text, never a tree or a call into the target)."""
    writers = {
        ("snippets.py", f)
        for f in (
            "lesson_test",
            "spot_parts",
            "why_not_plain",
            "build_lines",
            "case_of",
        )
    }
    allowed = writers if step == "evidence" else set()
    assert _callers(step) - allowed == {("build.py", "build_in")}


def test_evidence_is_pure() -> None:
    """Working a world out touches no disk and gives the same evidence twice."""
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "w"
        for world in (*EXAMPLE_WORLDS.values(), *TRAP_WORLDS.values(), *WRITTEN_WORLDS):
            made = evidence(world, tree)
            assert made == evidence(world, tree)
            assert made.root.startswith("ws")
            assert os.listdir(scratch) == []


def test_evidence_asks_strategies_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Working a world out reads what the world worked out when it was made
    (`World.blueprint`) and calls no function of strategies/: with every one
    that judge/evidence.py and judge/nodes.py import made to raise, each
    world's evidence is what it was, so the judge never goes back to a fact
    group's module on a world's way."""
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "w"
        worlds = (*EXAMPLE_WORLDS.values(), *TRAP_WORLDS.values(), *WRITTEN_WORLDS)
        before = [evidence(world, tree) for world in worlds]
        asked: list[str] = []
        for module in (judge.evidence, judge.nodes):
            for name, value in vars(module).items():
                home = getattr(value, "__module__", "") or ""
                if isinstance(value, types.FunctionType) and home.startswith(
                    "strategies"
                ):
                    monkeypatch.setattr(module, name, _refusing(name, asked))
        after = [evidence(world, tree) for world in worlds]
        assert asked == [], f"the evidence called strategies' {sorted(set(asked))}"
        assert after == before


def _refusing(name: str, asked: list[str]) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        asked.append(name)
        raise AssertionError(f"the evidence called strategies' {name}")

    return refuse


_KINDS = {
    "file": stat.S_ISREG,
    "sparse": stat.S_ISREG,
    "folder": stat.S_ISDIR,
    "link": stat.S_ISLNK,
    "fifo": stat.S_ISFIFO,
    "socket": lambda mode: stat.S_ISSOCK(mode) or stat.S_ISFIFO(mode),
    "device": stat.S_ISCHR,
}


def test_the_builder_lays_out_exactly_the_evidence() -> None:
    """Every node of a world's evidence is on disk as it says (kind, bytes,
    link, size), and the built world's secrets are its nodes'."""
    target = load_target()
    for world in (*EXAMPLE_WORLDS.values(), *TRAP_WORLDS.values()):
        with materialise(world, target) as built:
            made = built.evidence
            assert made == evidence(world, built.tree)
            for node in made.files:
                # From the folder's descriptor: some paths are past PATH_MAX.
                with safefs.opened(built.tree, node.parts[:-1]) as folder:
                    name = node.parts[-1]
                    info = os.lstat(name, dir_fd=folder)
                    assert _KINDS[node.what](info.st_mode), (node, oct(info.st_mode))
                    if node.what == "file":
                        assert safefs.read_regular(folder, name) == node.data
                    elif node.what == "link":
                        assert os.readlink(name, dir_fd=folder) == node.to
                    elif node.what == "sparse":
                        assert info.st_size == node.size
            secrets = [n for n in made.files if n.secret]
            assert built.secrets == [built.tree.joinpath(*n.parts) for n in secrets]


@pytest.mark.parametrize(
    ("raised", "fault"),
    [
        (OSError(errno.EINVAL, "Invalid argument"), True),
        (ValueError("unknown node 'cloud'"), True),
        (OSError(errno.ENOSPC, "No space left on device"), False),
    ],
    ids=["einval", "judge-bug", "scratch-full"],
)
def test_a_world_the_judge_cannot_lay_out_is_its_own_fault(
    monkeypatch: pytest.MonkeyPatch, raised: Exception, fault: bool
) -> None:
    """Laying a world out happens before any code of the folder sees it: what
    goes wrong there is a JudgeFault (no verdict, never the folder's FAIL),
    except a full scratch, whose space the folder's code shares."""

    def lay_out(*_: Any) -> Any:
        raise raised

    monkeypatch.setattr(judge.build, "lay_out", lay_out)
    world = EXAMPLE_WORLDS["everything at once"]
    with pytest.raises(JudgeFault if fault else OSError) as caught:
        with materialise(world, load_target()):
            pass
    if fault:
        assert caught.value.what == "lay out this world's files"
        assert caught.value.__cause__ is raised
    else:
        assert caught.value is raised
