"""The worker as a learner's own script: one file, nothing in it naming us.

Learner code runs in the worker and can look around it: its argv, its
modules and their files, its frames, the source behind them. An evaluator
that answers right only when it sees the judge must see nothing of the
judge (issue 37). So the worker (worker/audit.py and worker/serve.py,
standard library only) is started as one script, `main.py` in a folder of
no telling name: the two modules joined, their docstrings and comments
left out (`worker_source`), run as `__main__` by the base interpreter
(`INTERPRETER`) with -I -S -B, so no site-packages, ours included, is on its
path, and a venv that holds the judge need not be readable by the learner's
uid at all.
"""

from __future__ import annotations

import ast
import atexit
import functools
import shutil
import sys
import tempfile
from pathlib import Path

__all__ = ["INTERPRETER", "SCRIPT", "own_script", "worker_source", "write_script"]

WORKER = Path(__file__).resolve().parent.parent / "worker"
#: The script's name: what a learner's own entry point is often called.
SCRIPT = "main.py"
#: The interpreter a worker runs on: under a venv, the Python it was made
#: from (the worker needs only the standard library; the venv's packages,
#: the judge's evaluator among them, stay out of its reach and its path).
INTERPRETER = getattr(sys, "_base_executable", "") or sys.executable


def _without_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list) or not body:
            continue
        first = body[0]
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]


@functools.cache
def worker_source() -> str:
    """The worker package as one script's source, ending by starting it."""
    body: list[ast.stmt] = []
    for name in ("audit.py", "serve.py"):
        tree = ast.parse((WORKER / name).read_text(encoding="utf-8"))
        _without_docstrings(tree)
        body += [
            node
            for node in tree.body
            if not (isinstance(node, ast.ImportFrom) and node.module == "worker.audit")
        ]
    body += ast.parse("main()").body
    return ast.unparse(ast.Module(body=body, type_ignores=[])) + "\n"


def write_script(folder: Path) -> Path:
    """The worker's script, written into `folder`."""
    path = folder / SCRIPT
    path.write_text(worker_source(), encoding="utf-8")
    return path


@functools.cache
def own_script() -> Path:
    """The script of a worker started without the command (the pytest route),
    in a fresh temporary folder, removed at exit."""
    folder = Path(tempfile.mkdtemp())
    atexit.register(shutil.rmtree, folder, True)
    return write_script(folder)
