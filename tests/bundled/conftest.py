"""The bundled evaluator's own tests share the suite's written worlds."""

from __future__ import annotations

import sys
from pathlib import Path

# The written worlds sit beside the invariants that run them
# (tests/invariants/_written_worlds.py), which pytest puts on sys.path only
# once it collects an invariant, and not at all when tests/bundled runs alone.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "invariants"))
