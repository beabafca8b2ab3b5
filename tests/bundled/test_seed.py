"""A run's seed (issue 26): drawn per run unless given, obeyed, and in every report.

Nothing here starts a child; the command's runs under two seeds (a replay
table recorded under one fails under another) are in
tests/bundled/test_command_seed.py.
"""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET

import pytest
from _command_schema import documented_schema, report_problems
from hypothesis import core as hypothesis_core
from hypothesis import settings
from test_target_loading import CONFTEST, LEAN, make_course

from day7_verify._cli import _judge_parser
from day7_verify.cohort._judge import SEED_LIMIT, Settings, fresh_seed
from day7_verify.reports._gradescope import gradescope_results
from day7_verify.reports._html import html_page
from day7_verify.reports._junit import junit_xml
from day7_verify.reports._report import ClassReport, LearnerVerdict, SchemaError
from day7_verify.reports._shard import merge
from day7_verify.reports._text import class_lines, learner_lines
from strategies.profiles import CI, DEV, THOROUGH, register_profiles

SETTINGS = Settings(seed=4242).to_json()


def _learner(path: str = "class/ada") -> LearnerVerdict:
    return LearnerVerdict(
        path,
        "fail",
        2.0,
        "1 of 2 invariants hold",
        (("truth", "fail"), ("surface", "pass")),
    )


def test_a_seeded_run_makes_every_profile_obey_the_seed():
    """derandomize=True ignores --hypothesis-seed, and a database replays old
    failures: a seeded run has neither, in every profile; ci unseeded stays
    derandomized (tox and CI)."""
    try:
        register_profiles(seeded=True)
        for name in (CI, DEV, THOROUGH):
            profile = settings.get_profile(name)
            assert profile.derandomize is False and profile.database is None, name
    finally:
        register_profiles()
    assert settings.get_profile(CI).derandomize is True


def test_the_seed_is_a_whole_number_and_one_per_run():
    """--seed N is kept as given; without it the command draws a fresh one."""
    assert _judge_parser().parse_args([".", "--seed", "0"]).seed == 0
    assert _judge_parser().parse_args(["."]).seed is None
    assert len({fresh_seed() for _ in range(20)}) > 1
    assert Settings(seed=SEED_LIMIT - 1).to_json()["seed"] == SEED_LIMIT - 1
    for bad in (-1, SEED_LIMIT):
        with pytest.raises(ValueError, match="seed"):
            Settings(seed=bad)


def test_a_run_without_seed_takes_the_environments_else_a_fresh_one(
    monkeypatch: pytest.MonkeyPatch, capsys
):
    """$DAY7_VERIFY_SEED (a test suite's) is the seed of a run that names
    none; without it each run draws a fresh one; a bad value is one line."""
    from day7_verify import _cli

    monkeypatch.setenv(_cli.SEED_VARIABLE, "42")
    assert _cli._default_seed() == 42
    monkeypatch.delenv(_cli.SEED_VARIABLE)
    assert len({_cli._default_seed() for _ in range(20)}) > 1
    monkeypatch.setenv(_cli.SEED_VARIABLE, "-3")
    with pytest.raises(SystemExit) as stopped:
        _cli._default_seed()
    assert stopped.value.code == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and _cli.SEED_VARIABLE in said


@pytest.mark.parametrize("text", ["-1", "x", "1.5", "", str(1 << 64)])
def test_a_bad_seed_is_one_line_and_exit_status_2(text: str, capsys):
    with pytest.raises(SystemExit) as stopped:
        _judge_parser().parse_args([".", "--seed", text])
    assert stopped.value.code == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "--seed" in said and "seed" in said


def test_every_report_carries_the_seed():
    """JSON settings, the terminal's first lines and the class table, the page,
    JUnit properties and Gradescope's extra data: a verdict is reproduced
    with `--seed`."""
    learner = _learner()
    report = ClassReport(SETTINGS, (learner,))
    data = json.loads(report.dumps())
    assert data["settings"]["seed"] == 4242
    assert report_problems(data) == []
    assert "seed" in documented_schema()["properties"]["settings"]["properties"]
    lines = learner_lines(learner, "course", isolation="sandbox", seed=4242)
    assert "day7-verify class/ada --seed 4242" in "\n".join(lines[:3])
    assert "seed 4242" in class_lines(report)[0]
    assert "seed 4242" in html_page(report)
    suite = ET.fromstring(junit_xml(report)).find("testsuite")
    properties = {
        p.get("name"): p.get("value") for p in suite.findall("properties/property")
    }
    assert properties["seed"] == "4242"
    extra = gradescope_results(learner, "s", "sandbox", 4242)["extra_data"]
    assert extra["day7_verify"]["seed"] == 4242


def test_a_report_written_before_seeds_still_loads_and_shows_none():
    old = ClassReport(SETTINGS, (_learner(),)).to_json()
    del old["settings"]["seed"]
    assert report_problems(old) == []
    loaded = ClassReport.from_json(old)
    assert "seed" not in class_lines(loaded)[0]
    assert 'name="seed"' not in junit_xml(loaded)


def test_merge_refuses_shards_judged_with_different_seeds():
    """Every learner of a class meets the same worlds: shards share one seed."""
    one = ClassReport(SETTINGS, (_learner("c/a"),))
    other = ClassReport({**SETTINGS, "seed": 7}, (_learner("c/b"),))
    assert (
        len(
            merge(
                [("a", one), ("b", ClassReport(SETTINGS, (_learner("c/b"),)))]
            ).learners
        )
        == 2
    )
    with pytest.raises(SchemaError, match="different seed"):
        merge([("a", one), ("b", other)])


_DRAWS = '''
    import pytest
    from hypothesis import given, strategies as st

    @pytest.mark.invariant("draws")
    @given(st.integers())
    def test_draws(target, n):
        """Every number drawn is written down."""
        with open("draws.txt", "a") as out:
            out.write(f"{n}\\n")
'''


def _draws(pytester: pytest.Pytester, *seed: str) -> list[str]:
    (pytester.path / "draws.txt").unlink(missing_ok=True)
    agent = str(pytester.path / "agent")
    result = pytester.runpytest(
        "--impl-path", agent, "--hypothesis-profile", "ci", *seed, *LEAN
    )
    assert result.ret == 0
    return (pytester.path / "draws.txt").read_text().split()


def test_the_ci_profile_obeys_a_seed_and_is_derandomized_without_one(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
):
    """Same seed, same examples; another seed, others; no seed, ci's own
    derandomized ones every time; and the session around it keeps its seed."""
    monkeypatch.delenv("CI", raising=False)
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    (pytester.path / "invariants").mkdir()
    (pytester.path / "invariants" / "test_draws.py").write_text(textwrap.dedent(_DRAWS))
    make_course(pytester.path)
    outer = (hypothesis_core.global_force_seed, settings.get_current_profile_name())
    try:
        one = _draws(pytester, "--hypothesis-seed", "1")
        assert _draws(pytester, "--hypothesis-seed", "1") == one
        assert _draws(pytester, "--hypothesis-seed", "2") != one
        unseeded = _draws(pytester)
        assert _draws(pytester) == unseeded != one
    finally:
        settings.load_profile(outer[1])
    assert hypothesis_core.global_force_seed == outer[0]
