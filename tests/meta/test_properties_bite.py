"""Every property can fail: each is shown failing on a bug planted into the bundled
evaluator, in process (a hang: into a copy judged in a worker).

A property that cannot fail proves nothing. For the judgements of the
hardened invariants (survive a hostile world, stay inside the root) and for
the properties added for the suite's blind spots (state across calls, inputs
left as they were, wording at the course level, lessons that state the
truth), a planted evaluator does one wrong thing and the property must say
so, with the lesson a learner would read. Whole-suite detection under many
seeds is `python -m planted` (tox -e planted).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import random
import shutil
import socket
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from _written_worlds import TRAP_WORLDS
from hypothesis import Phase, settings
from planting import before, in_worker, rewritten

from judge import (
    CallAborted,
    InvariantFailure,
    judge_access,
    judge_hostile,
    load_target,
)
from strategies import FileFact, LogFact, ResultFact, World, cases

# Meta-tests of the suite's own strategies and oracle: the invariants draw
# from the same strategies on every interpreter; their distribution is
# checked once (tox: py311), since it is minutes and interpreter-neutral.
pytestmark = pytest.mark.once

INVARIANTS = Path(__file__).resolve().parents[1] / "invariants"


def _invariant(module: str, name: str) -> Any:
    """A property of tests/invariants, to call with a planted target."""
    spec = importlib.util.spec_from_file_location(
        f"_meta_{module}", INVARIANTS / f"{module}.py"
    )
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded  # its dataclasses look their module up
    spec.loader.exec_module(loaded)
    return getattr(loaded, name)


@pytest.fixture(scope="module")
def bundled() -> Any:
    return load_target()


# --- hostile worlds ---------------------------------------------------------------


# Reads every expected file with open(): a FIFO blocks it for ever.
_FIFO_READ = """\
    import os as _os
    for _expected in case.files:
        try:
            with open(_os.path.join(workspace.policy.root, _expected.path), "rb") as _f:
                _f.read()
        except OSError:
            pass
"""


def _naive_results(report, run, workspace, receipts, case):
    checks = list(report.checks)
    offset = 1 + len(case.files)
    for index, expected in enumerate(case.results):
        found = any(
            event.action.tool == expected.tool and expected.contains in event.result
            for event in run.events
            if event.result is not None
        )
        checks[offset + index] = dataclasses.replace(
            checks[offset + index], passed=found
        )
    return dataclasses.replace(report, checks=tuple(checks))


def test_the_hostile_judgement_catches_a_hang(tmp_path: Path) -> None:
    """It fails, as a hang, on an evaluator that opens a FIFO with open(): its
    worker is ended from outside."""
    reads = in_worker(tmp_path / "reads", _FIFO_READ)
    try:
        with pytest.raises(CallAborted, match="did not return within 0.5 s"):
            judge_hostile(reads, TRAP_WORLDS["trap file fifo"], seconds=0.5)
    finally:
        reads.client.stop()


@pytest.mark.parametrize("kind", ["result_int", "item_none", "action_dict"])
def test_the_hostile_judgement_catches_a_crash(bundled, kind: str) -> None:
    """It fails on an evaluator that assumes every item is an event with a
    string result (`needle in 7`, `None.action`)."""
    with pytest.raises(InvariantFailure, match="raised"):
        judge_hostile(
            rewritten(bundled, _naive_results), TRAP_WORLDS[f"trap result {kind}"]
        )


def test_the_hostile_judgement_catches_a_passed_trap(bundled) -> None:
    """It fails on an evaluator for which a list result holding the substring
    is a match (`"x" in ["x"]`)."""
    world = World(results=(ResultFact("run_command", ("result_list",), "[B]"),))
    with pytest.raises(InvariantFailure, match=r"result:run_command: FAIL"):
        judge_hostile(rewritten(bundled, _naive_results), world)


def test_the_hostile_judgement_catches_a_change(bundled) -> None:
    """It fails on an evaluator that leaves a cache file in the root."""

    def touch(run, workspace, receipts, case) -> None:
        Path(workspace.policy.root, ".evaluation-cache").write_text("{}")

    with pytest.raises(InvariantFailure, match=r"\.evaluation-cache was created"):
        judge_hostile(before(bundled, touch), World())


# --- confinement ------------------------------------------------------------------

_SECRET_WORLD = World(
    files=(
        FileFact(0, ("h0", "app0.py"), "symlink_out_at", "print('hi')\n", variant=9),
    ),
    log=LogFact("path", "beside"),
)


def _opens_after_resolving(run, workspace, receipts, case) -> None:
    # The classic: check the boundary lexically, then open the joined path,
    # which follows the link.
    for expected in case.files:
        with open(
            os.path.realpath(os.path.join(workspace.policy.root, expected.path)), "rb"
        ):
            pass


def _reads_link_target(run, workspace, receipts, case) -> None:
    for expected in case.files:
        link = Path(workspace.policy.root, expected.path)
        for parent in (link, *link.parents):
            if parent.is_symlink():
                (parent.parent / os.readlink(parent)).resolve().exists()
                Path(os.path.realpath(link)).read_bytes()


PLANTED = {
    "opens the resolved path": (_opens_after_resolving, "opened the secret"),
    "reads the link's target": (_reads_link_target, "opened the secret"),
    "starts a process": (
        lambda *args: subprocess.run(["true"], check=False),
        "started a process",
    ),
    "opens a socket": (
        lambda *args: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close(),
        "used the network",
    ),
    "lists beside the root": (
        lambda run, workspace, receipts, case: os.listdir(
            Path(workspace.policy.root).parent
        ),
        "opened outside the root",
    ),
}


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_the_confinement_judgement_catches_a_reach_outside(bundled, bug: str) -> None:
    """It fails on an evaluator that does one forbidden thing and then
    evaluates correctly, so only the audit can tell it apart."""
    action, message = PLANTED[bug]
    with pytest.raises(InvariantFailure, match=message):
        judge_access(before(bundled, action), _SECRET_WORLD)


def test_the_confinement_judgement_catches_a_passed_secret_link(bundled) -> None:
    """It fails on an evaluator whose file check passes a symlink to a secret
    holding the expected text, even when nothing was opened."""

    def passed(report, *args):
        checks = tuple(
            dataclasses.replace(c, passed=True, detail="content matches")
            if c.name.startswith("file:")
            else c
            for c in report.checks
        )
        return dataclasses.replace(report, checks=checks)

    with pytest.raises(
        InvariantFailure, match="a link out of the root is not evidence"
    ):
        judge_access(rewritten(bundled, passed), _SECRET_WORLD)


# --- the blind spots --------------------------------------------------------------


def test_the_stateless_property_catches_a_cache_by_path(bundled) -> None:
    """It fails on an evaluator that remembers file verdicts by path."""
    cache: dict[tuple[str, str], Any] = {}

    def caching(report, run, workspace, receipts, case):
        checks = list(report.checks)
        for index, expected in enumerate(case.files, start=1):
            key = (str(workspace.policy.root), expected.path)
            checks[index] = cache.setdefault(key, checks[index])
        return dataclasses.replace(report, checks=tuple(checks))

    test = _invariant(
        "test_determinism", "test_evaluation_keeps_nothing_from_one_call_to_the_next"
    )
    with pytest.raises(InvariantFailure, match="evaluated after the world before it"):
        test(target=rewritten(bundled, caching))


#: The planted caches a stat can fool (planted/bugs.py, issue 23 miss 4).
STAT_CACHES = (
    "file-bytes-cached-by-mtime",
    "file-bytes-cached-by-inode",
    "receipt-log-cached-by-size",
    "receipt-log-cached-by-mtime",
)


@pytest.mark.parametrize("name", STAT_CACHES)
def test_the_stateless_property_catches_a_cache_a_stat_cannot_tell_stale(
    name: str, tmp_path: Path
) -> None:
    """It fails, with the state lesson, on an evaluator in a worker that keeps
    a file's text or the parsed log by what a stat shows (path, size, mtime,
    inode): the evidence is rewritten at equal length, its times put back."""
    from planted.bugs import BUGS, plant

    bug = next(bug for bug in BUGS if bug.name == name)
    folder = tmp_path / "learner"
    shutil.copytree(
        INVARIANTS.parents[1] / "evaluator",
        folder,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    module = folder / bug.module
    module.write_text(plant(bug, module.read_text(encoding="utf-8")), encoding="utf-8")
    target = load_target(impl_path=folder)
    # Not shrunk: each shrink step is two builds and two calls in a worker,
    # and the first failing world already says what this test checks. The
    # property has settings of its own, made when its module is imported, so
    # the profile they inherit is swapped for that moment only.
    current = settings.get_current_profile_name()
    settings.register_profile(
        "meta-unshrunk",
        parent=settings.get_profile(current),
        phases=(Phase.explicit, Phase.generate),
        database=None,
    )
    settings.load_profile("meta-unshrunk")
    try:
        test = _invariant(
            "test_determinism",
            "test_evidence_changed_in_place_at_the_same_size_and_time_is_read_again",
        )
    finally:
        settings.load_profile(current)
    try:
        with pytest.raises(InvariantFailure) as caught:
            test(target=target)
    finally:
        target.client.stop()
    assert caught.value.cause == "stateless:kept-evidence", caught.value.cause
    assert "other bytes of the same length" in caught.value.world
    assert caught.value.hint.startswith("read every file and reload the receipt log")


def test_the_stateless_property_catches_randomness(bundled) -> None:
    """It fails on an evaluator whose report varies from call to call."""
    chance = random.Random(7)

    def sampling(report, *args):
        checks = tuple(
            dataclasses.replace(c, passed=not c.passed) if chance.random() < 0.3 else c
            for c in report.checks
        )
        return dataclasses.replace(report, checks=checks)

    test = _invariant(
        "test_determinism", "test_evaluation_keeps_nothing_from_one_call_to_the_next"
    )
    with pytest.raises(InvariantFailure):
        test(target=rewritten(bundled, sampling))


def _stripping(report, run, workspace, receipts, case):
    """A file check that compares both sides with their newlines stripped
    (planted/bugs.py's file-trailing-newline, as a rewrite of the report)."""
    checks = list(report.checks)
    for index, expected in enumerate(case.files, start=1):
        try:
            resolved = Path(workspace.resolve_path(expected.path))
            text = resolved.read_bytes().decode("utf-8") if resolved.is_file() else None
        except Exception:
            continue
        if text is not None and text.rstrip("\n") == expected.content.rstrip("\n"):
            checks[index] = dataclasses.replace(
                checks[index], passed=True, detail="content matches"
            )
    return dataclasses.replace(report, checks=tuple(checks))


def test_the_stateless_property_leaves_a_wrong_file_check_to_truth(bundled) -> None:
    """A check that is wrong the same way wherever the world is built keeps no
    state: `stateless` holds on it, and `truth` tells it, keyed by the kind of
    fact; `independence` meets it with the same cause, so the reports tell it
    once, as the truth's lesson naming both."""
    target = rewritten(bundled, _stripping)
    stateless = _invariant(
        "test_determinism", "test_evaluation_keeps_nothing_from_one_call_to_the_next"
    )
    stateless(target=target)  # no lesson: the evaluator keeps no state
    truth = _invariant("test_truth", "test_every_check_says_what_the_world_makes_true")
    with pytest.raises(InvariantFailure) as wrong:
        truth(target=target)
    assert wrong.value.cause == "check:file", wrong.value.cause
    independence = _invariant(
        "test_independence", "test_one_changed_fact_flips_its_own_check_and_no_other"
    )
    with pytest.raises(InvariantFailure) as flipped:
        independence(target=target)
    assert flipped.value.cause == "check:file", flipped.value.cause


def test_the_read_only_property_catches_sorting_the_events(bundled) -> None:
    """It fails on an evaluator that sorts a list of events in place."""

    def sort(run, workspace, receipts, case) -> None:
        if isinstance(run.events, list):
            run.events.sort(key=lambda event: event.step)

    test = _invariant(
        "test_read_only", "test_evaluation_changes_nothing_and_calls_no_tool"
    )
    with pytest.raises(InvariantFailure, match="evaluate_run changed the run,"):
        test(target=before(bundled, sort))


def test_the_read_only_property_catches_a_changed_case(bundled) -> None:
    """It fails on an evaluator that rewrites a field of the case it is given."""

    def trim(run, workspace, receipts, case) -> None:
        object.__setattr__(case, "final_contains", case.final_contains + " ")

    test = _invariant(
        "test_read_only", "test_evaluation_changes_nothing_and_calls_no_tool"
    )
    with pytest.raises(InvariantFailure, match="evaluate_run changed the case,"):
        test(target=before(bundled, trim))


def test_the_read_only_property_catches_a_changed_environment(
    bundled, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It fails on an evaluator that sets an environment variable, and the
    lesson names the variable."""
    monkeypatch.delenv("DAY7_LEFT_BEHIND", raising=False)

    def leave(run, workspace, receipts, case) -> None:
        os.environ["DAY7_LEFT_BEHIND"] = "1"

    test = _invariant(
        "test_read_only", "test_evaluation_changes_nothing_and_calls_no_tool"
    )
    with pytest.raises(
        InvariantFailure,
        match=r"changed the process's environment \(DAY7_LEFT_BEHIND: before",
    ):
        test(target=before(bundled, leave))


def _reworded(report, *args):
    words = {"required final not observed": "required final missing"}
    checks = tuple(
        dataclasses.replace(c, detail=words.get(c.detail, c.detail))
        for c in report.checks
    )
    return dataclasses.replace(report, checks=checks)


def test_the_course_level_accepts_failing_details_in_other_words(bundled) -> None:
    """At the course level the truth property passes an evaluator whose failing
    details use its own words; at the hardened level it fails it."""
    test = _invariant("test_truth", "test_every_check_says_what_the_world_makes_true")
    reworded = rewritten(bundled, _reworded)
    test(target=dataclasses.replace(reworded, level="course"))
    with pytest.raises(InvariantFailure, match="required final missing"):
        test(target=reworded)


def _counting(report, run, workspace, receipts, case):
    """Failing result details that count the events searched: a wording that
    changes when events are duplicated or added."""
    checks = tuple(
        dataclasses.replace(c, detail=f"{len(run.events)} events, none match")
        if c.name.startswith("result:") and not c.passed
        else c
        for c in report.checks
    )
    return dataclasses.replace(report, checks=checks)


def test_a_failing_detail_may_vary_with_the_events_at_the_course_level(
    bundled,
) -> None:
    """The order property compares verdicts, and only the details that bind at
    the level: a failing detail in the learner's words may count the events at
    the course level; at the hardened level the contract's words are owed."""
    test = _invariant(
        "test_order", "test_reordering_duplicating_or_adding_events_changes_nothing"
    )
    counting = rewritten(bundled, _counting)
    test(target=dataclasses.replace(counting, level="course"))
    with pytest.raises(InvariantFailure, match="events, none match"):
        test(target=counting)


def _receipt_words(words: dict[str, str]):
    """A report whose receipt details keep the course's words at the start
    and follow them with the learner's own (a parenthesis, a call id)."""

    def change(report, *args):
        checks = []
        for check in report.checks:
            detail = check.detail
            for contract, own in words.items():
                if detail.startswith(contract):
                    detail = own + detail[len(contract) :]
            checks.append(dataclasses.replace(check, detail=detail))
        return dataclasses.replace(report, checks=tuple(checks))

    return change


_UNAVAILABLE_PROPERTY = "test_unavailable_evidence_is_a_failed_check_not_an_exception"
_TAMPERED_PROPERTY = "test_a_tampered_log_fails_every_receipt_check_and_nothing_else"
_PARENTHESISED = {
    "receipt evidence unavailable: ": "receipt evidence unavailable (log reload"
    " failed): ",
    "receipt lookup failed: ": "receipt lookup failed for the call: ",
}


@pytest.mark.parametrize(
    "module, name",
    [
        (
            "test_unavailable",
            "test_unavailable_evidence_is_a_failed_check_not_an_exception",
        ),
        (
            "test_tampering",
            "test_a_tampered_log_fails_every_receipt_check_and_nothing_else",
        ),
    ],
)
def test_the_course_level_binds_only_the_receipt_words_at_the_start(
    bundled, module: str, name: str
) -> None:
    """A correct evaluator whose receipt details say 'receipt evidence
    unavailable (log reload failed): ...' or 'receipt lookup failed for ...:
    ...' passes at the course level (the words at the start bind, what
    follows is the learner's); the hardened level owes the contract's ': '."""
    test = _invariant(module, name)
    worded = rewritten(bundled, _receipt_words(_PARENTHESISED))
    test(target=dataclasses.replace(worded, level="course"))
    with pytest.raises(InvariantFailure, match=r"\(log reload failed\)|for the call"):
        test(target=worded)


def test_a_wording_lesson_does_not_repeat_what_the_learner_did(bundled) -> None:
    """A learner who reloads the log (the right verdict) but words the detail
    otherwise is told which words the detail must start with, not to reload
    through a fresh store."""
    test = _invariant(
        "test_tampering",
        "test_a_tampered_log_fails_every_receipt_check_and_nothing_else",
    )
    worded = rewritten(
        bundled, _receipt_words({"receipt evidence unavailable": "log unusable"})
    )
    with pytest.raises(InvariantFailure) as failure:
        test(target=dataclasses.replace(worded, level="course"))
    lesson = str(failure.value)
    assert "the detail must start with the words 'receipt evidence unavailable'" in (
        lesson
    )
    assert "fresh ReceiptStore" not in lesson.split("hint", 1)[-1]


def test_the_order_lesson_states_the_truth(bundled) -> None:
    """On an evaluator that searches only the last event, the order property's
    lesson says what the world makes true (PASS), not what the first
    evaluation said."""

    def last_only(report, run, workspace, receipts, case):
        checks = list(report.checks)
        offset = 1 + len(case.files)
        tools = [e for e in run.events if getattr(e.action, "tool", None)]
        for index, expected in enumerate(case.results):
            last = tools[-1] if tools else None
            found = (
                last is not None
                and last.action.tool == expected.tool
                and expected.contains in (last.result or "")
            )
            checks[offset + index] = dataclasses.replace(
                checks[offset + index],
                passed=found,
                detail="required result observed"
                if found
                else "required result not observed",
            )
        return dataclasses.replace(report, checks=tuple(checks))

    test = _invariant(
        "test_order", "test_reordering_duplicating_or_adding_events_changes_nothing"
    )
    with pytest.raises(InvariantFailure) as raised:
        test(target=rewritten(bundled, last_only))
    assert "in any event order: result:" in str(raised.value)
    assert ": PASS (required result observed)" in raised.value.expected


def _refusing(message: str, level: str) -> Any:
    """A stand-in target whose every constructor refuses with `message`."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise ValueError(message)

    return types.SimpleNamespace(
        level=level,
        EvaluationCase=refuse,
        FileExpectation=refuse,
        ResultExpectation=refuse,
        ReceiptExpectation=refuse,
    )


def test_the_course_level_binds_only_the_refusal_words_the_course_fixes() -> None:
    """A refusal the contract and the course's tests do not word (a group
    that is not a tuple of its type, a bad changed artifact, a value of the
    wrong type, an absolute path) may be in the learner's words at the course
    level, and must name its field at the hardened level; a refusal they do
    word (a blank string, a '..' path, a bad exit_state) binds at both."""
    refused = _invariant("test_specification", "_refused")
    free = [
        cases._wrong_item_spec("files", 0, 1, 0),
        cases._group_spec("receipts", "list", 2),
        cases._artifact_spec("/etc/passwd", ()),
        cases._file_path_spec("/abs.txt"),
        *cases.wrong_type_specs(),
    ]
    fixed = [
        cases._blank_spec("final substring", " "),
        cases._file_path_spec("a/../b.txt"),
        cases._exit_spec("OK"),
    ]
    own_words = "that is not something this evaluator can judge"
    for spec in free:
        refused(_refusing(own_words, "course"), spec)
        with pytest.raises(InvariantFailure, match="should raise ValueError naming"):
            refused(_refusing(own_words, "hardened"), spec)
    for spec in fixed:
        for level in ("course", "hardened"):
            with pytest.raises(
                InvariantFailure, match="should raise ValueError naming"
            ):
                refused(_refusing(own_words, level), spec)
