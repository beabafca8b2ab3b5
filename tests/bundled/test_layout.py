"""The layout shows the trust boundary: packages by role, imports one way, no circle.

`strategies/` draws worlds and their truth and imports nothing of the judge,
the worker or the command; the judge imports nothing of the command; the
worker imports nothing of ours (tests/bundled/test_worker_package.py). Read
from the code's own imports (every `import` anywhere in a module, a lazy one
inside a function too), so the picture in docs/design.md cannot drift.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("strategies", "judge", "worker", "day7_verify")

#: What each package may import of the others.
ALLOWED = {
    "strategies": set(),
    "judge": {"strategies", "worker"},
    "worker": set(),
    "day7_verify": {"strategies", "judge", "worker"},
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The modules of ours `path` imports, as dotted names, at any depth."""
    found: set[str] = set()
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[: len(package.split(".")) - node.level + 1]]
                    + ([base] if base else [])
                )
            # `from judge import safefs` imports the module judge.safefs
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        else:
            continue
        found |= {name for name in names if name.split(".")[0] in PACKAGES}
    return found


def graph() -> dict[str, set[str]]:
    """Every module of the four packages and the modules of ours it imports."""
    modules = {
        _module_name(path): path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
    }
    return {
        name: {
            target
            for target in imports_of(path)
            if target in modules
            and target != name
            # a package's __init__ is where its lazy names live, not a step
            and target not in PACKAGES
        }
        for name, path in modules.items()
    }


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_imports_only_what_its_role_allows(package: str) -> None:
    """strategies/ nothing of ours, judge/ not the command, worker/ nothing."""
    for path in sorted((ROOT / package).rglob("*.py")):
        crossing = {
            name
            for name in imports_of(path)
            if name.split(".")[0] not in {package, *ALLOWED[package]}
        }
        assert not crossing, f"{path.relative_to(ROOT)} imports {sorted(crossing)}"


def find_circle(edges: dict[str, set[str]]) -> list[str] | None:
    """One circle of imports in `edges`, as the modules on it, or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for after in sorted(edges.get(node, ())):
            if state.get(after) == 1:
                return path[path.index(after) :] + [after]
            if after not in state and (circle := visit(after)):
                return circle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (circle := visit(node)):
            return circle
    return None


def test_no_module_imports_itself_back() -> None:
    """No circle of imports among the modules of the four packages."""
    circle = find_circle(graph())
    assert circle is None, "an import circle: " + " -> ".join(circle or ())


def test_a_circle_is_seen() -> None:
    """The circle finder finds one when there is one (it can fail)."""
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b"}, "b": set()}) is None
