"""Which of the learner's functions built a check: seen, never guessed.

A wrong verdict's hint ends "change <function> in <file>" (judge.fixes).
evaluate_run makes every check, but the mistake is often in a helper of the
learner's (`_file_check`), and a hint naming evaluate_run sends the learner
to the wrong place (issue 36, item 5).

The worker has no room to watch every check being built (worker/ stays
under 500 lines, and a passing verdict must not slow down). So the judge
asks, only for a lesson being told, on its world built afresh: the
learner's EvaluationCheck is made, for those calls and in that worker,
through a callback of the judge's (the class's `__new__`). A first
evaluation notes the id of every object made under the check's name and
finds which of them the report holds at the check's place; a second raises
when that one is about to be made, inside the learner's code. That error's
frames, as the worker read them, name the learner's innermost function in
evaluate_run's module (judge.causes `escaped`, as for any error that
escapes): the one that built the check the report holds. The worker is then
stopped, so nothing of the probe outlives it; the next call starts afresh.

What it sees is what the learner's code did, and only words a hint: a
class with its own `__new__`, a report holding an object made otherwise,
an error the learner catches, a check built outside evaluate_run's module
or a probe that fails in any way gives no place, and the hint names
evaluate_run as before.
"""

from __future__ import annotations

import secrets
from typing import Any

from judge.causes import _where_of, escaped
from judge.limits import CALL_SECONDS
from judge.remote import bounded

__all__ = ["built_by"]

#: evaluate_run's module, where the frames are looked for.
_HOME = "evaluation.py"


def built_by(target: Any, world: Any, name: str, index: int) -> tuple[str, str] | None:
    """(function, file) of the learner's code that builds the check `name`
    the report holds at `index` when `target` evaluates `world`, or None
    when that is not seen (an in-process target, whose code is ours, is
    never probed)."""
    client = getattr(target, "client", None)
    check = getattr(target, "names", {}).get("EvaluationCheck")
    if client is None or check is None or "EvaluationCheck" in target.missing:
        return None
    from judge.build import materialise

    marker = f"stopped at {secrets.token_hex(8)}"
    made: list[int] = []  # the ids of the objects made under `name`, in order
    stop = [0]  # the one of them to refuse, counting from 1 (0: none)
    touched = [False]  # whether the learner's class may have been changed

    def call(fn: Any, *args: Any, method: str | None = None) -> Any:
        step = {"op": "call", "fn": fn, "args": client.encode(list(args))}
        return client.request({**step, "method": method} if method else step)

    def new(cls: Any, *args: Any, **kwargs: Any) -> Any:
        ours = (args[0] if args else kwargs.get("name")) == name
        if ours and len(made) + 1 == stop[0]:
            raise LookupError(marker)
        value = call({"$bi": "object"}, cls, method="__new__")
        if ours:
            made.append(call({"$bi": "id"}, value))
        return value

    try:
        with materialise(world, target) as built, bounded(CALL_SECONDS):
            if "__new__" in client.ask("probing", "getattr", check, "__dict__"):
                return None  # theirs: never replaced
            touched[0] = True
            client.ask("probing", "setattr", check, "__new__", new)
            args = (built.run, built.workspace, built.receipts, built.case)
            report = call({"$n": "evaluate_run"}, *args)
            checks = client.ask("probing", "getattr", report, "checks")
            held = call({"$bi": "id"}, checks[index])
            if held not in made:
                return None  # an object made otherwise (copied, say)
            stop[0], made[:] = made.index(held) + 1, []
            try:
                call({"$n": "evaluate_run"}, *args)
            except Exception as error:
                frame = escaped(_where_of(error), _HOME)
                if str(error) == marker and frame is not None:
                    return (frame[2], _HOME)
        return None
    except KeyboardInterrupt:
        raise
    except BaseException:  # a probe is a courtesy: it never ends a report
        return None
    finally:
        if touched[0]:
            client.stop()  # nothing of the probe outlives it
