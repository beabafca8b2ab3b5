"""Beyond one machine: a deterministic part of a class, and parts joined again.

`--shard I/N` judges the learners at positions I-1, I-1+N, I-1+2N, ... of
the class sorted by path, so N machines given the same PATHs judge every
learner exactly once. `merge` joins the parts' JSON into the report one
unsharded run gives (timings aside), and refuses parts that do not fit:
another schema, other settings, a learner twice, or a shard missing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from day7_verify.cohort._discover import Learner
from day7_verify.reports._report import ClassReport, SchemaError

__all__ = ["merge", "parse_shard", "select"]

_SHARD = re.compile(r"(\d+)/(\d+)")


def parse_shard(text: str) -> tuple[int, int]:
    """`I/N` as (I, N); ValueError (one line) unless 1 <= I <= N."""
    match = _SHARD.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"--shard {text}: write it I/N, e.g. 1/4")
    index, count = int(match[1]), int(match[2])
    if not 1 <= index <= count:
        raise ValueError(f"--shard {text}: I must be between 1 and N")
    return index, count


def select(learners: Sequence[Learner], index: int, count: int) -> list[Learner]:
    """The learners of shard `index` of `count`: every count-th, sorted by path."""
    return sorted(learners)[index - 1 :: count]


def merge(parts: Sequence[tuple[str, ClassReport]]) -> ClassReport:
    """The parts (name, report) as one report; SchemaError naming what does not fit."""
    if not parts:
        raise SchemaError("merge needs at least one PART.json")
    first_name, first = parts[0]
    # A learner is its exact name (`identity`), never its name as shown:
    # two names that escape alike are two learners, in any two parts.
    owner: dict[bytes, str] = {}
    for name, part in parts:
        if part.tool != first.tool:
            raise SchemaError(
                f"{name} was made by day7-verify {part.tool},"
                f" {first_name} by {first.tool}"
            )
        if dict(part.settings) != dict(first.settings):
            differ = sorted(
                key
                for key in set(part.settings) | set(first.settings)
                if part.settings.get(key) != first.settings.get(key)
            )
            raise SchemaError(
                f"{name} and {first_name} were judged with different"
                f" {', '.join(differ)}"
            )
        for learner in part.learners:
            if learner.identity in owner:
                raise SchemaError(
                    f"learner {learner.path} is in both {owner[learner.identity]}"
                    f" and {name}"
                )
            owner[learner.identity] = name
    _check_shards(parts)
    learners = [learner for _, part in parts for learner in part.learners]
    return ClassReport(
        settings=first.settings,
        learners=tuple(sorted(learners, key=lambda learner: learner.path)),
        seconds=max(part.seconds for _, part in parts),
        shard=None,
        tool=first.tool,
    )


def _check_shards(parts: Sequence[tuple[str, ClassReport]]) -> None:
    sharded = [(name, part.shard) for name, part in parts if part.shard is not None]
    if not sharded:
        return
    if len(sharded) != len(parts):
        whole = next(name for name, part in parts if part.shard is None)
        raise SchemaError(f"{whole} is a whole run, the other parts are shards")
    counts = {shard.count for _, shard in sharded}
    if len(counts) != 1:
        raise SchemaError(
            f"the parts split the class differently: into {sorted(counts)} shards"
        )
    count = counts.pop()
    indices = sorted(shard.index for _, shard in sharded)
    if indices != sorted(set(indices)):
        twice = sorted({i for i in indices if indices.count(i) > 1})
        raise SchemaError(f"shard {twice[0]}/{count} is given twice")
    missing = sorted(set(range(1, count + 1)) - set(indices))
    if missing:
        raise SchemaError(f"shard {missing[0]}/{count} is missing")
    totals = {shard.learners for _, shard in sharded}
    if len(totals) != 1:
        raise SchemaError("the shards were cut from classes of different sizes")
    total = totals.pop()
    judged = sum(len(part.learners) for _, part in parts)
    if judged != total:
        raise SchemaError(f"the shards hold {judged} learners, the class has {total}")
