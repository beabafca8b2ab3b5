"""docs/invariants.md, the tests and the summary's order stay in step.

Every invariant name a test under tests/invariants carries
(`@pytest.mark.invariant("name")`) has a `## name` section in
docs/invariants.md, and every section has a test; a section is headed
"(hardened)" exactly when every test of its invariant is; and the sections
come in the order the summary lists the invariants (judge.ordering).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from judge.ordering import HARDENED_ONLY, INVARIANT_ORDER

ROOT = Path(__file__).resolve().parents[2]
INVARIANTS = ROOT / "tests" / "invariants"
DOCS = ROOT / "docs" / "invariants.md"

_SECTION = re.compile(r"^## (?P<name>\S+)(?P<hardened> \(hardened\))?\s*$", re.M)


def _is_mark(node: ast.expr, name: str) -> bool:
    """Whether `node` is `pytest.mark.<name>` (or `mark.<name>`)."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == name
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "mark"
    )


def marked_invariants(sources: Mapping[str, str]) -> dict[str, list[bool]]:
    """Invariant name -> for each test carrying it, whether it is hardened."""
    found: dict[str, list[bool]] = {}
    for source in sources.values():
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            names = [
                decorator.args[0].value
                for decorator in node.decorator_list
                if isinstance(decorator, ast.Call)
                and _is_mark(decorator.func, "invariant")
                and decorator.args
                and isinstance(decorator.args[0], ast.Constant)
                and isinstance(decorator.args[0].value, str)
            ]
            hardened = any(_is_mark(d, "hardened") for d in node.decorator_list)
            for name in names:
                found.setdefault(name, []).append(hardened)
    return found


def documented(text: str) -> list[tuple[str, bool]]:
    """The `## name` sections in order, and whether each says "(hardened)"."""
    return [
        (match["name"], match["hardened"] is not None)
        for match in _SECTION.finditer(text)
    ]


def problems(
    tests: Mapping[str, list[bool]],
    sections: list[tuple[str, bool]],
    order: Iterable[str],
) -> list[str]:
    """Every way the docs and the tests disagree, one line each."""
    found = []
    headed = dict(sections)
    for name in sorted(set(tests) - set(headed)):
        found.append(f"invariant {name!r} has tests but no '## {name}' section")
    for name in sorted(set(headed) - set(tests)):
        found.append(f"section '## {name}' names no invariant any test carries")
    for name in sorted(set(tests) & set(headed)):
        hardened = all(tests[name])
        if headed[name] != hardened:
            should = "be headed" if hardened else "not be headed"
            found.append(f"section '## {name}' should {should} '(hardened)'")
    listed = [name for name in order if name in headed]
    in_docs = [name for name, _ in sections if name in set(listed)]
    if in_docs != listed:
        found.append(
            "sections are not in the summary's order (judge.ordering):"
            f" {in_docs} instead of {listed}"
        )
    for name in sorted(set(tests) - set(order)):
        found.append(f"invariant {name!r} is not in judge.ordering")
    return found


def test_every_invariant_has_a_section_and_every_section_a_test() -> None:
    """docs/invariants.md and tests/invariants name the same invariants, mark
    the same ones hardened, in the summary's order."""
    sources = {
        path.name: path.read_text(encoding="utf-8")
        for path in sorted(INVARIANTS.glob("test_*.py"))
    }
    tests = marked_invariants(sources)
    assert len(tests) >= 20  # the parser still finds the markers
    sections = documented(DOCS.read_text(encoding="utf-8"))
    assert problems(tests, sections, INVARIANT_ORDER) == []


def test_the_hardened_only_invariants_are_those_whose_every_test_is_marked() -> None:
    """The command lists a level's invariants without a run: its list of the
    hardened-only ones must be what the markers say."""
    sources = {
        path.name: path.read_text(encoding="utf-8")
        for path in sorted(INVARIANTS.glob("test_*.py"))
    }
    tests = marked_invariants(sources)
    assert {name for name, marks in tests.items() if all(marks)} == HARDENED_ONLY


def test_the_check_names_each_disagreement() -> None:
    """A missing section, a stray one, a wrong "(hardened)" and a wrong order
    are each named."""
    source = """
import pytest

@pytest.mark.invariant("alpha")
def test_a(): ...

@pytest.mark.hardened
@pytest.mark.invariant("beta")
def test_b(): ...

@pytest.mark.invariant("gamma")
@pytest.mark.parametrize("x", [1])
def test_c(x): ...
"""
    tests = marked_invariants({"test_x.py": source})
    assert tests == {"alpha": [False], "beta": [True], "gamma": [False]}
    docs = "## gamma\n\ntext\n\n## alpha (hardened)\n\n## delta\n"
    assert problems(tests, documented(docs), ("alpha", "beta", "gamma")) == [
        "invariant 'beta' has tests but no '## beta' section",
        "section '## delta' names no invariant any test carries",
        "section '## alpha' should not be headed '(hardened)'",
        "sections are not in the summary's order (judge.ordering):"
        " ['gamma', 'alpha'] instead of ['alpha', 'gamma']",
    ]
    assert problems(tests, documented(docs), ("alpha", "gamma")) == [
        "invariant 'beta' has tests but no '## beta' section",
        "section '## delta' names no invariant any test carries",
        "section '## alpha' should not be headed '(hardened)'",
        "sections are not in the summary's order (judge.ordering):"
        " ['gamma', 'alpha'] instead of ['alpha', 'gamma']",
        "invariant 'beta' is not in judge.ordering",
    ]
