"""Meta-tests judge the suite itself; the bundled evaluator is the known-good target."""

from __future__ import annotations

import sys
from pathlib import Path

# planting.py sits beside the tests, and the written worlds beside the
# invariants (tests/invariants/_written_worlds.py); pytest's rootdir-relative
# imports do not reach them from every way the suite is run.
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "invariants"))
