"""How the judge's own processes look to every other process on the machine.

Without a pid namespace (``--isolation user``) learner code shares the
machine's ``/proc``, and any uid may read another process's command line
(``/proc/PID/cmdline``) and name (``comm``: in ``status``, ``stat``,
``sched`` and each thread's ``comm``). The command's (``day7-verify ...``)
and its child's (``python ... day7_child.py``) would name the judge to an
evaluator that looks around before it answers (issue 37). So, before any
learner code starts, each of them takes a plain interpreter's name
(`disguise`): every thread's ``comm``, and the area of memory the kernel reads
``cmdline`` from (the original argv, which Python copied at start-up and
never reads again). Standard library only: the child runs it from its bundle.
"""

from __future__ import annotations

import ctypes
import os
import sys

__all__ = ["TITLE", "disguise"]

#: What a learner's own run of their package is called in ``ps``.
TITLE = "python3"

# /proc/PID/stat after the name's closing parenthesis: field 3 (state) first;
# fields 48 and 49 are where the argv area starts and ends (Linux 3.5).
_ARG_START = 48 - 3
_ARG_END = 49 - 3


def _argv_area() -> tuple[int, int]:
    with open("/proc/self/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    return int(fields[_ARG_START]), int(fields[_ARG_END])


def _cmdline() -> bytes:
    with open("/proc/self/cmdline", "rb") as cmdline:
        return cmdline.read()


def disguise(title: str = TITLE) -> str | None:
    """Show `title` as this process's command line and every thread's name to
    other processes; None when done, else one line why not (nothing changed).

    The argv area is written only after its contents were seen to be what
    ``/proc/self/cmdline`` shows, so a wrong address is never written to.
    """
    if not sys.platform.startswith("linux"):
        return f"{sys.platform} has no /proc to hide names from"
    data = title.encode("ascii")
    try:
        start, end = _argv_area()
        before = _cmdline()
    except (OSError, ValueError, IndexError) as error:
        return f"this process's argv area cannot be found: {error}"
    size = end - start
    if start <= 0 or size < len(data) + 2:
        return f"this process's argv area is {size} bytes at {start:#x}"
    if ctypes.string_at(start, size) != before[:size]:
        return "this process's argv area does not hold its command line"
    ctypes.memset(start, 0, size)
    ctypes.memmove(start, data, len(data))
    # The area's last byte not NUL: the kernel then shows it as a title set
    # by the process itself, up to its first NUL, so no run of NULs follows.
    ctypes.memset(end - 1, ord(" "), 1)
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm", "w", encoding="ascii") as comm:
                comm.write(title[:15])
        except OSError:  # a thread that ended meanwhile
            pass
    shown = _cmdline().split(b"\0")[0]
    if shown != data:
        return f"the command line still shows {shown[:80]!r}"
    return None
