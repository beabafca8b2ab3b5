"""Start the worker, `python -I -S -B <this folder>`: the folder Python puts on
the path is taken off it and made the `worker` package, so nothing beside it
(the judge) is importable, nor are its modules by their bare names."""

import importlib
import sys
import types

sys.modules["worker"] = package = types.ModuleType("worker")
package.__path__ = [sys.path.pop(0)]  # run as a folder, it is the path's first
importlib.import_module("worker.serve").main()
