"""The wider drawn space of issue 38, said again in plain Python.

Names of any character the contract allows, a multi-byte character across a
chunk's end, artifacts joined into one, events numbered any way: each is
built so the generator knows the truth; these check the construction
against the rule on drawn values, so a world whose truth is computed wrongly
(a false FAIL of correct work) is caught here, not in a learner's report.
"""

from __future__ import annotations

import os
import posixpath
import tempfile

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from strategies.draw import (
    _ARTIFACT,
    _OFFSETS,
    _WIDE,
    NAMES,
    PATH_DRAFTS,
    _across,
    artifact_path,
    plain_draft,
    texts,
    worlds,
)
from strategies.files import file_path
from strategies.paths import PathDraft, foreign_readings
from strategies.receipts import ReceiptFact, mismatches, receipt_expectation
from strategies.world import world_events

# Meta-tests of the suite's own strategies and oracle: the invariants draw
# from the same strategies on every interpreter; their distribution is
# checked once (tox: py311), since it is minutes and interpreter-neutral.
pytestmark = pytest.mark.once

_PROTECTED = (".aws", ".env", ".git", ".ssh", "credentials", "id_ed25519", "id_rsa")


@given(NAMES)
def test_a_drawn_name_is_one_the_contract_allows_a_path(name: str) -> None:
    """Not empty, '.' or '..', no '/', NUL or line break, no protected name
    in any case, within NAME_MAX bytes; a path of it normalises to itself."""
    assert name not in ("", ".", "..")
    assert not set(name) & set("/\x00\n\r\u2028\u2029\x85")
    folded = name.lower()
    assert folded not in _PROTECTED
    assert not folded.startswith(".env.") and not folded.endswith((".key", ".pem"))
    assert len(name.encode("utf-8")) <= 255
    assert posixpath.normpath(f"a/{name}") == f"a/{name}"


@settings(max_examples=300)
@given(PATH_DRAFTS, _ARTIFACT)
def test_a_drawn_path_and_artifact_are_ones_the_contract_accepts(draft, artifact):
    """Every plain path and changed artifact drawn builds as the contract's
    expectation: none is blank as a whole (a name may be: "a/ /b"). Task 1,
    declare the case: a world the oracle calls valid must be one a correct
    evaluator accepts, or its refusal is a FAIL on correct work (a lone
    name of blanks drawn as a whole path was one)."""
    from evaluator import FileExpectation, ReceiptExpectation

    path = "/".join((*draft.dirs, draft.stem + draft.suffix))
    assert FileExpectation(path, "").path == posixpath.normpath(path)
    receipt = ReceiptExpectation("c", "t", "ok", "r", (artifact,))
    assert receipt.changed_artifacts == (posixpath.normpath(artifact),)


@pytest.mark.parametrize("blank", [" ", "\t", "\u3000", " \u00a0 "])
def test_a_lone_blank_name_is_never_a_whole_path_or_artifact(blank: str) -> None:
    """A name of blanks alone stays in the space, but never as a whole path
    or changed artifact: those get a suffix. Task 1: the contract (and the
    course) refuses a blank path, so a world drawn with one is not a valid
    case, and a correct evaluator refusing it would be failed."""
    from evaluator import FileExpectation, ReceiptExpectation

    draft = plain_draft((), blank, "")
    path = draft.stem + draft.suffix
    assert path.strip() and path.startswith(blank), draft
    assert FileExpectation(path, "").path == path
    artifact = artifact_path([blank])
    assert artifact.strip() and artifact.startswith(blank), artifact
    assert ReceiptExpectation("c", "t", "ok", "r", (artifact,)).changed_artifacts
    # Where the path is not blank as a whole, the names are kept as drawn.
    assert plain_draft(("a",), blank, "") == PathDraft(("a",), blank, "")
    assert artifact_path(["a", blank]) == f"a/{blank}"


@settings(max_examples=30)
@given(texts(), texts(), _OFFSETS, _WIDE, st.integers(0, 2))
def test_a_long_text_puts_a_wide_character_across_its_offset(
    text: str, line: str, at: int, wide: str, into: int
) -> None:
    """The character's bytes start before byte `at` and end after it."""
    data = _across(text, line, at, wide, into).encode("utf-8")
    size = len(wide.encode("utf-8"))
    start = data.index(wide.encode("utf-8"), max(0, at - size + 1))
    assert start < at < start + size


@given(st.lists(NAMES, min_size=2, max_size=3).map(lambda names: tuple(names)))
def test_artifacts_joined_into_one_are_another_tuple(artifacts) -> None:
    """Joined by ', ', the expectation holds one artifact: never the stored
    tuple, so the receipt check fails, whatever the names hold."""
    fact = ReceiptFact(artifacts=artifacts, joined=True)
    assert len(receipt_expectation(fact).artifacts) == 1
    assert "artifacts" in mismatches(fact)


@settings(max_examples=40)
@given(worlds(long_runs=True))
def test_facts_are_kept_apart_and_events_numbered_as_drawn(world) -> None:
    """No file fact's path equals another's or lies on its way; every event
    has the step its numbering gives it."""
    paths = [f.parts for f in world.files]
    for i, a in enumerate(paths):
        for b in paths[i + 1 :]:
            shorter = min(len(a), len(b))
            assert a[:shorter] != b[:shorter]
    first, share = world.numbering
    events = world_events(world)
    assert [e.step for e in events] == [
        first + (n // share if share else 0) for n in range(len(events))
    ]


@example(PathDraft(("0",), ":", ""), 0, 1)  # C:0/:0 read as C:0/ (seed 534923919)
@given(PATH_DRAFTS, st.integers(0, 9), st.integers(0, 63))
def test_a_foreign_paths_readings_lie_beside_it_on_disk(
    draft: PathDraft, index: int, variant: int
) -> None:
    """A path another system reads otherwise (a backslash, a drive, a stream)
    and each of its readings can all be laid out in one tree: every reading
    is a clean relative path, neither one of the path's folders nor below it.

    Task 2 (file evidence): the builder lays the readings beside the file, so
    a reading that is the file's own folder (`C:0/:0` read as `C:0/`) would
    make the world impossible to build, and the judge would blame the learner
    for its own tree."""
    parts = file_path("name_foreign_beside_converted", draft, index, variant).parts
    path = "/".join(parts)
    with tempfile.TemporaryDirectory() as scratch:
        for each in (path, *foreign_readings(parts)):
            at = os.path.join(scratch, each)
            os.makedirs(os.path.dirname(at), exist_ok=True)
            with open(at, "x", encoding="utf-8") as made:
                made.write(each)
        for each in (path, *foreign_readings(parts)):
            with open(os.path.join(scratch, each), encoding="utf-8") as laid:
                assert laid.read() == each
