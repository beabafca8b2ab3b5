"""The score model (docs/score.md): the credit rule, the probe, every report agreeing.

Nothing here starts a child: the probe runs in this process on learner
folders made from the bundled evaluator (tests/bundled/_command_learners.py),
and the reports are made from verdicts built here. The command's own runs
on such folders are in tests/bundled/test_command_judge.py.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest
from _command_learners import _EVALUATE_RUN_BODY, learner_folder
from _command_schema import report_problems
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from day7_verify.reports._gradescope import gradescope_results
from day7_verify.reports._junit import junit_xml
from day7_verify.reports._report import ClassReport, LearnerVerdict, SchemaError
from day7_verify.reports._score import (
    ALL_GROUPS,
    GROUPS,
    WEIGHTS,
    Weighting,
    credit,
    score,
    scored,
)
from day7_verify.reports._text import class_lines, learner_lines, verdict_line
from day7_verify.reports._verdict import OUTSIDE_WRITES, at_level
from judge.ordering import INVARIANT_ORDER, invariants_at
from judge.probe import GROUPS as PROBE_GROUPS
from judge.probe import SHAPES, group_of, probe_target, probes
from judge.target import load_target
from judge.verdicts import judged
from strategies.results import asked_text
from strategies.vocabulary import marker
from strategies.world import check_positions, truth, world_events

# The score is our arithmetic over verdicts the invariants judge on every
# interpreter, and the reports are our text: nothing here is the interpreter's.
pytestmark = pytest.mark.once

SETTINGS = {
    "level": "course",
    "profile": "ci",
    "timeout": 60.0,
    "memory_mib": 2048,
    "max_output_bytes": 1 << 20,
    "isolation": "process",
}

#: What the evaluator with validation, the final check and render but no
#: file, result or receipt check held when judged (docs/score.md): 15 of 25.
FINAL_ONLY_HOLDS = frozenset(
    {
        "surface",
        "specification-refused",
        "specification-accepted",
        "path-normalisation",
        "argument-types",
        "report-verdict",
        "render-grammar",
        "store-kinds",
        "order-insensitivity",
        "independence",
        "determinism",
        "read-only",
        "read-only-real-runs",
        "read-state-kept",
        OUTSIDE_WRITES,
    }
)


def _course(holding: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """The course level's invariants, `pass` for those in `holding`."""
    names = [*(n for n, _ in invariants_at("course")), OUTSIDE_WRITES]
    judged = dict(invariants_at("course"))
    return tuple(
        (
            name,
            "skip"
            if not judged.get(name, True)
            else ("pass" if name in holding else "fail"),
        )
        for name in names
    )


# --- the credit rule --------------------------------------------------------


def test_credit_is_weight_times_holds_times_the_share_of_groups_made():
    both = Weighting(1.0, frozenset({"results", "receipts"}))
    assert credit(both, True, ALL_GROUPS) == 1.0
    assert credit(both, True, frozenset({"results"})) == 0.5
    assert credit(both, True, frozenset({"final", "files"})) == 0.0
    assert credit(both, False, ALL_GROUPS) == 0.0
    # Without the probe, a hold over checks it may not make earns nothing...
    assert credit(both, True, None) == 0.0
    # ...and one that protects no group is never vacuous.
    alone = Weighting(0.5)
    assert credit(alone, True, None) == 0.5
    assert credit(alone, True, frozenset()) == 0.5
    assert credit(alone, False, ALL_GROUPS) == 0.0
    assert credit(Weighting(0.0, ALL_GROUPS), True, ALL_GROUPS) == 0.0


def test_weightings_are_frozen_and_refuse_what_means_nothing():
    with pytest.raises(FrozenInstanceError):
        WEIGHTS["truth"].weight = 2  # type: ignore[misc]
    with pytest.raises(ValueError, match="weight"):
        Weighting(-1.0)
    with pytest.raises(ValueError, match="unknown groups"):
        Weighting(1.0, frozenset({"events"}))


def test_every_invariant_has_a_weighting_and_prerequisites_weigh_nothing():
    assert set(WEIGHTS) == {*INVARIANT_ORDER, OUTSIDE_WRITES}
    assert WEIGHTS["surface"].weight == WEIGHTS[OUTSIDE_WRITES].weight == 0
    for name in ("specification-refused", "specification-accepted"):
        assert not WEIGHTS[name].protects  # the case itself: never vacuous
    assert WEIGHTS["read-only"].protects == ALL_GROUPS
    assert GROUPS == PROBE_GROUPS


def test_the_evaluator_that_checks_nothing_scores_low_though_it_holds_15_of_25():
    """Its holds over files, results and receipts are vacuous: they earn nothing."""
    invariants = _course(FINAL_ONLY_HOLDS)
    held = sum(status == "pass" for _, status in invariants)
    assert held == 15
    measured = score(invariants, frozenset({"final"}))
    assert measured.percent == 20.0
    assert measured.percent <= 25
    # The same holds, over checks it made, would be worth much more: the
    # discount is the probe's doing.
    assert score(invariants, ALL_GROUPS).percent > 40


def test_the_reference_scores_100_and_a_learner_judged_nothing_0():
    everything = frozenset(name for name, _ in _course(frozenset(WEIGHTS)))
    assert score(_course(everything), ALL_GROUPS).percent == 100.0
    assert score(_course(frozenset()), None).percent == 0.0
    # Skipped invariants are not part of it: the course level's possible.
    assert score(_course(everything), ALL_GROUPS).possible == 20.0


@given(
    st.lists(
        st.tuples(
            st.sampled_from(sorted(WEIGHTS)),
            st.sampled_from(["pass", "fail", "skip", "not-run", "crashed"]),
        ),
        unique_by=lambda item: item[0],
    ),
    st.none() | st.frozensets(st.sampled_from(GROUPS)),
)
def test_the_score_is_its_credits_summed_and_never_more_than_possible(invariants, made):
    result = score(invariants, made)
    assert 0 <= result.earned <= result.possible
    assert 0.0 <= result.percent <= 100.0
    assert result.earned == round(sum(c.credit for c in result.credits), 4)
    assert [c.name for c in result.credits] == [
        name for name, status in invariants if status != "skip"
    ]
    # More groups made never lowers it.
    assert score(invariants, ALL_GROUPS).earned >= result.earned


# --- the probe --------------------------------------------------------------


# The probe draws with a @given of its own: nested here, on purpose.
@settings(max_examples=15, suppress_health_check=[HealthCheck.nested_given])
@given(st.integers(min_value=0, max_value=2**64))
def test_each_probe_is_one_false_fact_of_its_group_and_the_others_true(seed: int):
    """Under any seed, read off the oracle: each true world passes every
    check and holds two facts or more of every group; each false one fails
    exactly the checks of its group's picked fact, the check the probe reads."""
    drawn = probes(seed)
    assert [(p.shape, p.group) for p in drawn] == [
        (shape, group) for shape in SHAPES for group in PROBE_GROUPS
    ]
    keys = {"final": "final", "files": "file", "results": "result"}
    for probe in drawn:
        world = probe.true_world
        assert min(len(world.files), len(world.results), len(world.receipts)) >= 2
        name, before = probe.check()
        assert group_of(name) == probe.group
        names = [c.name for c in truth(world)]
        own = check_positions(world)[keys.get(probe.group, "receipt"), probe.fact]
        assert names[own[0]] == name and names[: own[0]].count(name) == before
        assert all(check.passed for check in truth(world))
        failing = [i for i, c in enumerate(truth(probe.false_world)) if not c.passed]
        assert failing == list(own)
        assert {group_of(c.name) for c in truth(world)} == set(GROUPS)


def test_the_probes_worlds_are_drawn_from_the_seed():
    """The same seed draws the same worlds; another seed other ones (issue 26:
    fixed worlds could be recognised and answered)."""
    assert probes(7) == probes(7)
    worlds = {seed: {p.true_world for p in probes(seed)} for seed in range(20)}
    assert all(not worlds[a] & worlds[b] for a in worlds for b in worlds if a < b)
    # The exact shape: every substring is its whole text (issue 25).
    exact = next(p.true_world for p in probes(7) if p.shape == "exact")
    assert all(receipt.result == receipt.marker for receipt in exact.receipts)
    assert exact.final.pieces == ("", "")
    assert all(result.around == ("", "") for result in exact.results)
    # The last-event shape: the probed result's one tool call is the last event.
    for seed in range(6):
        probe = next(
            p for p in probes(seed) if (p.shape, p.group) == ("last-event", "results")
        )
        last = world_events(probe.true_world)[-1]
        assert probe.fact == len(probe.true_world.results) - 1
        assert last.tool == probe.true_world.results[probe.fact].tool
        assert asked_text(probe.true_world.results[probe.fact]) in last.result


def test_the_probes_worlds_come_from_the_properties_own_space():
    """Issue 37, item 4: the probe's worlds are drawn by the properties' own
    strategy, so nothing in them tells them apart. Its paths were once
    digit-less words (`src/main.py`) where every drawn path carried an index
    digit: an evaluator judging only such paths scored 67.5% for the final
    check alone. Then it held one fact of each group where the properties
    draw several: the fact it makes false is now one of several, drawn."""
    from strategies.paths import allowed_name

    seen = [probes(seed) for seed in range(12)]
    paths = [p[0].true_world.files[0].parts for p in seen]
    # Every name one a property's plain path may hold, and none from a list:
    # twelve seeds, twelve different paths, of many characters.
    assert all(
        allowed_name(name, top=at == 0)
        for parts in paths
        for at, name in enumerate(parts)
    )
    assert len(set(paths)) == len(paths)
    assert len({c for parts in paths for c in "".join(parts)}) > 30
    # Markers and call ids as a world of several facts a group has them.
    for probe in (p for drawn in seen for p in drawn):
        world = probe.true_world
        assert set(world.final.marker[1:-1]) <= set("AaéÉfiFI")
        styles = ("call-{}", "c{}", "call {}", "呼叫-{}")
        for i, receipt in enumerate(world.receipts, 1):
            assert receipt.call_id in {style.format(i) for style in styles}
        facts = (*world.results, *world.receipts)
        markers = {marker(i) for i in range(1, len(facts) + 1)}
        assert {fact.marker for fact in facts} == markers
    # The fact made false is drawn: over twelve seeds, not always the first
    # of its group, nor always the last.
    for group in ("files", "results", "receipts"):
        picked = [p for drawn in seen for p in drawn if p.group == group]
        assert {p.fact for p in picked} - {0}
        assert any(p.fact < len(getattr(p.true_world, group)) - 1 for p in picked)


def _probe(tmp_path: Path, *plants: str, seed: int = 0) -> list[str]:
    folder = learner_folder(tmp_path, "-".join(plants) or "clean", *plants)
    return probe_target(load_target(impl_path=str(folder)), seed)["made"]


def test_the_probe_sees_every_group_of_a_whole_evaluator(tmp_path: Path):
    assert _probe(tmp_path) == list(GROUPS)
    assert probe_target(load_target())["made"] == list(GROUPS)


def test_the_probe_reads_the_picked_results_own_check_among_its_tools_others(
    tmp_path: Path,
):
    """Results of one tool share a check name (`result:<tool>`): the probe
    reads the picked result's own check, by its place among them (the
    contract's order), not the first of that name, so a whole evaluator is
    seen to make the result check whichever of them was picked."""
    shared = [
        seed
        for seed in range(25)
        if any(p.group == "results" and p.check()[1] for p in probes(seed)[:4])
    ]
    assert len(shared) >= 2, "no seed picks a result after another of its tool"
    for seed in shared[:2]:
        assert _probe(tmp_path / str(seed), seed=seed) == list(GROUPS)


def test_the_probe_sees_only_the_final_of_an_evaluator_that_checks_nothing_else(
    tmp_path: Path,
):
    assert _probe(tmp_path, "final-only") == ["final"]
    assert _probe(tmp_path, "returns-none") == []


def test_a_check_that_always_passes_or_never_passes_is_not_made(tmp_path: Path):
    """Named as the contract says, but blind to the evidence: no work done."""
    # The file check always passes; the result check never does.
    folder = learner_folder(tmp_path, "blind")
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    source = source.replace(
        "    return EvaluationReport(tuple(checks))",
        "    checks = [\n"
        "        EvaluationCheck(c.name, True, 'content matches')"
        " if c.name.startswith('file:')\n"
        "        else EvaluationCheck(c.name, False, 'required result not observed')"
        " if c.name.startswith('result:') else c\n"
        "        for c in checks\n"
        "    ]\n"
        "    return EvaluationReport(tuple(checks))",
        1,
    )
    module.write_text(source, encoding="utf-8")
    made = probe_target(load_target(impl_path=str(folder)))["made"]
    assert made == ["final", "receipts"]


def test_a_one_bug_learner_is_still_seen_to_make_the_check_its_bug_spoils(
    tmp_path: Path,
):
    """The probe measures the work, truth its correctness."""
    assert _probe(tmp_path, "bug:result-last-event-only") == list(GROUPS)
    assert _probe(tmp_path, "bug:file-trailing-newline") == list(GROUPS)


# Each spoils a check only on some drawn facts (a repeated tool, an invalid
# reply, a spelled path or artifact, an appended receipt, a CR in a file) or
# refuses the whole case: the plainest shapes still see the work done.
SPOILED_BY_A_DRAWN_FACT = (
    "results-unique",
    "result-invalid-reply-crashes",
    "path-kept-raw",
    "artifacts-kept-raw",
    "receipts-not-reloaded",
    "file-universal-newlines",
)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_bug_spoiling_some_drawn_facts_still_shows_its_checks_made(
    tmp_path: Path, seed: int
):
    """The probe's world holds several facts of every group, drawn, so one
    bug often meets a fact it spoils, or a case it refuses: `plain` then
    shows little, and the plainest shapes (each result one tool call of its
    own tool, listed once; plain spellings; stored receipts; empty files)
    show every check made, under every seed."""
    for bug in SPOILED_BY_A_DRAWN_FACT:
        made = _probe(tmp_path / bug, f"bug:{bug}", seed=seed)
        assert made == list(GROUPS), bug


@pytest.mark.parametrize("seed", [0, 1, 2**40 + 3])
def test_a_receipt_check_comparing_with_equality_is_made(tmp_path: Path, seed: int):
    """Issue 25: a receipt check that wants the result == the substring does
    the work (wrongly: truth says so), as one that never compares exit states
    does; one that ignores the receipt does none."""
    assert _probe(tmp_path, "bug:receipt-result-equality", seed=seed) == list(GROUPS)
    assert _probe(tmp_path, "bug:receipt-exit-state-ignored", seed=seed) == list(GROUPS)
    folder = learner_folder(tmp_path, f"receipts-ignored-{seed}")
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    source = source.replace(
        "    return EvaluationReport(tuple(checks))",
        "    checks = [\n"
        "        EvaluationCheck(c.name, True, 'receipt matches')"
        " if c.name.startswith('receipt:') else c\n"
        "        for c in checks\n"
        "    ]\n"
        "    return EvaluationReport(tuple(checks))",
        1,
    )
    module.write_text(source, encoding="utf-8")
    made = probe_target(load_target(impl_path=str(folder)), seed)["made"]
    assert made == ["final", "files", "results"]


def _memoriser(tmp_path: Path, seed: int) -> Path:
    """An evaluator that makes the final check only, but answers the probe's
    worlds drawn from `seed` as the reference would (it knows them by their
    final substring): what fixed worlds let a learner do."""
    known = sorted({p.true_world.final.marker for p in probes(seed)})
    folder = learner_folder(tmp_path, f"memoriser-{seed}")
    module = folder / "evaluation.py"
    source = module.read_text(encoding="utf-8")
    body = _EVALUATE_RUN_BODY
    source = source.replace(
        body,
        body + f"    if getattr(case, 'final_contains', None) not in {known!r}:\n"
        "        _validate_case(case)\n"
        "        return EvaluationReport((_final_check(run, case),))\n",
    )
    module.write_text(source, encoding="utf-8")
    return folder


def test_an_evaluator_that_memorised_the_probe_gains_nothing_under_another_seed(
    tmp_path: Path,
):
    """Issue 26: answering one run's probe worlds as the reference would makes
    every group under that seed (the memory works), and under another seed
    only what its honest twin (final only) makes."""
    memoriser = load_target(impl_path=str(_memoriser(tmp_path, 11)))
    assert probe_target(memoriser, 11)["made"] == list(GROUPS)
    honest = _probe(tmp_path, "final-only", seed=12)
    assert honest == ["final"]
    assert probe_target(memoriser, 12)["made"] == honest


@pytest.mark.parametrize("seed", [0, 1, 7, 2**40 + 3])
def test_an_evaluator_honest_only_on_one_fact_a_group_makes_what_its_twin_makes(
    tmp_path: Path, seed: int
):
    """Issue 37, item 4: the probe's worlds hold several facts of every group,
    as the properties' do, so an evaluator that judges only cases of one
    fact a group (`one-fact-only` in tests/bundled/_command_learners.py)
    is seen making only what its final-only twin makes, under
    every seed; where the world has one fact a group it makes them all (the
    cheat works, and the probe does not let it)."""
    folder = learner_folder(tmp_path, f"cheat-{seed}", "one-fact-only")
    cheat = load_target(impl_path=str(folder))
    honest = _probe(tmp_path, "final-only", seed=seed)
    assert honest == ["final"]
    assert probe_target(cheat, seed)["made"] == honest
    # The same world cut to its first fact of each group: every check made.
    world = probes(seed)[0].true_world
    one = replace(
        world,
        files=world.files[:1],
        results=(replace(world.results[0], repeat=False),),
        receipts=world.receipts[:1],
        modified_files=tuple(
            path for path in world.modified_files if path == world.files[0].path
        ),
    )
    rows = judged(cheat, one)
    assert [group_of(name) for name, _, _ in rows] == list(PROBE_GROUPS)
    assert all(passed for _, passed, _ in rows)


# --- one score in every report ----------------------------------------------


def _learner(path: str = "class/ada", made: tuple[str, ...] | None = ("final",)):
    verdict = at_level(
        LearnerVerdict(
            path=path,
            status="fail",
            seconds=3.0,
            detail="15 of 25 invariants hold",
            invariants=_course(FINAL_ONLY_HOLDS),
            statements={name: f"{name} holds." for name in WEIGHTS},
            checks_made=made,
        ),
        "course",
    )
    return scored(verdict)


def test_gradescope_points_add_up_to_the_json_score():
    learner = _learner()
    data = ClassReport(SETTINGS, (learner,)).to_json()["learners"][0]
    results = gradescope_results(learner, "summary")
    tests = results["tests"]
    assert sum(test["score"] for test in tests) == data["score"]["earned"]
    assert results["score"] == data["score"]["earned"] == 4.0
    assert sum(test["max_score"] for test in tests) == data["score"]["possible"]
    assert {t["name"]: (t["score"], t["max_score"]) for t in tests} == {
        name: (item["credit"], item["weight"]) for name, item in data["credits"].items()
    }
    # A vacuous hold passes, for what it says, but says why it earns less.
    read_only = next(test for test in tests if test["name"] == "read-only")
    assert read_only["status"] == "passed" and read_only["score"] == 0.25
    assert "files, results, receipts" in read_only["output"]


def test_json_terminal_and_junit_say_the_same_score():
    learner = _learner()
    report = ClassReport(SETTINGS, (learner,))
    data = json.loads(report.dumps())
    assert report_problems(data) == []
    said = data["learners"][0]
    assert said["score"] == {"percent": 20.0, "earned": 4.0, "possible": 20.0}
    assert said["checks_made"] == ["final"]
    line = verdict_line(learner)
    assert "score 20.0% (4 of 20 points)" in line
    assert learner_lines(learner, "course", quiet=True) == [line]
    suite = ET.fromstring(junit_xml(report)).find("testsuite")
    properties = {
        p.get("name"): p.get("value") for p in suite.findall("properties/property")
    }
    assert properties["score"] == "20"
    assert properties["score.earned"] == "4"
    assert properties["score.possible"] == "20"
    (row,) = [line for line in class_lines(report) if line.startswith("class/ada")]
    assert row.split()[3] == "20.0"


def test_a_score_reads_back_and_a_report_without_scores_still_loads():
    learner = _learner()
    report = ClassReport(SETTINGS, (learner, _learner("class/bob", None)))
    again = ClassReport.from_json(json.loads(report.dumps()))
    assert again.to_json() == report.to_json()
    assert again.learners[0].score == learner.score
    assert again.learners[1].checks_made is None
    old = report.to_json()
    for item in old["learners"]:
        for key in ("score", "credits", "checks_made"):
            item.pop(key)
    assert report_problems(old) == []
    loaded = ClassReport.from_json(old)
    assert [v.score for v in loaded.learners] == [None, None]
    broken = json.loads(report.dumps())
    broken["learners"][0]["score"] = {"percent": "a lot"}
    with pytest.raises(SchemaError, match='"score"'):
        ClassReport.from_json(broken)


def test_without_the_probe_only_what_needs_none_earns():
    """A crashed learner: the probe runs after the last test, so it never ran."""
    crashed = replace(_learner(made=None), status="crashed")
    again = scored(crashed)
    assert again.score["earned"] == 3.0  # the six half-weight, never-vacuous ones
    assert gradescope_results(again, "s")["score"] == 3.0
    assert "did not run" in next(
        t["output"]
        for t in gradescope_results(again, "s")["tests"]
        if t["name"] == "read-only"
    )


def test_the_score_never_changes_pass_or_fail():
    learner = _learner()
    assert scored(replace(learner, status="pass")).status == "pass"
    assert scored(learner).status == "fail"
