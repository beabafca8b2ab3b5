"""A world's way to the target's calls: one pure step in strategies, then the builder.

`strategies.evidence.evidence(world, tree)` works out everything the builder
makes of a world (files, receipts, log damage, run, case, a real run's plan)
as plain data; judge/build.py (and judge/layout.py, which writes the files)
consume only that. So the way from a drawn world to the target reads in two
modules, and a change to a fact group's module cannot quietly change what
the builder does behind the evidence: these tests hold the builder to it.
"""

from __future__ import annotations

import ast
import os
import tempfile
from pathlib import Path

import pytest

from strategies.draw import EXAMPLE_WORLDS
from strategies.evidence import evidence
from strategies.plans import WRITTEN_WORLDS

JUDGE = Path(__file__).resolve().parents[2] / "judge"

#: The judge's modules that make a world real, and what they may take from
#: strategies: the evidence, nothing else.
BUILDERS = ("build.py", "layout.py")


def strategy_imports(path: Path) -> set[str]:
    """Every strategies module `path` imports, at any depth of its code."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found |= {n for n in names if n.split(".")[0] == "strategies"}
    return found


@pytest.mark.parametrize("module", BUILDERS)
def test_the_builder_takes_only_the_evidence_from_strategies(module: str) -> None:
    """The builder imports from strategies only `strategies.evidence`."""
    assert strategy_imports(JUDGE / module) == {"strategies.evidence"}


def test_evidence_is_pure() -> None:
    """Working a world out touches no disk and gives the same evidence twice."""
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "w"
        for world in (*EXAMPLE_WORLDS.values(), *WRITTEN_WORLDS):
            made = evidence(world, tree)
            assert made == evidence(world, tree)
            assert made.root.startswith("ws")
            assert os.listdir(scratch) == []
