"""The judge's processes, disguised, show other processes only a plain name.

Under ``--isolation user`` learner code reads other processes' /proc
entries; the command and its child take the name ``python3`` before any
learner code runs (judge/title.py, issue 37). Here a process started with a
command line full of telling words, and a thread already running, is
disguised; what another process then reads of it names none of them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge.title import TITLE

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="/proc is Linux's"
)

ROOT = Path(__file__).resolve().parents[2]

#: The disguised process: a thread started first (its name taken from the
#: process's), then disguise(), then it says so and waits to be looked at.
_CHILD = """\
import sys, threading
sys.path.insert(0, {root!r})
threading.Thread(target=sys.stdin.read, daemon=True).start()
from judge.title import disguise
print(disguise() or "done", flush=True)
sys.stdin.readline()
"""

WORDS = ("day7", "verify", "judge", "cohort", "--seed")


def _read(path: str) -> str:
    with open(path, "rb") as f:
        return f.read().replace(b"\0", b" ").decode("utf-8", "replace")


def test_a_disguised_process_shows_only_a_plain_name():
    """Once disguised, a process's command line, name and every thread's name,
    as another process reads them, are ``python3`` and name nothing of the
    judge's command line (issue 37: a judged call looks like real use)."""
    argv = [
        sys.executable,
        "-c",
        _CHILD.format(root=str(ROOT)),
        "day7-verify",
        "--cohort",
        "/srv/judge/class",
        "--seed",
        "918273645",
    ]
    with subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as child:
        try:
            said = child.stdout.readline().strip()
            pid = child.pid
            raw = Path(f"/proc/{pid}/cmdline").read_bytes()
            shown = {
                "cmdline": _read(f"/proc/{pid}/cmdline"),
                "comm": _read(f"/proc/{pid}/comm"),
                "stat": _read(f"/proc/{pid}/stat"),
                "status": _read(f"/proc/{pid}/status"),
            }
            tasks = sorted(os.listdir(f"/proc/{pid}/task"))
            for task in tasks:
                shown[f"task {task}"] = _read(f"/proc/{pid}/task/{task}/comm")
        finally:
            child.communicate("\n", timeout=30)
    assert said == "done", said
    assert len(tasks) == 2, tasks  # the thread that ran before was renamed too
    # Exactly the title: no run of NULs where the old argv was (ps would
    # show it as trailing blanks).
    assert raw in (TITLE.encode(), TITLE.encode() + b"\0"), raw
    for where, text in shown.items():
        for word in WORDS:
            assert word not in text, f"{where} still shows {word!r}: {text[:300]!r}"
    assert all(shown[f"task {task}"].strip() == TITLE for task in tasks), shown
