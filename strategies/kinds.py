"""What a kind of fact is, as data, and the registry that refuses unknown kinds.

Every fact of a world has a kind: its check's verdict, how the fact reads
in a lesson, the usual mistake behind a wrong verdict, at which level it is
judged and, for a single change of a passing fact, how that change reads.
Where a group is drawn from its space (finals, file contents, results,
receipts, log damage) the kind is an outcome read off the drawn world (its
truth by construction), never a point the strategy picks; where a rule is
truly a list (what stands at a path, what stands at the log's path) a new
kind is one entry in its table.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = [
    "EITHER",
    "FAIL",
    "LEVELS",
    "PASS",
    "UNAVAILABLE",
    "Kind",
    "Kinds",
    "UnknownKindError",
]

#: The verdicts a kind can give its check. UNAVAILABLE fails with a detail
#: that gives the reason ("evidence unavailable: ..."); EITHER is a hazard an
#: evaluator only has to survive (any verdict is honest).
PASS = "pass"
FAIL = "fail"
UNAVAILABLE = "unavailable"
EITHER = "either"
_VERDICTS = (PASS, FAIL, UNAVAILABLE, EITHER)

#: `course`: the chapter's rules; `hardened`: beyond them (traps the course's
#: reference does not survive: a FIFO, a sparse GiB file, a malformed run).
LEVELS = ("course", "hardened")


class UnknownKindError(ValueError):
    """A fact named a kind its group does not define."""


@dataclass(frozen=True)
class Kind:
    """One kind of fact: its verdict and its words.

    `perturbation`, when set, says how a passing fact becomes this kind (a
    single change that must flip its check and no other), and `changes`
    whether that change is to the case (what is expected) or to the world
    (what is there). `malformed` kinds break the contract's types, so an
    evaluator may refuse the run with a ValueError instead of judging it.
    """

    name: str
    verdict: str
    words: str
    hint: str
    level: str = "course"
    perturbation: str = ""
    changes: str = "world"
    malformed: bool = False

    def __post_init__(self) -> None:
        if self.verdict not in _VERDICTS:
            raise ValueError(f"kind {self.name}: verdict {self.verdict!r}")
        if self.level not in LEVELS:
            raise ValueError(f"kind {self.name}: level {self.level!r}")
        if self.changes not in ("case", "world"):
            raise ValueError(f"kind {self.name}: changes {self.changes!r}")

    @property
    def passes(self) -> bool:
        return self.verdict == PASS


K = TypeVar("K", bound=Kind)


class Kinds(Mapping[str, K], Generic[K]):
    """The kinds of one group, in the order given (simplest first)."""

    def __init__(self, group: str, kinds: Iterable[K]) -> None:
        self.group = group
        self._kinds: dict[str, K] = {}
        for kind in kinds:
            if kind.name in self._kinds:
                raise ValueError(f"{group} kind {kind.name!r} is defined twice")
            self._kinds[kind.name] = kind

    def __getitem__(self, name: str) -> K:
        try:
            return self._kinds[name]
        except KeyError:
            raise UnknownKindError(
                f"unknown {self.group} kind {name!r}; the {self.group} kinds are:"
                f" {', '.join(self._kinds)}"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._kinds

    def __iter__(self) -> Iterator[str]:
        return iter(self._kinds)

    def __len__(self) -> int:
        return len(self._kinds)

    def __repr__(self) -> str:
        return f"<{len(self)} {self.group} kinds>"

    def names(
        self,
        *,
        level: str = "course",
        verdicts: Iterable[str] = _VERDICTS,
    ) -> tuple[str, ...]:
        """The kinds judged at `level` (course kinds are judged at both) whose
        verdict is one of `verdicts`, in table order."""
        chosen = set(verdicts)
        return tuple(
            name
            for name, kind in self._kinds.items()
            if kind.verdict in chosen and (level == "hardened" or kind.level == level)
        )

    def alike(self, name: str) -> str:
        """The first kind, in table order, with `name`'s verdict and hint.

        Kinds that share both are one usual mistake behind a wrong verdict
        (a trailing newline added to the file, or to the expected content:
        "do not strip a trailing newline"), so a lesson's cause names the
        mistake once, whichever of them a test met.
        """
        kind = self[name]
        return next(
            other
            for other, alike in self._kinds.items()
            if alike.verdict == kind.verdict and alike.hint == kind.hint
        )

    def perturbations(self) -> tuple[K, ...]:
        """The kinds a passing fact can be changed into, in table order."""
        return tuple(kind for kind in self._kinds.values() if kind.perturbation)
