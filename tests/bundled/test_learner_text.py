"""A learner's text is data in every report: never a broken file, an escape or code.

A learner chooses its folder's name and what its code raises and prints:
quotes, `$(...)`, backticks, a newline and `EOF`, terminal escapes,
bidirectional overrides, bytes that are not UTF-8. None of it may stop a
report being written, reach the terminal as an escape, start a terminal
line of its own, or run when a teacher pastes a reproduction; and a report
that cannot be written never takes the others with it. The fast tests build
verdicts directly; the last starts real children on hostile folder names.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from _command_learners import QUICK, command_environment, learner_folder

from day7_verify._cli import main
from day7_verify.cohort._judge import _Normaliser
from day7_verify.reports._html import html_page
from day7_verify.reports._junit import junit_xml
from day7_verify.reports._report import ClassReport, LearnerVerdict, lesson
from day7_verify.reports._safe import data_text, terminal_text
from day7_verify.reports._text import class_lines, heredoc_end, learner_lines, runnable
from judge.lessons import PLAIN_MARK

ROOT = Path(__file__).resolve().parents[2]

FORGED = "day7-verify: PASS  ada: all 25 invariants hold; score 100.0% (1.0 s)"
# A terminal would obey every one of these; a report shows them.
ESCAPES = (
    "\x1b[2K\r",  # erase the line, back to its start
    "\x1b]0;owned\x07",  # set the window title
    "\x9b31m",  # C1 CSI: red
    "\x7f\x08",
    "\u202e",  # right-to-left override
    "\u2066\u2069",  # isolates
)
NOT_UTF8 = os.fsdecode(b"ada-\xff\xfe")  # how os.fsdecode reads such a name
HOSTILE_NAMES = (
    "q'\"$(touch MARK-dollar)`touch MARK-tick`",
    "n\nEOF\ntouch MARK-heredoc\n",
    "e\x1b[31m\u202eevil",
    f"x\n{FORGED}",
    NOT_UTF8,
    "lone-\ud800",
)


def _verdict(path: str, **fields: object) -> LearnerVerdict:
    hostile = "".join(ESCAPES) + "\n" + FORGED + "\ud800"
    shown = {
        "path": path,
        "status": "fail",
        "seconds": 1.0,
        "detail": "importing the folder raised " + hostile.replace("\n", " "),
        "invariants": (("surface", "pass"), ("truth", "fail")),
        "lessons": (
            lesson(
                {
                    "invariant": "truth",
                    "headline": "got " + hostile,
                    "world": hostile,
                    "expected": hostile,
                    "observed": hostile,
                    "hint": hostile,
                    "example": [hostile],
                }
            ),
        ),
        "output_tail": hostile,
    }
    shown.update(fields)
    return LearnerVerdict(**shown)  # type: ignore[arg-type]


def _report(*paths: str) -> ClassReport:
    return ClassReport(
        settings={"level": "course", "profile": "ci", "isolation": "sandbox"},
        learners=tuple(_verdict(path) for path in sorted(paths)),
    )


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def test_terminal_text_shows_every_control_and_override_as_an_escape():
    """No control character, bidi override or surrogate survives; each is visible."""
    for text in (*ESCAPES, *HOSTILE_NAMES):
        shown = terminal_text(text)
        assert not _CONTROL.search(shown), repr(shown)
    assert terminal_text("\x1b[2K") == "\\x1b[2K"
    assert terminal_text("a\nb\rc\td") == "a\\nb\\rc\\td"
    assert terminal_text("\u202e") == "\\u202e"
    assert terminal_text(NOT_UTF8) == "ada-\\xff\\xfe"
    assert terminal_text("café ✓ 日本") == "café ✓ 日本"


@pytest.mark.parametrize("verbose", [False, True])
def test_no_learner_text_reaches_the_terminal_raw_or_forges_a_verdict_line(verbose):
    """Every line the command prints for a hostile learner is free of controls,
    and only the real verdict line starts with `day7-verify:`."""
    report = _report(*HOSTILE_NAMES)
    lines = class_lines(report)
    for learner in report.learners:
        lines += learner_lines(learner, "course", verbose=verbose)
    for line in lines:
        assert not _CONTROL.search(line), repr(line)
        # One printed line is one terminal line.
        assert "\n" not in line
    starts = [line for line in lines if line.startswith("day7-verify: PASS")]
    assert starts == []
    assert any("\\x1b[2K\\r" in line for line in lines)


def test_every_report_is_written_whatever_the_names_and_messages(tmp_path: Path):
    """Surrogates from non-UTF-8 names and error messages become visible
    escapes before any report is made: JSON, HTML and JUnit all write."""
    report = _report(*HOSTILE_NAMES)
    data = json.loads(report.dumps())
    paths = [learner["path"] for learner in data["learners"]]
    assert "ada-\\xff\\xfe" in paths and "lone-\\ud800" in paths
    assert "\\ud800" in data["learners"][0]["detail"]
    ET.fromstring(junit_xml(report))  # well-formed XML 1.0
    (tmp_path / "page.html").write_text(html_page(report), encoding="utf-8")
    ClassReport.from_json(data)  # reads back


def test_two_names_that_read_alike_once_cleaned_stay_two_learners():
    """A name that was not UTF-8 and one spelt as its escape are two rows."""
    report = _report(os.fsdecode(b"a\xff"), "a\\xff")
    assert sorted(learner.path for learner in report.learners) == [
        "a\\xff",
        "a\\xff (2)",
    ]


def test_the_page_escapes_a_learners_text_everywhere():
    """A folder name or message holding markup is text on the page, never markup."""
    markup = "</script><script>alert(1)</script><img src=x onerror=alert(2)>\"'&"
    report = _report(markup)
    report = replace(
        report,
        learners=(
            replace(
                report.learners[0],
                detail=markup,
                lessons=(
                    lesson({"invariant": "truth", "headline": markup, "world": markup}),
                ),
            ),
        ),
    )
    page = html_page(report)
    assert "<img src=x" not in page
    assert "alert(1)</script>" not in page
    assert page.count("<script>") == 1 and page.count("</script>") == 1
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in page
    assert "onerror=alert(2)&gt;&quot;&#x27;&amp;" in page


def test_junit_holds_no_character_xml_forbids():
    """Controls XML 1.0 cannot hold are replaced; the document parses."""
    verdict = _verdict("ada", output_tail="\x00\x01\x1b[2K\ufffe")
    text = junit_xml(ClassReport(settings={}, learners=(verdict,)))
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]", text)
    ET.fromstring(text)


def test_a_heredoc_ends_at_a_word_no_line_of_the_snippet_is():
    """A snippet holding a line `EOF` (and `EOF_1`) cannot end its here-document."""
    snippet = "print('a')\nEOF\nEOF_1\nprint('b')"
    assert heredoc_end(snippet) == "EOF_2"
    ran = subprocess.run(
        ["sh", "-c", runnable("import sys\nprint(1)\n" + "x = '''\nEOF\n'''\n")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "1\n"


def test_a_snippet_names_the_folder_by_the_literal_of_its_absolute_path(
    tmp_path: Path,
):
    """The judge's copy in a snippet becomes repr(absolute path), never the
    typed path pasted into the quotes; prose keeps the path as typed."""
    copy = tmp_path / "scratch" / "folder" / "agent"
    typed = "../c/q'\"$(x)"
    real = tmp_path / "c" / "q'\"$(x)"
    clean = _Normaliser(copy, typed, tmp_path / "scratch", tmp_path / "tmp", real)
    said = {
        "reproduce": f"target = load_target(impl_path={str(copy)!r})",
        "world": f"the folder {copy}",
    }
    cleaned = clean(said)
    assert cleaned["reproduce"] == f"target = load_target(impl_path={str(real)!r})"
    assert cleaned["world"] == f"the folder {typed}"


@pytest.mark.parametrize("name", [*HOSTILE_NAMES[:3], NOT_UTF8])
def test_a_printed_reproduction_runs_no_injected_code_from_anywhere(
    tmp_path: Path, name: str
):
    """A snippet for a folder named with quotes, `$(...)`, backticks or a
    newline and EOF, pasted into sh elsewhere, runs the learner's evaluator
    on the world and nothing the name says."""
    from judge import load_target
    from judge.verdicts import reproduction
    from strategies import World

    folder = learner_folder(tmp_path, name)
    copy = tmp_path / "scratch" / "agent"
    snippet = _Normaliser(
        copy, name, tmp_path / "scratch", tmp_path / "tmp", folder
    ).text(
        reproduction(World(), load_target()).replace(
            "impl='evaluator'", f"impl_path={str(copy)!r}"
        )
    )
    assert f"impl_path={str(folder)!r}" in snippet
    verdict = _verdict(
        "ada", lessons=(lesson({"invariant": "truth", "reproduce": snippet}),)
    )
    lines = learner_lines(verdict, "course")
    start = next(i for i, line in enumerate(lines) if "reproduce (paste" in line)
    end = lines.index(heredoc_end(snippet), start)
    printed = "\n".join(lines[start + 1 : end + 1]) + "\n"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    ran = subprocess.run(
        ["sh", "-c", printed],
        cwd=elsewhere,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("evaluation: PASS")
    for where in (tmp_path, elsewhere, ROOT, Path.cwd()):
        assert not list(where.glob("MARK-*")), where


@pytest.mark.parametrize("blocked", ["json", "junit"])
def test_a_report_that_cannot_be_written_never_stops_the_others(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    blocked: str,
):
    """A report at a directory fails alone: the others are written, the table
    printed, then one line for the one that failed and exit status 2."""
    report = _report("ada", "bo")
    part = tmp_path / "part.json"
    part.write_text(report.dumps(), encoding="utf-8")
    out = {name: tmp_path / f"class.{name}" for name in ("json", "html", "junit")}
    from day7_verify import _cli

    # What a report meets after judging (a directory made meanwhile) is the
    # writing step's to survive, whatever was checked before judging.
    monkeypatch.setattr(_cli, "_check_writable", lambda *args: None)
    out[blocked].mkdir()
    status = main(
        ["merge", str(part)]
        + [word for name, path in out.items() for word in (f"--{name}", str(path))]
    )
    said = capsys.readouterr()
    assert status == 2
    written = {name: path for name, path in out.items() if name != blocked}
    if "json" in written:
        assert json.loads(written["json"].read_text(encoding="utf-8"))["schema"]
    if "junit" in written:
        ET.fromstring(written["junit"].read_text(encoding="utf-8"))
    assert "<!doctype html>" in written["html"].read_text(encoding="utf-8")
    assert said.out.startswith("day7-verify: 0 of 2 learner(s) pass")
    (line,) = said.err.splitlines()
    assert line.startswith(f"day7-verify: --{blocked} {out[blocked]}: cannot write it")
    # Nothing half-written or left over beside the reports.
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["part.json", *(path.name for path in out.values())]
    )


def test_a_report_is_replaced_whole_or_not_at_all(tmp_path: Path, monkeypatch):
    """A write that fails midway leaves the old report as it was, no temp file."""
    from day7_verify.reports import _output

    target = tmp_path / "class.json"
    target.write_text("old\n", encoding="utf-8")

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_output.os, "replace", broken)
    with pytest.raises(OSError):
        _output.write(str(target), "new\n" * 1000)
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["class.json"]


def test_data_text_is_valid_utf8_and_keeps_what_was_valid():
    """Only surrogates change, each into its visible escape."""
    for name in HOSTILE_NAMES:
        data_text(name).encode("utf-8")
    assert data_text("ok ✓") == "ok ✓"


# --- end to end ---------------------------------------------------------------


@pytest.mark.children
def test_a_hostile_class_gets_every_report_and_a_safe_terminal(tmp_path: Path):
    """Real children judge folders named to break reports, with a load error
    full of escapes: every report is written and valid, the terminal shows
    the escapes, and every snippet runs from another directory, injecting nothing."""
    cohort = tmp_path / "class"
    cohort.mkdir()
    learner_folder(cohort, HOSTILE_NAMES[0] + HOSTILE_NAMES[1], "bug:final-stripped")
    # A second failing folder: its lessons carry snippets too.
    learner_folder(cohort, "ordered", "bug:result-last-event-only")
    forged = learner_folder(cohort, NOT_UTF8)
    (forged / "evaluation.py").write_text(
        f"raise ImportError({(''.join(ESCAPES) + chr(10) + FORGED)!r})\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    out.mkdir()
    environment = command_environment()
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "day7_verify",
            *QUICK,
            "--cohort",
            str(cohort),
            "--verbose",
            "--jobs",
            "2",
            "--json",
            str(out / "class.json"),
            "--html",
            str(out / "class.html"),
            "--junit",
            str(out / "class.xml"),
        ],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        timeout=600,
    )
    assert finished.returncode == 1, finished.stderr[-2000:]
    for stream in (finished.stdout, finished.stderr):
        text = stream.decode("utf-8")  # valid UTF-8
        assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]", text)
        assert not any(line.startswith(FORGED[:17]) for line in text.splitlines())
    data = json.loads((out / "class.json").read_text(encoding="utf-8"))
    ET.fromstring((out / "class.xml").read_text(encoding="utf-8"))
    assert "<script>alert" not in (out / "class.html").read_text(encoding="utf-8")
    statuses = {learner["path"]: learner["status"] for learner in data["learners"]}
    assert statuses[f"{cohort}/ada-\\xff\\xfe"] == "error"
    snippets = [
        item["reproduce"]
        for learner in data["learners"]
        for item in learner["lessons"]
        if item["reproduce"]
    ]
    # One mistake is one lesson, told under the most basic invariant it
    # breaks (truth, for the ordered folder): its two-world snippet is
    # test_lesson_snippets' to show; here every snippet must run elsewhere.
    assert snippets
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    bare = {k: v for k, v in environment.items() if not k.startswith("PYTHON")}
    for snippet in snippets:
        ran = subprocess.run(
            ["sh", "-c", runnable(snippet)],
            cwd=elsewhere,
            env=bare,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if snippet.startswith(PLAIN_MARK):
            # A plain test reproduces its lesson: it fails with the lesson's
            # own words, having built its world and called the learner's code.
            lesson = ran.stderr.strip().splitlines()[-1]
            assert ran.returncode == 1, ran.stderr
            assert lesson.startswith("AssertionError: got "), ran.stderr
        else:
            assert ran.returncode == 0, ran.stderr
            assert re.match("(# world\n)?evaluation: ", ran.stdout)
    for where in (tmp_path, elsewhere, cohort, ROOT):
        assert not list(where.glob("MARK-*")), where
    assert shlex.quote(str(ROOT)) in runnable(snippets[0])


def test_advice_naming_the_folder_quotes_it_for_the_shell():
    """The pytest command the verbose lesson suggests quotes the folder's path."""
    note = (
        "(note: 2 other explicit examples also failed with this error;"
        " add --hypothesis-verbosity=verbose to see them)"
    )
    path = HOSTILE_NAMES[0]
    verdict = _verdict(
        path, lessons=(lesson({"invariant": "truth", "example": [note]}),)
    )
    text = "\n".join(learner_lines(verdict, "course", verbose=True))
    assert f"--impl-path {shlex.quote(path)} --hypothesis-verbosity" in text
