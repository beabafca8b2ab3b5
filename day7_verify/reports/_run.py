"""How a lesson's snippet is run: the line a report gives beside it.

A plain test (judge/snippets.py, judge/compared.py) says on its first lines
where to save it and the `python FILE` that runs it; a world no test file
builds says the `day7-verify FOLDER --seed N` that draws it again; any
other snippet imports the judge, so it runs as a shell command naming
day7-verify's own Python and where the judge is (`runnable`).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import sys

from judge.lessons import PLAIN_MARK, REDRAW_MARK

__all__ = ["heredoc_end", "run_line", "runnable"]

#: A plain test's or a redraw note's own run line, as its comment gives it.
_SAID = re.compile(
    r"^#     (?P<line>(?:python|day7-verify) \S.*?)(?: {8}\(or: .*)?$", re.M
)


def run_line(snippet: str) -> str:
    """The command that runs `snippet`: one line for a plain test (run from
    the checkout's root, where it says to save it) or a redraw note, the
    shell command of `runnable` for any other; "" for no snippet."""
    if not snippet.strip():
        return ""
    if snippet.startswith((PLAIN_MARK, REDRAW_MARK)):
        said = _SAID.search(snippet)
        return said["line"].rstrip() if said else ""
    return runnable(snippet)


def runnable(snippet: str, python: str | None = None) -> str:
    """`snippet` as a shell command that runs it, pasted anywhere.

    The snippet imports `judge` (and `strategies`), which only day7-verify's
    own Python has (or, run from a checkout, only its directory): so the
    command names both that Python and, in PYTHONPATH, where they are, rather than
    leaving the learner a ModuleNotFoundError. The snippet names the folder
    by its absolute path, so no `cd` is needed. Every word is quoted for the
    shell, and the here-document ends at a word no line of the snippet is.
    """
    python = python or sys.executable
    judge = importlib.util.find_spec("judge")
    where = (
        os.path.dirname(os.path.dirname(judge.origin))
        if judge is not None and judge.origin
        else os.getcwd()
    )
    end = heredoc_end(snippet)
    return "\n".join(
        [
            f"PYTHONPATH={shlex.quote(where)} {shlex.quote(python)} - <<'{end}'",
            snippet.rstrip(),
            end,
        ]
    )


def heredoc_end(text: str) -> str:
    """A word for a here-document to end at that is no line of `text`."""
    lines = set(text.split("\n")) | set(text.splitlines())
    end, number = "EOF", 0
    while end in lines:
        number += 1
        end = f"EOF_{number}"
    return end
