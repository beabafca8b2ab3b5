"""One learner's suite split across cores: the split, the join, what the command reads.

`day7-verify` runs a learner's invariants as parts at once (judge/parts.py);
the verdict must be the one a single session would give: every invariant in
exactly one part, the summaries joined without losing a failure, and a part
that never said how it ended making the run incomplete, never a pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.costs import drift, median_costs, report
from day7_verify.cohort import _child, _pool
from day7_verify.reports._evidence import read_progress
from judge.ordering import INVARIANT_ORDER, rank
from judge.parts import COSTS, assign, join_summaries, parse_part

# The suite's parts and their costs are the suite's own layout: nothing of
# it is the interpreter's.
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parents[2]


# --- the split --------------------------------------------------------------------


@given(
    names=st.lists(st.sampled_from(INVARIANT_ORDER + ("unlisted",)), unique=True),
    parts=st.integers(1, 5),
    data=st.data(),
)
def test_every_invariant_is_in_exactly_one_part_whatever_the_order(names, parts, data):
    """The split puts each name in one part 1..N, and the same names in any
    order split the same way (every process computes it alone)."""
    chosen = assign(parts, names)
    assert set(chosen) == set(names)
    assert all(1 <= part <= parts for part in chosen.values())
    shuffled = data.draw(st.permutations(names), label="the same names reordered")
    assert assign(parts, shuffled) == chosen


def test_the_parts_are_balanced_by_cost():
    """No part carries more than the lightest one plus the costliest invariant
    (the greedy split's bound), so two parts take about half the time."""
    for parts in (2, 3, 4):
        chosen = assign(parts)
        loads = [
            sum(COSTS[n] for n, p in chosen.items() if p == part)
            for part in range(1, parts + 1)
        ]
        assert max(loads) - min(loads) <= max(COSTS.values()), (parts, loads)


def test_every_invariant_has_a_cost():
    """A new invariant gets a measured cost, or the split balances it blind."""
    assert set(COSTS) == set(INVARIANT_ORDER)


# --- the table's drift (benchmarks/costs.py) ----------------------------------------


@given(scale=st.floats(0.05, 20))
def test_a_machine_uniformly_faster_or_slower_is_no_drift(scale):
    """Every cost scaled alike splits the parts alike: COSTS is not stale on
    a faster or slower machine, only when the costs' proportions move."""
    measured = {name: cost * scale for name, cost in COSTS.items()}
    result = drift(measured)
    assert result.now == result.best
    assert not result.stale


def test_a_cost_that_outgrew_the_split_makes_the_table_stale():
    """One invariant grown enough to unbalance the parts is called stale, and
    the table the report offers holds the measured cost (an invariant not
    measured keeps its own)."""
    measured = {name: cost for name, cost in COSTS.items() if name != "confinement"}
    measured["stateless"] = COSTS["stateless"] * 2.5
    result = drift(measured)
    assert result.stale
    assert max(result.best) < max(result.now)
    words = "\n".join(report(result, measured))
    assert f'"stateless": {measured["stateless"]:.2f},' in words
    assert f'"confinement": {COSTS["confinement"]:.2f},' in words
    assert "confinement" in words and "not run here" in words


def test_the_median_of_each_invariant_is_over_the_runs_that_measured_it():
    runs = [{"a": 1.0, "b": 4.0}, {"a": 3.0}, {"a": 2.0, "b": 6.0}]
    assert median_costs(runs) == {"a": 2.0, "b": 5.0}


def test_the_costs_plugin_sums_each_invariants_test_durations():
    """The measuring plugin adds up setup, call and teardown of every test of
    an invariant that ran, and nothing of a test outside one: an invariant
    whose tests were all skipped (hardened-only, at the course level) is not
    measured at all, since the run's split leaves it out."""
    tests = """
import time, pytest

@pytest.fixture
def slow_setup():
    time.sleep(0.2)

@pytest.mark.invariant("one")
def test_a(slow_setup):
    time.sleep(0.1)

@pytest.mark.invariant("one")
def test_b():
    time.sleep(0.1)

@pytest.mark.invariant("two")
def test_c():
    pass

@pytest.mark.invariant("three")
@pytest.mark.skip(reason="not at this level")
def test_d():
    pass

@pytest.mark.invariant("two")
def test_e():
    pytest.skip("a test skipped inside is not run either")

def test_outside():
    time.sleep(0.3)
"""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "test_timed.py").write_text(tests, encoding="utf-8")
        (folder / "pytest.ini").write_text(
            "[pytest]\nmarkers =\n    invariant(name): one invariant\n",
            encoding="utf-8",
        )
        out = folder / "costs.json"
        env = {**os.environ, "DAY7_COSTS_OUT": str(out), "PYTHONPATH": str(ROOT)}
        _pytest("-q", "-p", "benchmarks.costs", "test_timed.py", cwd=folder, env=env)
        seconds = json.loads(out.read_text(encoding="utf-8"))
    assert set(seconds) == {"one", "two"}
    assert 0.4 <= seconds["one"] < 0.7, seconds
    assert seconds["two"] < 0.1, seconds


@pytest.mark.parametrize(
    ("text", "expected"), [("1/1", (1, 1)), ("2/2", (2, 2)), ("3/4", (3, 4))]
)
def test_a_part_is_read_as_i_of_n(text, expected):
    assert parse_part(text) == expected


@pytest.mark.parametrize("text", ["", "1", "0/2", "3/2", "a/b", "1/2/3", "-1/2"])
def test_a_malformed_part_is_one_line_naming_it(text):
    with pytest.raises(ValueError, match="part") as raised:
        parse_part(text)
    assert "\n" not in str(raised.value)


def _pytest(
    *options: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """A pytest session in its own process, without a cache; it must pass."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *options],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _collected(*options: str) -> set[str]:
    done = _pytest("tests/invariants", "--collect-only", "-q", *options)
    return {line for line in done.stdout.splitlines() if "::" in line}


def test_the_parts_of_the_suite_are_the_whole_suite_without_overlap():
    """Collected with --part 1/2 and 2/2, the tests are disjoint and together
    every test a whole run collects."""
    whole = _collected()
    first, second = _collected("--part", "1/2"), _collected("--part", "2/2")
    assert first and second
    assert not first & second
    assert first | second == whole


# --- the join ---------------------------------------------------------------------

# INCOMPLETE in a complete part: the judge's own fault left it unjudged.
_STATUSES = ("PASS", "FAIL", "SKIP", "INCOMPLETE")


def _summary(invariants: list[tuple[str, str]], complete: bool) -> dict:
    """A part's summary as tests/conftest.py writes it."""
    counted = [(n, s) for n, s in invariants if s != "SKIP"]
    holding = [n for n, s in counted if s == "PASS"]
    faulted = [n for n, s in counted if s == "INCOMPLETE"]
    failing = any(s == "FAIL" for _, s in counted)
    if not complete or (faulted and not failing):
        verdict = "INCOMPLETE"
    else:
        verdict = "PASS" if len(holding) == len(counted) else "FAIL"
    ordered = sorted(invariants, key=lambda pair: rank(pair[0]))
    return {
        "verification": verdict,
        "complete": complete,
        "stopped": "" if complete else "stopped early",
        "unfinished": [] if complete else [f"t::{ordered[0][0]}"],
        "selected": len(invariants),
        "holding": len(holding),
        "counted": len(counted),
        "failing": sum(s == "FAIL" for _, s in invariants),
        "judge_faults": sorted(faulted, key=rank) if complete else [],
        "target": "folder x",
        "level": "course",
        "missing": [],
        "hypothesis_profile": "ci",
        "invariants": [{"name": n, "status": s} for n, s in ordered],
        "lessons": [
            {"invariant": n, "cause": f"c:{n}"} for n, s in ordered if s == "FAIL"
        ],
        "probe": None,
    }


@given(
    statuses=st.lists(
        st.sampled_from(_STATUSES), min_size=1, max_size=len(INVARIANT_ORDER)
    ),
    parts=st.integers(1, 3),
    incomplete=st.sets(st.integers(1, 3)),
)
def test_joined_summaries_say_what_one_session_would(statuses, parts, incomplete):
    """The join's verdict, counts and order are those of one session over all
    the invariants: a failure anywhere fails it, an unfinished part leaves it
    incomplete (never a pass), and lessons keep the basic-first order."""
    invariants = list(zip(INVARIANT_ORDER, statuses, strict=False))
    owner = assign(parts, [name for name, _ in invariants])
    summaries = [
        _summary(
            [(n, s) for n, s in invariants if owner[n] == part],
            complete=part not in incomplete,
        )
        for part in range(1, parts + 1)
        if part in owner.values()
    ]
    joined = join_summaries(summaries)
    whole = _summary(invariants, complete=all(s["complete"] for s in summaries))
    for key in (
        "verification",
        "complete",
        "holding",
        "counted",
        "failing",
        "selected",
        "judge_faults",
    ):
        assert joined[key] == whole[key], key
    assert joined["invariants"] == whole["invariants"]
    assert joined["lessons"] == whole["lessons"]
    if any(s == "FAIL" for s in statuses) or not whole["complete"]:
        assert joined["verification"] != "PASS"
    if "INCOMPLETE" in statuses[: len(invariants)]:
        # The judge's fault is never a pass, and alone never a FAIL.
        assert joined["verification"] != "PASS"
        if "FAIL" not in statuses[: len(invariants)]:
            assert joined["verification"] == "INCOMPLETE"


def test_joining_nothing_is_refused():
    with pytest.raises(ValueError, match="no summary"):
        join_summaries([])


def _outcome(summary: dict | None, **fields: object) -> dict:
    outcome = {
        "exit_code": 0,
        "complete": True,
        "stopped": None,
        "collected": 3,
        "finished": 3,
        "unfinished": [],
        "memory_error": None,
        "outside_writes": None,
        "summary": summary,
    }
    outcome.update(fields)
    return outcome


def test_a_part_that_said_nothing_leaves_the_run_incomplete():
    """The child joins its parts: one without an outcome (it died) makes the
    whole run incomplete and its summary INCOMPLETE, so no pass is counted."""
    passing = _summary([("surface", "PASS")], complete=True)
    died = _outcome(
        None, exit_code=3, complete=False, stopped="part 2 of 2 ended", collected=0
    )
    joined = _child._joined([_outcome(passing), died])
    assert joined["complete"] is False
    assert joined["stopped"] == "part 2 of 2 ended"
    assert joined["summary"]["verification"] == "INCOMPLETE"
    assert joined["exit_code"] == 3


def test_joined_outcomes_add_up_and_keep_the_first_of_each_finding():
    first = _summary([("surface", "PASS")], complete=True)
    second = _summary([("truth", "FAIL")], complete=True)
    writes = {"test": "t::truth", "changes": ["HOME: created x"]}
    joined = _child._joined(
        [_outcome(first), _outcome(second, exit_code=1, outside_writes=writes)]
    )
    assert joined["complete"] is True
    assert joined["exit_code"] == 1
    assert joined["collected"] == 6 and joined["finished"] == 6
    assert joined["outside_writes"] == writes
    assert joined["summary"]["verification"] == "FAIL"


# --- what the command reads of the parts' progress ---------------------------------


def test_progress_from_two_parts_is_one_suite(tmp_path):
    """Each part writes its own `collected` line and its own starts: the
    command sees every test, and a test of one part still running after the
    other part finished one is what was running."""
    progress = tmp_path / "progress"
    progress.write_text(
        '{"collected": [["t::a", "surface"], ["t::b", "truth"]]}\n'
        '{"collected": [["t::c", "stateless"]]}\n'
        '{"start": "t::c"}\n'
        '{"start": "t::a"}\n'
        '{"done": "t::a"}\n',
        encoding="utf-8",
    )
    read = read_progress(progress)
    assert read.collected == [
        ("t::a", "surface"),
        ("t::b", "truth"),
        ("t::c", "stateless"),
    ]
    assert read.running == "t::c"
    assert read.invariant_of("t::c") == "stateless"


@pytest.mark.parametrize(
    ("cores", "jobs", "learners", "parts"),
    [
        (2, 2, 1, 2),  # one learner: both cores
        (2, 2, 20, 1),  # a class two at a time: a core each
        (2, 1, 20, 2),  # one at a time: both cores each
        (8, 8, 1, 4),  # never more than four parts
        (1, 1, 1, 1),
    ],
)
def test_each_learner_gets_the_cores_left_to_it(
    monkeypatch, cores, jobs, learners, parts
):
    """The command splits a learner's suite over the cores the learners judged
    at the same time leave to it, and never oversubscribes the machine."""
    monkeypatch.setattr(_pool, "default_jobs", lambda: cores)
    assert _pool.parts_per_learner(jobs, learners) == parts
