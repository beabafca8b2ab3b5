"""Start the worker: `python -I -S -B <this folder>`.

Run as a folder, isolated, Python puts only this folder on the path: the
package is loaded by location, and nothing beside it (the judge) is importable.
"""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0]) == HERE:
    del sys.path[0]
SPEC = importlib.util.spec_from_file_location(
    "worker", os.path.join(HERE, "__init__.py"), submodule_search_locations=[HERE]
)
sys.modules["worker"] = importlib.util.module_from_spec(SPEC)  # type: ignore[arg-type]
importlib.import_module("worker.serve").main()
