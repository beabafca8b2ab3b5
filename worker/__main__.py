"""Start the worker: `python -I -S -B <this folder>`.

Run as a folder, Python puts only this folder on the path (isolated mode
drops the rest), so the package is loaded from where it is, by location,
and nothing beside it (the judge, the worlds) is importable from here.
"""

import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if sys.path and os.path.abspath(sys.path[0]) == _HERE:
    del sys.path[0]
_SPEC = importlib.util.spec_from_file_location(
    "worker", os.path.join(_HERE, "__init__.py"), submodule_search_locations=[_HERE]
)
assert _SPEC is not None and _SPEC.loader is not None
_PACKAGE = importlib.util.module_from_spec(_SPEC)
sys.modules["worker"] = _PACKAGE
_SPEC.loader.exec_module(_PACKAGE)

from worker.serve import main  # noqa: E402

main()
