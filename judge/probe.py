"""Which of the four check groups a target's evaluator really makes: the score's probe.

An invariant such as read-only or determinism holds for free for checks an
evaluator never makes, so the score (docs/score.md) gives it credit only for
the groups (final, files, results, receipts) the evaluator is seen to judge.
Seen, not guessed: small worlds with one fact of every group, all true, and
for each group the same world with that group's fact false. The group is
made when, for some such pair, the report has the group's check, by its
contract name, and it PASSes on the true world and FAILs on the false one:
its verdict follows the group's fact. A check that always passes, always
fails or is missing does no work.

The worlds are drawn from the run's seed (`probes`), by the properties' own
strategy (`strategies.draw.one_of_each`): their paths, texts, markers,
tools, call ids, exit states, stores and event numbering come from the space
every property draws from, so nothing in them (a path's shape, say: issue
37) tells them apart from a property's world. So they are new in every run,
as the properties' examples are (issue 26: fixed worlds could be recognised
and answered as the reference would, by an evaluator that judges nothing
else), and the same given the seed, so a verdict is reproduced with its seed.

Made, not right (issue 25): three shapes of true world are tried, each only
where the ones before did not show the check made:

- `plain`: every fact the plainest of its group (text among other words, a
  closing final event after the tool call);
- `last-event`: the run's one event is the tool call, no final event after
  it, so a result check that reads only the last event is still seen;
- `exact`: every substring is its whole text (the final, the tool result,
  the receipt's result), so a check that compares with `==` where the
  contract says `in` is still seen.

Each falsehood is the bluntest of its group (the marker absent, a byte
changed, the receipt never stored), so a learner with one subtle bug is
still seen to make the check its bug spoils: the probe measures whether the
work is done, truth whether it is done right. The worlds are judged through
`judge.verdicts.judged`, the route every invariant takes.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, replace
from typing import Any

from judge.lessons import CallAborted, InvariantFailure
from strategies.edits import Edit
from strategies.finals import FinalFact
from strategies.world import World, truth

__all__ = [
    "GROUPS",
    "SHAPES",
    "Probe",
    "fresh_seed",
    "group_of",
    "probe_seed",
    "probe_target",
    "probes",
]

#: The check groups, in the contract's order.
GROUPS: tuple[str, ...] = ("final", "files", "results", "receipts")
#: The shapes of true world, in the order they are tried.
SHAPES: tuple[str, ...] = ("plain", "last-event", "exact")
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


def fresh_seed() -> int:
    """A new seed, as `day7-verify` draws one for a run: never guessable."""
    return secrets.randbits(32)


def probe_seed(given: object) -> int:
    """A run's seed as a number: an integer as it is; any other text (which
    Hypothesis also takes) as a number made from it."""
    try:
        return int(str(given))
    except ValueError:
        digest = hashlib.sha256(str(given).encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True)
class Probe:
    """One group's pair of worlds of one shape: every fact true, and its own false."""

    group: str
    shape: str
    true_world: World
    false_world: World

    def check_name(self) -> str:
        """The one check of this group both worlds must have (from the oracle)."""
        (name,) = [
            c.name for c in truth(self.true_world) if group_of(c.name) == self.group
        ]
        return name


def _drawn(strategy: Any, seed: int) -> Any:
    """One value of a Hypothesis `strategy`, the same for the same seed.

    Drawn by a test of its own (no database, generation only, never
    derandomized): its first example is the simplest value, the same under
    every seed, so the second is taken.
    """
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as seeded

    found: list[Any] = []

    @seeded(seed)
    @settings(
        database=None,
        max_examples=2,
        phases=(Phase.generate,),
        derandomize=False,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def take(value: Any) -> None:
        found.append(value)

    take()
    return found[-1]


def _world(drawn: World, shape: str) -> World:
    """The true world of `shape` made of a drawn one: `plain` as drawn (a
    closing final event after the tool call), `last-event` with the tool
    call the run's one event, `exact` with every substring its whole text."""
    final = replace(drawn.final, closing="none" if shape == "last-event" else "final")
    result = replace(drawn.results[0], repeat=False)
    receipt = drawn.receipts[0]
    world = replace(drawn, crossed=False, padding=0)
    if shape == "last-event":
        result = replace(result, filler=(), at=(), placed=("it",))
        world = replace(world, noise=())
    if shape == "exact":
        final = FinalFact(("", ""), marker=final.marker)
        result = replace(result, filler=(), at=(), placed=("it",), around=("", ""))
        receipt = replace(receipt, layout=FinalFact(("", "")), result=receipt.marker)
    return replace(world, final=final, results=(result,), receipts=(receipt,))


def _false(world: World, group: str) -> World:
    """`world` with `group`'s fact made false, the bluntest way."""
    if group == "final":
        return replace(world, final=replace(world.final, pieces=("",), placed=()))
    if group == "files":
        longer = Edit("insert", -1, "x")  # one byte more, at the end: never equal
        return replace(world, files=(replace(world.files[0], edit=longer),))
    if group == "results":
        return replace(world, results=(replace(world.results[0], placed=(), at=()),))
    return replace(world, receipts=(replace(world.receipts[0], stored="absent"),))


def probes(seed: int) -> tuple[Probe, ...]:
    """The probe's pairs drawn from `seed`: one world drawn, made each shape
    (in SHAPES' order), as a true world and each group's false one (in
    GROUPS' order)."""
    from strategies.draw import one_of_each

    drawn = _drawn(one_of_each(), seed)
    found: list[Probe] = []
    for shape in SHAPES:
        world = _world(drawn, shape)
        found += [Probe(g, shape, world, _false(world, g)) for g in GROUPS]
    return tuple(found)


Rows = tuple[tuple[str, bool, str], ...]
# The false world is tried only where the check passed on the true one.
_NOT_TRIED = "not tried"


def _rows_of(target: Any, world: World) -> Rows | str:
    """The target's report rows on `world`, or why there are none (the build
    or the evaluation broke: a lesson's topic and headline)."""
    from judge.verdicts import judged

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


def probe_target(target: Any, seed: int = 0) -> dict[str, Any]:
    """For each group whether `target` makes its check, and what was seen,
    on the worlds drawn from `seed`.

    A shape's true world is judged once, and only while some group is not
    yet seen made; a group's false world only where its check passed on the
    true one: five evaluations for an evaluator that makes every check,
    fifteen at most. A hang ends the probe: the groups not yet made are not
    (a hung evaluator would cost seconds per world for nothing).
    """
    seen: dict[str, list[str]] = {g: [] for g in GROUPS}
    names: dict[str, str] = {}
    made: set[str] = set()
    stopped = ""
    for shape in SHAPES:
        pairs = [p for p in probes(seed) if p.shape == shape and p.group not in made]
        if not pairs or stopped:
            continue
        rows = _rows_of(target, pairs[0].true_world)
        for probe in pairs:
            name = probe.check_name()
            names.setdefault(probe.group, name)
            when_true = _verdict(rows, name)
            when_false: bool | None | str = _NOT_TRIED
            if when_true is True and not stopped:
                when_false = _verdict(_rows_of(target, probe.false_world), name)
            if when_true is True and when_false is False:
                made.add(probe.group)
                names[probe.group] = name
            seen[probe.group].append(
                f"{shape}: {_said(when_true)} with the fact true,"
                f" {_said(when_false)} with it false"
            )
            if any(str(v).startswith("hang") for v in (when_true, when_false)):
                stopped = "not probed further: an earlier probe hung"
    groups = {
        g: {
            "check": names.get(g, ""),
            "made": g in made,
            "seen": "; ".join(
                seen[g] + ([stopped] if stopped and g not in made else [])
            ),
        }
        for g in GROUPS
    }
    return {"seed": seed, "groups": groups, "made": [g for g in GROUPS if g in made]}
