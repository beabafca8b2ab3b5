"""Which of the four check groups a target's evaluator really makes: the score's probe.

An invariant such as read-only or determinism holds for free for checks an
evaluator never makes, so the score (docs/score.md) gives it credit only for
the groups (final, files, results, receipts) the evaluator is seen to judge.
Seen, not guessed: a world of several facts of every group, all true, and
for each group the same world with one of that group's facts, picked,
false. The group is made when, for some such pair, the report has the
picked fact's own check (by its contract name, and by its place among
checks of that name: results of one tool share one) and it PASSes on the
true world and FAILs on the false one: its verdict follows that fact. A
check that always passes, always fails or is missing does no work; no
other check is judged here.

The world is drawn from the run's seed (`probes`), by the properties' own
strategy (`strategies.draw.several_of_each`: a passing world of two or three
files, results and receipts beside its final, as `passing_worlds` draws
them), and so is the fact of each group made false. Its paths, texts,
markers, tools, call ids, exit states, stores, event numbering and counts
come from the space every property draws from, so nothing in them tells
them apart from a property's world (issue 37: digit-less word-list paths
did, and then one fact of each group did, where the properties draw
several: an evaluator that made its checks only on such worlds was seen
making them). So they are new in every run, as the properties' examples are
(issue 26: fixed worlds could be recognised and answered as the reference
would, by an evaluator that judges nothing else), and the same given the
seed, so a verdict is reproduced with its seed. What stays the probe's own:
every group has two or three facts (a property's world may have none or
one), and the world has no long run and no evidence crossed into another
group's place.

Made, not right (issue 25): three shapes of true world are tried, each only
where the ones before did not show the check made:

- `plain`: every fact as drawn (repeated and shared tools, look-alikes,
  unrelated events, spelled paths), a closing final event after the tool
  calls;
- `last-event`: the drawn facts at their plainest (each result one tool
  call holding its substring, of a tool of its own, listed once; paths and
  artifacts spelled plain; every receipt stored; every file empty; no
  unrelated event), the picked result's tool call the run's last event
  (that result moved last in the case, no final event after it), so a
  result check that reads only the last event is still seen, and so is a
  check spoiled only by some drawn fact, or a case refused for one;
- `exact`: the same plainest facts, every substring its whole text (the
  final, each tool result, each receipt's result), so a check that
  compares with `==` where the contract says `in` is still seen.

Each falsehood is the bluntest of its group (the marker absent, a byte more
in the file, the receipt never stored), so a learner with one subtle bug is
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
from strategies.results import ResultFact
from strategies.vocabulary import TOOLS
from strategies.world import World, check_positions, truth

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


# The key `check_positions` gives each group's facts.
_KEYS = {"final": "final", "files": "file", "results": "result", "receipts": "receipt"}


@dataclass(frozen=True)
class Probe:
    """One group's pair of worlds of one shape: every fact true, and the
    group's `fact`-th (its index in the group, 0 for the final) false."""

    group: str
    shape: str
    true_world: World
    false_world: World
    fact: int = 0

    def check(self) -> tuple[str, int]:
        """The probed fact's check both worlds must have (from the oracle):
        its contract name, and how many checks of that name come before it
        (results of one tool share a name; the contract orders the checks)."""
        names = [c.name for c in truth(self.true_world)]
        at = check_positions(self.true_world)[_KEYS[self.group], self.fact][0]
        return names[at], names[:at].count(names[at])

    def check_name(self) -> str:
        """The probed fact's check's contract name."""
        return self.check()[0]


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


def _picked() -> Any:
    """A world of several facts a group, and which fact of each group the
    probe makes false (files, results, receipts: an index into each)."""
    from hypothesis import strategies as st

    from strategies.draw import several_of_each

    def picks(world: World) -> Any:
        groups = (world.files, world.results, world.receipts)
        return st.tuples(st.just(world), *(st.integers(0, len(g) - 1) for g in groups))

    return several_of_each().flatmap(picks)


def _world(drawn: World, shape: str, picks: dict[str, int]) -> tuple[World, int]:
    """The true world of `shape` made of a drawn one, and where the picked
    result now stands. `plain`: as drawn, a closing final event after the
    tool calls. The others, tried only for what `plain` did not show made,
    are the drawn facts at their plainest (a check spoiled only by a
    repeated tool, a look-alike, an unrelated event, a spelling or an
    appended receipt is still seen), and `last-event` has the picked
    result's tool call the run's last event (that result moved last, no
    final event after it), `exact` every substring its whole text."""
    final = replace(drawn.final, closing="none" if shape == "last-event" else "final")
    world = replace(drawn, final=final, crossed=False, padding=0)
    probed = picks["results"]
    if shape == "plain":
        return world, probed
    results = _listed_once(drawn.results, probed)
    files = tuple(replace(f, spelling="plain", text="") for f in drawn.files)
    receipts = tuple(replace(r, stored="put", spellings=()) for r in drawn.receipts)
    if shape == "last-event":
        results.append(results.pop(probed))
        probed = len(results) - 1
    if shape == "exact":
        final = FinalFact(("", ""), marker=final.marker)
        results = [replace(r, around=("", "")) for r in results]
        receipts = tuple(
            replace(r, layout=FinalFact(("", "")), result=r.marker) for r in receipts
        )
    plainest = {"files": files, "results": tuple(results), "receipts": receipts}
    return replace(world, final=final, noise=(), **plainest), probed


def _listed_once(results: tuple[ResultFact, ...], picked: int) -> list[ResultFact]:
    """Each result one tool call holding its substring, listed once, of a tool
    no other has (a tool met before becomes the first one free; the picked
    result keeps its own): a case an evaluator refusing repeated tools
    still takes."""
    taken = {results[picked].tool}
    listed: list[ResultFact] = []
    for at, fact in enumerate(results):
        fact = replace(fact, repeat=False, filler=(), at=(), placed=("it",))
        if at != picked and fact.tool in taken:
            tool = next(t for t in TOOLS if t not in taken)
            other = next(t for t in TOOLS if t != tool)
            fact = replace(fact, tool=tool, other_tool=other)
        taken.add(fact.tool)
        listed.append(fact)
    return listed


def _false(world: World, group: str, at: int) -> World:
    """`world` with the `at`-th fact of `group` made false, the bluntest way."""
    if group == "final":
        return replace(world, final=replace(world.final, pieces=("",), placed=()))
    if group == "files":
        longer = Edit("insert", -1, "x")  # one byte more, at the end: never equal
        return replace(world, files=_changed(world.files, at, edit=longer))
    if group == "results":
        return replace(world, results=_changed(world.results, at, placed=(), at=()))
    return replace(world, receipts=_changed(world.receipts, at, stored="absent"))


def _changed(facts: tuple[Any, ...], index: int, **change: Any) -> tuple[Any, ...]:
    return (*facts[:index], replace(facts[index], **change), *facts[index + 1 :])


def probes(seed: int) -> tuple[Probe, ...]:
    """The probe's pairs drawn from `seed`: one world of several facts a
    group drawn, and one fact of each group picked, made each shape (in
    SHAPES' order), as a true world and, for each group (in GROUPS' order),
    the same world with the picked fact false."""
    drawn, *indices = _drawn(_picked(), seed)
    picks = {"final": 0, **dict(zip(GROUPS[1:], indices, strict=True))}
    found: list[Probe] = []
    for shape in SHAPES:
        world, result = _world(drawn, shape, picks)
        at = {**picks, "results": result}
        found += [
            Probe(g, shape, world, _false(world, g, at[g]), at[g]) for g in GROUPS
        ]
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


def _verdict(rows: Rows | str, check: tuple[str, int]) -> bool | None | str:
    """The verdict of `check` (a name, and how many of that name come
    before it): True, False, None (no such check), or why the report was
    not had."""
    if isinstance(rows, str):
        return rows
    name, before = check
    named = [bool(passed) for row_name, passed, _ in rows if row_name == name]
    return named[before] if before < len(named) else None


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
    drawn = probes(seed)
    for shape in SHAPES:
        pairs = [p for p in drawn if p.shape == shape and p.group not in made]
        if not pairs or stopped:
            continue
        rows = _rows_of(target, pairs[0].true_world)
        for probe in pairs:
            check = probe.check()
            name = check[0]
            names.setdefault(probe.group, name)
            when_true = _verdict(rows, check)
            when_false: bool | None | str = _NOT_TRIED
            if when_true is True and not stopped:
                when_false = _verdict(_rows_of(target, probe.false_world), check)
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
