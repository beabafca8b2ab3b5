"""What the command's documents promise: the JSON schema, the workflow, the wheel.

- every report the command writes fits the schema documented in
  docs/checking-a-class.md (and the check can fail);
- the GitHub Actions workflow in docs/workflows/ is well formed, shards and
  merges, and every day7-verify command it runs is valid for this version;
- an installed wheel holds the suite under day7_verify/suite and no
  top-level `tests` package.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import shlex
from dataclasses import replace
from pathlib import Path

import pytest
from _command_schema import ROOT, report_problems

from day7_verify._cli import _judge_parser, _merge_parser
from day7_verify.reports._baseline import compare
from day7_verify.reports._report import ClassReport, LearnerVerdict, Shard, lesson

WORKFLOW = ROOT / "docs" / "workflows" / "judge-a-class.yml"
SETTINGS = {
    "level": "course",
    "profile": "ci",
    "timeout": 180.0,
    "memory_mib": 2048,
    "max_output_bytes": 1 << 20,
    "isolation": "sandbox",
}


def _every_kind_of_report() -> dict:
    verdicts = (
        LearnerVerdict(
            "c/a",
            "pass",
            1.0,
            "all hold",
            (("surface", "pass"), ("truth", "skip")),
            score={"percent": 100.0, "earned": 1.0, "possible": 1.0},
        ),
        LearnerVerdict(
            "c/b",
            "timeout",
            180.2,
            "did not finish",
            (("surface", "pass"), ("truth", "timeout")),
            lessons=(lesson({"invariant": "truth", "topic": "hang", "headline": "h"}),),
            running={"test": "t", "invariant": "truth"},
            output_tail="tick",
        ),
        LearnerVerdict("c/c", "error", 0.1, "cannot be loaded", output_tail=""),
    )
    report = ClassReport(SETTINGS, verdicts, seconds=181.0, shard=Shard(1, 3, 7))
    return compare(report, replace(report, shard=None)).to_json()


def test_every_kind_of_report_fits_the_documented_schema():
    assert report_problems(_every_kind_of_report()) == []


def test_the_schema_check_can_fail():
    report = _every_kind_of_report()
    report["learners"][0]["status"] = "passed"
    del report["learners"][1]["lessons"][0]["reproduce"]
    report["summary"]["pass"] = -1
    del report["learners"][0]["score"]["earned"]
    found = report_problems(report)
    assert len(found) == 4, found


# --- the workflow -----------------------------------------------------------


def _workflow_commands(text: str) -> list[list[str]]:
    """Every day7-verify command a `run:` step runs, with sample expression values."""
    samples = {
        "matrix.shard": "2",
        "strategy.job-total": "4",
        "needs.seed.outputs.seed": "1234",
    }

    def expression(match: re.Match[str]) -> str:
        name = match.group(1).strip()
        if name not in samples:
            raise AssertionError(f"the workflow uses ${{{{ {name} }}}} in a command")
        return samples[name]

    commands = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("day7-verify "):
            continue
        line = line.split("||", 1)[0]
        line = re.sub(r"\$\{\{(.*?)\}\}", expression, line)
        line = line.replace('"$COHORT"', "learners")
        commands.append(shlex.split(line)[1:])
    return commands


def test_the_workflow_runs_only_real_options():
    text = WORKFLOW.read_text(encoding="utf-8")
    commands = _workflow_commands(text)
    assert len(commands) == 2
    judge, merge = commands
    options = _judge_parser().parse_args(judge)
    assert options.cohort == ["learners"] and options.shard == "2/4"
    assert options.json == "part-2.json"
    # Every shard one seed, drawn by the run's first job: merge refuses mixed.
    assert options.seed == 1234
    assert merge[0] == "merge"
    merged = _merge_parser().parse_args(merge[1:])
    assert merged.parts == ["parts/part-*.json"]
    assert (merged.json, merged.html, merged.junit) == (
        "class.json",
        "class.html",
        "class.xml",
    )


def test_the_workflow_shards_uploads_and_merges():
    """A matrix of shards, each uploading its part; a merge job after them all."""
    text = WORKFLOW.read_text(encoding="utf-8")
    assert "\t" not in text
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        yaml = None
    if yaml is not None:
        workflow = yaml.safe_load(text)
        jobs = workflow["jobs"]
        assert jobs["judge"]["strategy"]["matrix"]["shard"] == [1, 2, 3, 4]
        assert jobs["report"]["needs"] == "judge"
        assert jobs["judge"]["needs"] == "seed"
        assert "seed" in jobs["seed"]["outputs"]
        used = [step.get("uses", "") for step in jobs["report"]["steps"]]
        assert "actions/download-artifact@v4" in used
    # Without PyYAML, the same structure read line by line.
    assert re.search(r"^jobs:\n  seed:\n", text, re.M)
    assert re.search(r"^  judge:\n    name: .*\n    needs: seed$", text, re.M)
    assert re.search(r"^      matrix:\n        shard: \[1, 2, 3, 4\]$", text, re.M)
    assert re.search(r"^  report:\n    needs: judge$", text, re.M)
    assert text.count("uses: actions/upload-artifact@v4") == 2
    assert "pattern: day7-part-*" in text and "merge-multiple: true" in text
    assert "name: day7-part-${{ matrix.shard }}" in text
    assert "--shard ${{ matrix.shard }}/${{ strategy.job-total }}" in text


# --- the wheel ----------------------------------------------------------------


def _installed_files() -> list[str] | None:
    """The files pip installed from a wheel; None for an editable or egg-info one."""
    for distribution in importlib.metadata.distributions(name="day7-verify"):
        if distribution.read_text("RECORD") is None:
            continue  # an egg-info left in a checkout, not an installation
        files = [str(f) for f in distribution.files or ()]
        if any(f.startswith("day7_verify/") for f in files):
            return files
    return None


def test_an_installed_wheel_holds_the_suite_and_no_tests_package():
    files = _installed_files()
    if files is None:
        pytest.skip("day7-verify is not installed from a wheel here (tox installs one)")
    assert not [f for f in files if f.split("/")[0] == "tests"]
    assert "day7_verify/suite/conftest.py" in files
    shipped = {
        f.rsplit("/", 1)[1] for f in files if f.startswith("day7_verify/suite/inv")
    }
    expected = {p.name for p in (ROOT / "tests" / "invariants").glob("*.py")}
    assert expected <= shipped
    assert not [f for f in files if "bundled" in f]
    entry = [
        ep
        for ep in importlib.metadata.entry_points(group="console_scripts")
        if ep.name == "day7-verify"
    ]
    assert entry and entry[0].value == "day7_verify.__main__:main"


def test_the_packaging_maps_the_suite_under_the_command(tmp_path: Path):
    """pyproject.toml ships tests/ as day7_verify.suite, and nothing else of tests/."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    assert "tests" not in setuptools["packages"]
    assert setuptools["package-dir"] == {
        "day7_verify.suite": "tests",
        "day7_verify.suite.invariants": "tests/invariants",
    }
    assert config["project"]["scripts"]["day7-verify"] == "day7_verify.__main__:main"
    assert json.dumps(config["project"]["dependencies"]).count("pytest") == 1
