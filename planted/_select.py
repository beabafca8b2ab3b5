"""A pytest plugin that keeps only the tests of some invariants.

``python -m planted`` loads it with ``-p planted._select`` and
``--planted-invariants a,b`` so that one bug is judged only by the invariants
the catalogue expects to catch it; ``--full`` runs every invariant instead.
Tests are grouped as the suite's conftest groups them: by their
``@pytest.mark.invariant("name")`` marker.

``--planted-no-shrink`` turns off Hypothesis's shrink and explain phases on
top of whatever profile was chosen. Whether a bug is caught is decided when
the first failing example is found; shrinking only makes that example small,
and on a 2-core machine it was most of the matrix's time.
"""

from __future__ import annotations

import pytest
from hypothesis import Phase, settings


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--planted-invariants",
        metavar="NAMES",
        default=None,
        help="comma-separated invariant names; deselect every other test",
    )
    parser.addoption(
        "--planted-no-shrink",
        action="store_true",
        help="report the first failing example without shrinking it",
    )


@pytest.hookimpl(trylast=True)  # after Hypothesis's plugin has loaded the profile
def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("--planted-no-shrink"):
        return
    chosen = settings.get_current_profile_name()
    unshrunk = f"{chosen}-no-shrink"
    phases = [phase for phase in Phase if phase not in (Phase.shrink, Phase.explain)]
    settings.register_profile(
        unshrunk, parent=settings.get_profile(chosen), phases=phases
    )
    settings.load_profile(unshrunk)


def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    option = config.getoption("--planted-invariants")
    if not option:
        return
    wanted = {name.strip() for name in option.split(",") if name.strip()}
    kept, dropped = [], []
    for item in items:
        marker = item.get_closest_marker("invariant")
        name = str(marker.args[0]) if marker is not None and marker.args else None
        (kept if name in wanted else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
