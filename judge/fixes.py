"""Where a learner makes a fix: the course module and the name in it.

Every lesson ends its hint with the name to change and the file it lives in
("change evaluate_run in evaluation.py"), so a learner never has to guess
which of the seven modules a failure is about. The phrase is made here, from
the name a lesson blames, and nowhere else.

Invariants: every name of the Day 7 surface has exactly one home (a module of
a course agent folder); `change_for` names a file only for a call it can
place, and otherwise says nothing (an unplaced call gets no claim, never a
guessed one); a wrong verdict names the learner's function that built the
check when the judge saw it built (`maker_place`), else evaluate_run.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["HOME", "change_for", "changing", "hint_for", "maker_place", "placed"]

#: The module of a course agent folder that defines each public name.
HOME: dict[str, str] = {
    "AgentError": "protocol.py",
    "FinalAction": "protocol.py",
    "ToolAction": "protocol.py",
    "AgentEvent": "loop.py",
    "AgentRun": "loop.py",
    "AgentLimits": "loop.py",
    "run_agent": "loop.py",
    "ToolPolicy": "workspace.py",
    "Workspace": "workspace.py",
    "EffectReceipt": "receipts.py",
    "ReceiptStore": "receipts.py",
    "FileExpectation": "evaluation.py",
    "ResultExpectation": "evaluation.py",
    "ReceiptExpectation": "evaluation.py",
    "EvaluationCase": "evaluation.py",
    "EvaluationCheck": "evaluation.py",
    "EvaluationReport": "evaluation.py",
    "evaluate_run": "evaluation.py",
}

# How the suite spells an object in a call it describes ("report.render()",
# "workspace.execute(edit)"), and the class that object is.
_OBJECTS = {
    "report": "EvaluationReport",
    "workspace": "Workspace",
    "receipts": "ReceiptStore",
    "store": "ReceiptStore",
    # dataclasses.replace(run, ...) builds an AgentRun through its fields.
    "dataclasses.replace": "AgentRun",
}

_CALLED = re.compile(r"[A-Za-z_][A-Za-z_0-9.]*")


def change_for(what: str) -> str:
    """The name to change for a call described as `what`, or "" if unplaced.

    "ReceiptStore(path).put(receipt)" and "ReceiptStore.put(receipt)" give
    "ReceiptStore.put"; "report.render()" gives "EvaluationReport.render";
    "evaluate_run(...)" gives "evaluate_run".
    """
    parts = [m.group(0) for m in _CALLED.finditer(re.sub(r"\([^()]*\)", "", what))]
    if not parts:
        return ""
    dotted = parts[0]
    for spelled, owner in _OBJECTS.items():
        if dotted == spelled or dotted.startswith(spelled + "."):
            dotted = owner + dotted[len(spelled) :]
            break
    if dotted.split(".", 1)[0] not in HOME:
        return ""
    return dotted


def changing(name: str, home: str = "") -> str:
    """ "change <name> in <file>"; `home` overrides the file (a frame's own).

    Raises ValueError for a name with no home and no file given: a lesson
    that blames a name the course does not define is the suite's own bug.
    """
    file = home or HOME.get(name.split(".", 1)[0], "")
    if not file:
        raise ValueError(f"no course module defines {name!r}; give its file")
    return f"change {name} in {file}"


def placed(hint: str, name: str, home: str = "") -> str:
    """`hint`, ending with where to change it (`changing`); `name` "": `hint`."""
    if not name:
        return hint
    where = changing(name, home)
    return f"{hint}; {where}" if hint else where


#: The longest function name a hint repeats from the learner's code.
MAX_MAKER = 80
_FILE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\.py")


def maker_place(maker: Any) -> tuple[str, str]:
    """(function, file) of a check's maker as the learner's code showed it
    (judge.maker `built_by`: a function's name and its file, the learner's
    word), or ("evaluate_run", "") when it is not a plain place: the one
    function that makes every check. A function nested in another is its
    outermost (`evaluate_run.<locals>.<genexpr>`: evaluate_run); the file is
    a plain module name. Data only, bounded: it words a hint, never a verdict."""
    fallback = ("evaluate_run", "")
    if not (isinstance(maker, (list, tuple)) and len(maker) in (2, 3)):
        return fallback
    name, file = maker[0], maker[1]
    if not (isinstance(name, str) and isinstance(file, str)):
        return fallback
    name, base = name.split(".<locals>.", 1)[0], file.rsplit("/", 1)[-1]
    parts = name.split(".")
    if len(name) > MAX_MAKER or not _FILE.fullmatch(base):
        return fallback
    if not all(
        p.isascii() and p.isidentifier() and not p.startswith("__") for p in parts
    ):
        return fallback
    return (name, base)


def hint_for(
    check: Any, passed: object, level: str = "hardened", maker: Any = None
) -> str:
    """The lesson's hint for an observed row the expected `check` (the
    truth's `ExpectedCheck`) does not accept.

    The right verdict with the wrong words is a wording mistake: the usual
    mistake behind a wrong verdict (reload through a fresh store, catch the
    exception) would tell the learner to do what they did. Either way it ends
    naming the learner's function that built the check (`maker`, as
    judge.maker saw it: `maker_place`), or else evaluate_run, the one
    function that makes every check.
    """
    place = maker_place(maker)
    binding = check.binding(level)
    if passed is check.passed and check.prefix and binding is not None:
        words = f"the detail must start with the words {binding.rstrip()!r}"
        return placed(words, *place)
    return placed(check.hint, *place)
