"""Fixtures the hardened invariants share."""

from __future__ import annotations

import pytest

from strategies.hostile import HostileAssets, make_assets


@pytest.fixture(scope="session")
def hostile_assets(tmp_path_factory: pytest.TempPathFactory) -> HostileAssets:
    """The million-line and long-line logs, written once for the session."""
    return make_assets(tmp_path_factory.mktemp("hostile-assets"))
