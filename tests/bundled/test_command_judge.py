"""The command end to end: real children judging hostile learner folders.

Each learner is a copy of the bundled evaluator with code planted in
`evaluate_run` (tests/bundled/_command_learners.py). The command runs as a
learner or teacher runs it, `python -m day7_verify ...` from the root of a
checkout: here a copy of this repository's suite, so the test can prove that
nothing a learner does reaches it, whatever the other helpers of a shared
work tree are doing.

Kept few and short because each starts real children: a hostile class
(every status, bounded time, files unchanged), a small class judged whole
and in two shards (merged equals whole), one learner alone, the command
stopped from outside, and usage errors. Marked `children`: the coverage run,
which measures the bundled evaluator, leaves them out.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from _command_learners import QUICK, ROOT, learner_folder
from _command_schema import report_problems

from day7_verify.cohort._bundle import manifest
from judge.ordering import HARDENED_ONLY, INVARIANT_ORDER

pytestmark = pytest.mark.children

# What a checkout holds that judges, and what a hostile learner would aim at.
_CHECKOUT = (
    "day7_verify",
    "strategies",
    "judge",
    "worker",
    "evaluator",
    "tests/conftest.py",
    "tests/invariants",
    "pyproject.toml",
    "tox.ini",
    "README.md",
)


def _digest_tree(paths: list[Path]) -> dict[str, str]:
    found: dict[str, str] = {}
    for top in paths:
        files = (
            [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        )
        for path in files:
            if "__pycache__" in path.parts:
                continue
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of this checkout's suite, the command's working directory."""
    root = tmp_path_factory.mktemp("checkout")
    for name in _CHECKOUT:
        source = ROOT / name
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(
                source, target, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(source, target)
    return root


def _command(
    checkout: Path, *args: str, timeout: float = 600
) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    environment.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-m", "day7_verify", *args],
        cwd=checkout,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _statuses(report: dict) -> dict[str, str]:
    return {
        Path(learner["path"]).name: learner["status"] for learner in report["learners"]
    }


# --- a hostile class --------------------------------------------------------

HOSTILE = {
    "clean": (),
    # Failing fast besides: the point is the writes, not a second full run.
    "rewrites": ("rewrites-cwd", "rewrites-judge", "returns-none"),
}
# Judged with a short clock, which must stop it. A loop that sleeps is the
# same hang as one that spins, without taking a core from the other tests
# for 20 s; an endless print is the same hang too (capping what it prints is
# tested in test_command_supervise.py).
HANGS = {
    "loops-for-ever": ("sleeps-for-ever",),
}
# Judged with a long clock, which none of them may need.
CRASHES = {
    "exits": ("exits",),
    "kills-itself": ("kills-itself",),
    "eats-memory": ("eats-memory",),
    "import-exits": ("import-exits",),
}


@pytest.fixture(scope="module")
def hostile_run(
    checkout: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict]:
    """The hostile learners judged, and every file that judges them before and after."""
    cohort = tmp_path_factory.mktemp("hostile")
    for name, plants in HOSTILE.items():
        learner_folder(cohort, name, *plants)
    sources = [source for source, _ in manifest().files]
    watched = [checkout, cohort, *sources]
    before = _digest_tree(watched)
    out = tmp_path_factory.mktemp("reports")
    started = time.monotonic()
    finished = _command(
        checkout,
        *QUICK,
        "--cohort",
        str(cohort),
        "--jobs",
        "2",
        "--timeout",
        "300",
        "--json",
        str(out / "class.json"),
        "--html",
        str(out / "class.html"),
        "--junit",
        str(out / "class.xml"),
    )
    seconds = time.monotonic() - started
    yield {
        "finished": finished,
        "seconds": seconds,
        "report": json.loads((out / "class.json").read_text()),
        "junit": (out / "class.xml").read_text(),
        "html": (out / "class.html").read_text(),
        "changed": sorted(
            path
            for path, digest in _digest_tree(watched).items()
            if before.get(path) != digest
        )
        + sorted(set(before) - set(_digest_tree(watched))),
    }


def test_a_clean_folder_passes_and_one_that_rewrites_its_surroundings_fails(
    hostile_run,
):
    """The honest verdicts: pass for the clean copy, fail for the one that writes."""
    report = hostile_run["report"]
    assert _statuses(report) == {"clean": "pass", "rewrites": "fail"}, hostile_run[
        "finished"
    ].stderr
    assert hostile_run["finished"].returncode == 1
    rewrites = next(x for x in report["learners"] if x["path"].endswith("rewrites"))
    assert rewrites["invariants"]["writes-nothing-outside"] == "fail"
    changed = " ".join(rewrites["lessons"][-1]["observed"].split())
    assert "the working directory: deleted README.md" in changed
    # The judge's own files (the bundle) are not in the worker's reach at all
    # under the sandbox; where there is none they may be, and are watched.


def test_nothing_that_judges_or_is_judged_changed(hostile_run):
    """The checkout, the installed packages, the learners' folders: byte-identical."""
    assert hostile_run["changed"] == []


def test_the_reports_are_readable(hostile_run):
    report = hostile_run["report"]
    assert report_problems(report) == []
    assert report["summary"] == {
        "learners": 2,
        "pass": 1,
        "fail": 1,
        "timeout": 0,
        "out-of-memory": 0,
        "crashed": 0,
        "error": 0,
    }
    root = ET.fromstring(hostile_run["junit"])
    assert len(root.findall("testsuite")) == 2
    assert "<script>" in hostile_run["html"] and "rewrites" in hostile_run["html"]
    table = hostile_run["finished"].stdout
    assert table.startswith("day7-verify: 1 of 2 learner(s) pass")
    assert "Traceback" not in table + hostile_run["finished"].stderr


def test_the_clean_folder_scores_100_and_the_one_that_writes_little(hostile_run):
    """A reference-like folder makes every check and every invariant holds."""
    learners = {
        Path(learner["path"]).name: learner
        for learner in hostile_run["report"]["learners"]
    }
    clean = learners["clean"]
    assert clean["score"] == {"percent": 100.0, "earned": 20.0, "possible": 20.0}
    assert clean["checks_made"] == ["final", "files", "results", "receipts"]
    assert learners["rewrites"]["score"]["percent"] < 25


# --- scores -----------------------------------------------------------------

# Validation, the final check and render only; one planted bug that breaks
# read-only (docs/score.md has what each scored when measured); and every
# check made only on cases of one fact a group.
SCORED = {
    "final-only": ("final-only",),
    "one-bug": ("bug:log-created-when-missing",),
    "one-fact-only": ("one-fact-only",),
}


@pytest.fixture(scope="module")
def scored_run(checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    cohort = tmp_path_factory.mktemp("scored")
    for name, plants in SCORED.items():
        learner_folder(cohort, name, *plants)
    out = tmp_path_factory.mktemp("scored-reports")
    run = _judge_cohort(
        checkout,
        cohort,
        out / "class.json",
        "--timeout",
        "300",
        "--junit",
        str(out / "class.xml"),
    )
    run["junit"] = (out / "class.xml").read_text()
    return run


def test_an_evaluator_that_checks_nothing_scores_low_and_one_bug_close_to_100(
    scored_run,
):
    """Its vacuous holds earn nothing; a bug costs only what it breaks; work
    done only on worlds like the probe's once were earns nothing more."""
    learners = {
        Path(learner["path"]).name: learner
        for learner in scored_run["report"]["learners"]
    }
    final_only, one_bug = learners["final-only"], learners["one-bug"]
    assert final_only["checks_made"] == ["final"], final_only["detail"]
    held = [
        name for name, status in final_only["invariants"].items() if status == "pass"
    ]
    assert len(held) >= 12 and "read-only" in held and "determinism" in held
    assert final_only["score"]["percent"] <= 25
    # Issue 37, item 4: every check made only on cases of one fact a group
    # (as the probe's worlds once all were) scores what its final-only twin
    # does, no more (55.0% to 21.2% when the probe's worlds were such).
    cheat = learners["one-fact-only"]
    assert cheat["checks_made"] == ["final"], cheat["detail"]
    assert cheat["score"]["percent"] <= final_only["score"]["percent"]
    assert one_bug["status"] == "fail"
    assert one_bug["checks_made"] == ["final", "files", "results", "receipts"]
    assert one_bug["score"]["percent"] >= 85


def test_the_terminal_and_junit_say_the_json_score(scored_run):
    stderr = scored_run["finished"].stderr
    suites = {
        Path(suite.get("name")).name: suite
        for suite in ET.fromstring(scored_run["junit"]).findall("testsuite")
    }
    for learner in scored_run["report"]["learners"]:
        name = Path(learner["path"]).name
        score = learner["score"]
        line = next(line for line in stderr.splitlines() if learner["path"] in line)
        assert f"score {score['percent']:.1f}%" in line
        properties = {
            p.get("name"): p.get("value")
            for p in suites[name].findall("properties/property")
        }
        assert float(properties["score"]) == score["percent"]
        assert float(properties["score.earned"]) == score["earned"]
        assert sum(c["credit"] for c in learner["credits"].values()) == score["earned"]


def _judge_cohort(checkout: Path, cohort: Path, out: Path, *options: str) -> dict:
    started = time.monotonic()
    finished = _command(
        checkout, "--cohort", str(cohort), "--jobs", "2", "--json", str(out), *options
    )
    return {
        "finished": finished,
        "seconds": time.monotonic() - started,
        "report": json.loads(out.read_text()),
    }


@pytest.fixture(scope="module")
def hang_run(checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    hangs = tmp_path_factory.mktemp("hangs")
    for name, plants in HANGS.items():
        learner_folder(hangs, name, *plants)
    crashes = tmp_path_factory.mktemp("crashes")
    for name, plants in CRASHES.items():
        learner_folder(crashes, name, *plants)
    out = tmp_path_factory.mktemp("hang-reports")
    return {
        # Long enough to reach evaluate_run on a busy machine, where each hangs.
        "hangs": _judge_cohort(
            checkout, hangs, out / "hangs.json", "--timeout", "20", *QUICK
        ),
        "crashes": _judge_cohort(
            checkout,
            crashes,
            out / "crashes.json",
            "--timeout",
            "120",
            "--memory",
            "700M",
            *QUICK,
        ),
    }


def test_every_misbehaviour_gets_its_status_in_bounded_time(hang_run):
    """Loop, endless print, exit, signal, memory, exit at import: never a pass."""
    hangs, crashes = hang_run["hangs"], hang_run["crashes"]
    # The command's clock stops it, unless the suite's own bound on each call
    # into the target fails every call first: a fail that says it hung.
    [loops] = hangs["report"]["learners"]
    assert loops["status"] in ("timeout", "fail"), hangs["finished"].stderr
    if loops["status"] == "fail":
        assert any(lesson["topic"] == "hang" for lesson in loops["lessons"])
    # A worker that dies ends only the call that killed it: the judge starts
    # another and every invariant is judged, those calls failing as crashes.
    assert _statuses(crashes["report"]) == {
        "exits": "fail",
        "kills-itself": "fail",
        "eats-memory": "out-of-memory",
        "import-exits": "error",
    }, crashes["finished"].stderr
    for run in (hangs, crashes):
        assert run["finished"].returncode == 1
        assert report_problems(run["report"]) == []
    # Stopped by the clock (20 s) with little delay.
    assert hangs["seconds"] < 45
    for learner in hangs["report"]["learners"]:
        assert learner["seconds"] < 30, learner


def test_a_crash_says_what_was_running_and_a_timeout_where_it_hung(hang_run):
    learners = {
        Path(x["path"]).name: x
        for run in hang_run.values()
        for x in run["report"]["learners"]
    }
    exits = learners["exits"]
    said = " ".join(lesson["headline"] for lesson in exits["lessons"])
    assert "crashed the process it ran in" in said
    assert "exited with status 0 while evaluate_run" in said
    assert any(lesson["topic"] == "crash" for lesson in exits["lessons"])
    # Marked a crash where the worker died, never a wrong verdict.
    assert exits["invariants"]["report-shape"] == "crashed"
    assert "fail" not in exits["invariants"].values()
    killed = " ".join(x["headline"] for x in learners["kills-itself"]["lessons"])
    assert "SIGSEGV" in killed
    loops = learners["loops-for-ever"]
    if loops["status"] == "timeout" and loops["running"] is not None:
        assert loops["invariants"][loops["running"]["invariant"]] == "timeout"
    elif loops["status"] == "timeout":
        # Its parts ran every test (each hang bounded) before the clock: the
        # detail says what was left running.
        assert "after its last test" in loops["detail"], loops["detail"]
    assert learners["import-exits"]["detail"].startswith("the folder cannot be loaded")
    assert "out of memory (the limit is 700 MiB)" in learners["eats-memory"]["detail"]


def test_every_learner_lists_the_levels_invariants_crashed_or_not(hang_run):
    """os._exit at evaluate_run, a signal, memory: each JSON verdict has
    exactly the course level's invariants, in order; an import that exits is
    an error, which lists none (nothing was judged: issue 36, no row per
    invariant that never ran)."""
    expected = [*INVARIANT_ORDER, "writes-nothing-outside"]
    for learner in hang_run["crashes"]["report"]["learners"]:
        if learner["status"] == "error":
            assert learner["invariants"] == {}, learner["path"]
            continue
        assert list(learner["invariants"]) == expected, learner["path"]
        skipped = {n for n, s in learner["invariants"].items() if s == "skip"}
        assert skipped == HARDENED_ONLY, learner["path"]


# --- a class judged whole and in shards -------------------------------------

SMALL_CLASS = {
    "returns-none": ("returns-none",),
    "interrupts": ("interrupts",),
    "import-fails": ("import-fails",),
}


def _without_timings(report: dict) -> dict:
    report = {
        key: value for key, value in report.items() if key not in ("seconds", "shard")
    }
    report["learners"] = [
        {k: v for k, v in learner.items() if k != "seconds"}
        for learner in report["learners"]
    ]
    return report


def test_shards_merged_equal_the_whole_class_judged_at_once(checkout, tmp_path):
    """Two shards judged apart and merged give the unsharded report, timings aside.

    Every learner is judged twice here (whole, then in its shard), so this is
    also the check that the same folder gets the same verdicts twice with the
    same seed (one seed for the whole class, every shard given it).
    """
    cohort = tmp_path / "class"
    for name, plants in SMALL_CLASS.items():
        learner_folder(cohort, name, *plants)
    whole = tmp_path / "whole.json"
    run = _command(
        checkout,
        *QUICK,
        "--cohort",
        str(cohort),
        "--jobs",
        "2",
        "--json",
        str(whole),
        "--timeout",
        "120",
        "--seed",
        "2026",
    )
    assert run.returncode == 1, run.stderr
    statuses = _statuses(json.loads(whole.read_text()))
    # A KeyboardInterrupt from evaluate_run either stops the run (crashed) or,
    # where the suite bounds each call into the target, fails its invariants.
    assert statuses.pop("interrupts") in ("crashed", "fail")
    assert statuses == {"returns-none": "fail", "import-fails": "error"}
    parts = []
    for index in (1, 2):
        part = tmp_path / f"part{index}.json"
        run = _command(
            checkout,
            *QUICK,
            "--cohort",
            str(cohort),
            "--shard",
            f"{index}/2",
            "--json",
            str(part),
            "--timeout",
            "120",
            "--seed",
            "2026",
        )
        assert run.returncode == 1, run.stderr
        parts.append(str(part))
        assert len(json.loads(part.read_text())["learners"]) == (2, 1)[index - 1]
    merged = tmp_path / "merged.json"
    run = _command(
        checkout,
        "merge",
        *parts,
        "--json",
        str(merged),
        "--html",
        str(tmp_path / "merged.html"),
    )
    assert run.returncode == 1, run.stderr
    assert _without_timings(json.loads(merged.read_text())) == _without_timings(
        json.loads(whole.read_text())
    )
    again = _command(checkout, "merge", parts[0], "--json", str(tmp_path / "x.json"))
    assert again.returncode == 2 and again.stderr.count("\n") == 1
    assert "shard 2/2 is missing" in again.stderr


def test_one_learner_reads_its_verdict_first_and_no_traceback(checkout, tmp_path):
    folder = learner_folder(tmp_path, "agent", "sys-exit")
    run = _command(checkout, str(folder), "--timeout", "120", *QUICK)
    assert run.returncode == 1, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith(f"day7-verify: FAIL  {folder}: ")
    assert "invariants hold" in lines[0]
    assert "What to fix, most basic first:" in run.stdout
    assert "SystemExit" in run.stdout
    assert "Traceback" not in run.stdout + run.stderr


def test_the_bundled_evaluator_passes_the_hardened_level_as_the_command_judges_it(
    checkout, tmp_path
):
    """The hardened level through the command: the judge's own child can
    build the 4 GiB sparse worlds (its file-size limit is the judge's, not
    the worker's 256 MiB), so the bundled evaluator holds every invariant,
    and the seed line reproduces at that level."""
    run = _command(
        checkout, "evaluator", "--level", "hardened", "--seed", "7", "--timeout", "300"
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert run.stdout.startswith("day7-verify: PASS  evaluator: all 28 invariants")
    assert "`day7-verify evaluator --level hardened --seed 7`" in run.stdout


def test_a_pass_is_counted_from_the_levels_invariants_not_claimed(checkout, tmp_path):
    """A folder that turns the judge's search off at import gets no pass.

    Its properties draw nothing and the child's summary calls them not
    judged; the command counts the level's invariants itself, so each is
    `incomplete` and the learner fails, with all of them counted.
    """
    folder = learner_folder(tmp_path, "agent", "no-phases")
    out = tmp_path / "report.json"
    run = _command(
        checkout, str(folder), "--timeout", "120", "--json", str(out), *QUICK
    )
    assert run.returncode == 1, run.stdout + run.stderr
    (learner,) = json.loads(out.read_text(encoding="utf-8"))["learners"]
    # The judge's Hypothesis is not even importable where the learner's code
    # runs (the worker): the folder cannot load, which is no pass either.
    assert learner["status"] == "error", learner["detail"]
    assert "No module named 'hypothesis'" in learner["detail"]


# --- the command stopped from outside ---------------------------------------


def _judges_running(scratch: Path) -> list[int]:
    """Live processes running a child script from under `scratch`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if str(scratch) in command and "day7_child.py" in command and state != "Z":
            found.append(int(entry.name))
    return found


def _until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["TERM", "KILL"])
def test_a_stopped_command_leaves_no_judge_running(checkout, tmp_path, how):
    """Cancelled (TERM) or killed (KILL), the command takes its children with it."""
    folder = learner_folder(tmp_path, "agent", "sleeps-for-ever")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "day7_verify",
            str(folder),
            "--timeout",
            "600",
            "--scratch",
            str(scratch),
        ],
        cwd=checkout,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert _until(lambda: _judges_running(scratch), 60), "no child started"
        process.send_signal(how)
        process.wait(timeout=30)
        assert _until(lambda: not _judges_running(scratch), 10), _judges_running(
            scratch
        )
    finally:
        process.kill()
        process.wait()
        for leader in _judges_running(scratch):  # each child leads its own group
            os.killpg(leader, signal.SIGKILL)
    # Nothing of the learner's is left in the scratch directory, the suite's
    # worlds included, even when the child was killed in the middle of a test.
    if how == signal.SIGTERM:
        assert process.returncode == 130
        assert "interrupted" in process.stderr.read()
        assert list(scratch.iterdir()) == []  # and it cleaned up after itself


# --- usage errors -----------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ((), "name at least one PATH"),
        (("/no/such/folder",), "no such file or directory"),
        (("--shard", "3/2", "."), "--shard 3/2"),
        (("--memory", "lots", "."), "not a size"),
        (("--json", "/no/such/dir/x.json", "."), "no directory"),
        (("--json", "/proc/x.json", "."), "--json /proc/x.json: cannot write it"),
        (("pyproject.toml",), "pyproject.toml: not a folder"),
        (("merge", "a.json", "./a.json", "--json", "x.json"), "a.json is given twice"),
        (("--baseline", "/no/such.json", "."), "--baseline"),
        (("merge", "/no/such.json", "--json", "x.json"), "part /no/such.json"),
        (("--frobnicate",), "unrecognized arguments"),
        (("--seed", "-1", "."), "--seed"),
        (("--seed", "soon", "."), "not a seed"),
    ],
)
def test_bad_usage_is_one_line_and_exit_status_2(checkout, arguments, said):
    run = _command(checkout, *arguments, timeout=60)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1 and said in run.stderr, run.stderr


def test_gradescope_refuses_more_than_one_learner(checkout, tmp_path):
    a = learner_folder(tmp_path, "a")
    b = learner_folder(tmp_path, "b")
    run = _command(checkout, str(a), str(b), "--gradescope", str(tmp_path / "r.json"))
    assert run.returncode == 2 and "one submission" in run.stderr
