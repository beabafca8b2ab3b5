"""Which of the four check groups a target's evaluator really makes: the score's probe.

An invariant such as read-only or determinism holds for free for checks an
evaluator never makes, so the score (docs/score.md) gives it credit only for
the groups (final, files, results, receipts) the evaluator is seen to judge.
Seen, not guessed: for each group a small written-out world with one fact of
that group and one of each other group, all true; then the same world with
that group's fact false. The group is made when the report has the group's
check, by its contract name, and it PASSes on the first world and FAILs on
the second: a check that always passes, always fails or is missing does no
work.

The worlds are judged through `strategies.verdicts.judged`, the route every
invariant takes, so they keep working when the build route changes. Each
fact is the plainest of its group (LF text, an ASCII path, a log inside the
root) and its falsehood the bluntest (the marker absent, a byte changed, the
receipt never stored), so a learner with one subtle bug is still seen to
make the check its bug spoils: the probe measures whether the work is done,
truth whether it is done right.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from strategies.files import FileFact
from strategies.finals import FinalFact
from strategies.lessons import CallAborted, InvariantFailure
from strategies.receipts import ReceiptFact
from strategies.results import ResultFact
from strategies.vocabulary import marker
from strategies.world import World, truth

__all__ = ["GROUPS", "PROBES", "Probe", "group_of", "probe_target"]

#: The check groups, in the contract's order.
GROUPS: tuple[str, ...] = ("final", "files", "results", "receipts")
# The contract names a group's checks `file:<path>`, `result:<tool>`,
# `receipt:<call id>` (the final check is `final`).
_PREFIXES = (("files", "file:"), ("results", "result:"), ("receipts", "receipt:"))


def group_of(check_name: str) -> str | None:
    """The group a check belongs to by its contract name; None for another name."""
    if check_name == "final":
        return "final"
    for group, prefix in _PREFIXES:
        if check_name.startswith(prefix):
            return group
    return None


#: One true fact of each group: a world whose every check passes.
_TRUE_WORLD = World(
    final=FinalFact("embedded", marker(0)),
    files=(FileFact(0, ("src", "app.py"), "exact", "answer = 2\n"),),
    results=(ResultFact("run_command", "embedded", marker(1), "edit_file"),),
    receipts=(
        ReceiptFact("call-1", "edit_file", "ok", ("src/app.py",), "match", marker(2)),
    ),
)

#: The same, but the run's one event is the tool call: no closing final
#: event after it, so a result check that reads only the last event, or the
#: first of its tool, is still seen to be made (its bug is truth's to show).
_LAST_EVENT_WORLD = replace(
    _TRUE_WORLD, final=FinalFact("completed_without_final_event", marker(0))
)


@dataclass(frozen=True)
class Probe:
    """One group's pair of worlds: every fact true, and its own fact false."""

    group: str
    true_world: World
    false_world: World

    def check_name(self) -> str:
        """The one check of this group both worlds must have (from the oracle)."""
        (name,) = [
            c.name for c in truth(self.true_world) if group_of(c.name) == self.group
        ]
        return name


#: The probes, one per group, in the contract's order.
PROBES: tuple[Probe, ...] = (
    Probe("final", _TRUE_WORLD, replace(_TRUE_WORLD, final=FinalFact("absent"))),
    Probe(
        "files",
        _TRUE_WORLD,
        replace(
            _TRUE_WORLD,
            files=(replace(_TRUE_WORLD.files[0], kind="wrong_byte"),),
        ),
    ),
    Probe(
        "results",
        _LAST_EVENT_WORLD,
        replace(
            _LAST_EVENT_WORLD,
            results=(replace(_TRUE_WORLD.results[0], kind="absent"),),
        ),
    ),
    Probe(
        "receipts",
        _TRUE_WORLD,
        replace(
            _TRUE_WORLD,
            receipts=(replace(_TRUE_WORLD.receipts[0], stored="absent"),),
        ),
    ),
)


Rows = tuple[tuple[str, bool, str], ...]
# The false world is tried only where the check passed on the true one.
_NOT_TRIED = "not tried"


def _rows_of(target: Any, world: World) -> Rows | str:
    """The target's report rows on `world`, or why there are none (the build
    or the evaluation broke: a lesson's topic and headline)."""
    from strategies.verdicts import judged

    try:
        return judged(target, world)
    except (InvariantFailure, CallAborted) as failure:
        return f"{failure.topic}: {' '.join(str(failure.headline).split())[:200]}"
    except Exception as error:  # a probe never fails the run: it says why
        return type(error).__name__


def _verdict(rows: Rows | str, name: str) -> bool | None | str:
    """The check `name`'s verdict: True, False, None (no such check), or why
    the report was not had."""
    if isinstance(rows, str):
        return rows
    for row_name, passed, _ in rows:
        if row_name == name:
            return bool(passed)
    return None


def _said(verdict: bool | None | str) -> str:
    if verdict is True:
        return "PASS"
    if verdict is False:
        return "FAIL"
    if verdict is None:
        return "no such check"
    if verdict == _NOT_TRIED:
        return verdict
    return f"not judged ({verdict})"


def probe_target(target: Any) -> dict[str, Any]:
    """For each group whether `target` makes its check, and what was seen.

    Six evaluations at most: each true world once (three probes share one),
    then each group's false world where its check passed on the true one.
    A hang ends the probe: the groups not yet probed are not made (a hung
    evaluator would cost seconds per world for nothing).
    """
    groups: dict[str, Any] = {}
    shared: dict[World, Rows | str] = {}
    stopped = ""
    for probe in PROBES:
        name = probe.check_name()
        if stopped:
            groups[probe.group] = {"check": name, "made": False, "seen": stopped}
            continue
        if probe.true_world not in shared:
            shared[probe.true_world] = _rows_of(target, probe.true_world)
        when_true = _verdict(shared[probe.true_world], name)
        when_false: bool | None | str = _NOT_TRIED
        if when_true is True:
            when_false = _verdict(_rows_of(target, probe.false_world), name)
        groups[probe.group] = {
            "check": name,
            "made": when_true is True and when_false is False,
            "seen": f"{_said(when_true)} with the fact true,"
            f" {_said(when_false)} with it false",
        }
        if any(str(v).startswith("hang") for v in (when_true, when_false)):
            stopped = "not probed: an earlier probe hung"
    return {"groups": groups, "made": [g for g in GROUPS if groups[g]["made"]]}
