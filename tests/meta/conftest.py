"""Meta-tests judge the suite itself; the bundled evaluator is the known-good target."""

from __future__ import annotations

import sys
from pathlib import Path

# planting.py sits beside the tests; pytest's rootdir-relative imports do not
# reach it from every way the suite is run.
sys.path.insert(0, str(Path(__file__).resolve().parent))
