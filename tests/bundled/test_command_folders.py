"""Learner folders are what they say, every folder is a row, no run is lost.

Which folders the command judges (day7_verify/cohort/_discover.py), how it copies
one (day7_verify/cohort/_judge.py), and the report paths it checks before judging
and writes after (day7_verify/_cli.py). Nothing here starts a child: the
command runs in this process with its judging replaced by the judge's own
early answer for folders that cannot be loaded.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from dataclasses import replace
from pathlib import Path, PurePosixPath

import pytest

from day7_verify import _cli
from day7_verify.cohort._discover import (
    Learner,
    UsageError,
    cohort,
    learner_at,
    named_again,
    unique,
)
from day7_verify.cohort._judge import (
    Judged,
    Settings,
    _Budget,
    _copy_file,
    _copy_folder,
    _unloadable,
    judge,
)

# --- finding learners -------------------------------------------------------


def _agent(folder: Path, text: str = "x = 1\n") -> Path:
    folder.mkdir(parents=True)
    (folder / "evaluation.py").write_text(text)
    return folder


def _rows(learners: list[Learner], root: Path) -> dict[str, str | None]:
    return {
        os.path.relpath(learner.path, root): learner.problem for learner in learners
    }


def test_a_path_that_is_a_link_is_an_error_row_never_the_folder_it_points_to(
    tmp_path: Path,
):
    """A PATH that is a symbolic link is judged `error` saying where it
    points, and is never merged with the folder it points to."""
    ada = _agent(tmp_path / "ada")
    (tmp_path / "eve").symlink_to("ada")
    eve = learner_at(str(tmp_path / "eve"))
    assert eve.problem is not None
    assert "symbolic link to ada" in eve.problem and "\n" not in eve.problem
    assert learner_at(str(ada)).problem is None
    both = unique([learner_at(str(tmp_path / "eve")), learner_at(str(ada))])
    assert [learner.path for learner in both] == [str(ada), str(tmp_path / "eve")]
    verdict = judge(eve, Settings(), None, tmp_path).verdict  # type: ignore[arg-type]
    assert (verdict.status, verdict.detail) == ("error", eve.problem)


def test_a_link_target_is_shown_on_one_line(tmp_path: Path):
    """What a link points to is the learner's text: a line break in it is
    escaped, so the row's reason stays one line."""
    (tmp_path / "eve").symlink_to("a\nFORGED: pass")
    problem = learner_at(str(tmp_path / "eve")).problem
    assert problem is not None and "\n" not in problem and "\\n" in problem


@pytest.mark.parametrize(
    "linked", ["src", "src/tiny_llm", "src/tiny_llm/agent"], ids=lambda p: p
)
def test_a_checkout_reaching_its_agent_through_a_link_is_an_error_row(
    tmp_path: Path, linked: str
):
    """A checkout whose src, src/tiny_llm or src/tiny_llm/agent is a link is
    `error`, named by the link, from a PATH and from a cohort alike."""
    _agent(tmp_path / "ada" / "src" / "tiny_llm" / "agent")
    bob = tmp_path / "class" / "bob"
    real = tmp_path / "ada" / linked
    (bob / linked).parent.mkdir(parents=True)
    (bob / linked).symlink_to(real)
    named = (
        learner_at(str(bob)),
        # An agent folder named inside its checkout (a glob of
        # class/*/src/tiny_llm/agent): the links before it are the learner's.
        learner_at(str(bob / "src" / "tiny_llm" / "agent")),
        *cohort(str(tmp_path / "class")),
    )
    for learner in named:
        assert learner.path == f"{bob}/src/tiny_llm/agent"
        assert learner.problem is not None
        assert f"{linked} in the checkout is a symbolic link to {real}" in (
            learner.problem
        )


def test_a_link_in_a_cohort_is_its_own_error_row_and_the_classmate_keeps_theirs(
    tmp_path: Path,
):
    """Under --cohort a link to a classmate's folder (sorted before it or
    after it) is an `error` row, and the classmate is still judged as
    themselves: no learner vanishes and none passes on another's code."""
    root = tmp_path / "class"
    _agent(root / "ada" / "agent")
    (root / "aaron").symlink_to("ada/agent")
    (root / "zed").symlink_to(root / "ada")
    (root / "gone").symlink_to("nowhere")
    _agent(root / "group" / "cy")
    # Deeper than ROOT, a link matters only when a learner is behind it.
    (root / "group" / "lib64").mkdir()
    (root / "group" / "lib").symlink_to("lib64")
    # The only way to an agent folder in a submission is a link: its row.
    _agent(root / "dee-real")
    (root / "dee" / "src").mkdir(parents=True)
    (root / "dee" / "src" / "agent").symlink_to(root / "dee-real")
    # A link beside the agent folder it leads to: two agent folders in one
    # submission, which is one row saying so (docs/checking-a-class.md).
    _agent(root / "eve" / "cy")
    (root / "eve" / "cy-again").symlink_to("cy")
    (root / "notes.txt").write_text("a file beside the learners")
    (root / "notes").symlink_to("notes.txt")
    rows = _rows(unique(cohort(str(root))), root)
    assert sorted(rows) == [
        "aaron",
        "ada/agent",
        "dee-real",
        "dee/src/agent",
        "eve",
        "gone",
        "group/cy",
        "zed",
    ]
    assert rows["ada/agent"] is None and rows["group/cy"] is None
    for linked in ("aaron", "zed", "gone", "dee/src/agent"):
        assert "is a symbolic link to" in str(rows[linked]), linked
    assert "it holds 2 agent folders (cy, cy-again); keep one" in str(rows["eve"])


def test_the_teachers_own_root_or_path_may_pass_through_a_link(tmp_path: Path):
    """Links leading to ROOT or to a PATH are the teacher's: ROOT itself a
    link, or a PATH below a linked folder, is judged as usual."""
    _agent(tmp_path / "real" / "ada" / "agent")
    (tmp_path / "class").symlink_to("real")
    learners = cohort(str(tmp_path / "class"))
    assert [(learner.path, learner.problem) for learner in learners] == [
        (f"{tmp_path}/class/ada/agent", None)
    ]
    assert learner_at(str(tmp_path / "class" / "ada" / "agent")).problem is None


def test_every_folder_under_the_root_is_a_row(tmp_path: Path):
    """A folder directly under ROOT with no learner in it (empty, or only
    other files) is an `error` row saying why; files beside the learners,
    hidden folders and a zip's __MACOSX are not rows."""
    root = tmp_path / "class"
    _agent(root / "ada")
    (root / "empty").mkdir()
    (root / "notes" / "deep" / "er").mkdir(parents=True)
    (root / "notes" / "todo.txt").write_text("")
    (root / "grades.csv").write_text("")
    (root / ".cache").mkdir()
    (root / "__MACOSX").mkdir()
    rows = _rows(cohort(str(root)), root)
    assert sorted(rows) == ["ada", "empty", "notes"]
    assert rows["ada"] is None
    for empty in ("empty", "notes"):
        assert "no learner folder in it" in str(rows[empty])
    verdict = judge(
        cohort(str(root))[1],
        Settings(),
        None,  # type: ignore[arg-type]
        tmp_path,
    ).verdict
    assert verdict.path.endswith("empty") and verdict.status == "error"
    with pytest.raises(UsageError, match="no learner folder"):
        cohort(str(root / "empty"))


def test_a_file_given_as_a_path_is_a_usage_error(tmp_path: Path):
    """A file is not a learner: naming one is a usage error, not a row."""
    (tmp_path / "evaluation.py").write_text("")
    with pytest.raises(UsageError, match="not a folder"):
        learner_at(str(tmp_path / "evaluation.py"))


def test_one_folder_named_twice_is_judged_once_and_said(tmp_path: Path):
    """The same folder named twice (as a PATH and under --cohort, or as
    written differently) is one row, and the name dropped is reported."""
    root = tmp_path / "class"
    _agent(root / "ada")
    found = [learner_at(f"{root}/ada/."), *cohort(str(root)), learner_at(f"{root}/ada")]
    assert [learner.path for learner in unique(found)] == [f"{root}/ada"]
    assert named_again(found) == []  # the same name each time
    (tmp_path / "alias").symlink_to("class")  # the teacher's own link
    other = [learner_at(f"{root}/ada"), learner_at(f"{tmp_path}/alias/ada")]
    assert [learner.path for learner in unique(other)] == [f"{root}/ada"]
    assert named_again(other) == [(f"{tmp_path}/alias/ada", f"{root}/ada")]


# --- copying a learner's folder ---------------------------------------------


def test_a_hard_linked_file_is_refused_not_copied(tmp_path: Path):
    """A file with another name (a hard link, here to a teacher's file) is
    not copied into the learner's copy: the folder is `error` naming it."""
    teacher = tmp_path / "teacher" / "evaluation.py"
    teacher.parent.mkdir()
    teacher.write_text("SECRET = 'the reference'\n")
    learner = _agent(tmp_path / "ada")
    (learner / "evaluation.py").unlink()
    os.link(teacher, learner / "evaluation.py")
    copy = tmp_path / "copy" / "ada"
    problem = _copy_folder(learner, copy)
    assert problem is not None
    assert "evaluation.py is a hard link" in problem and "\n" not in problem
    assert not (copy / "evaluation.py").exists()


def test_links_inside_are_copied_as_links_and_links_out_are_refused(
    tmp_path: Path,
):
    """A link within the folder is copied as a link; one leading out of it
    (absolute, or climbing out) makes the folder `error`, naming it."""
    learner = _agent(tmp_path / "ada", "real = 1\n")
    (learner / "pkg").mkdir()
    (learner / "pkg" / "loop.py").symlink_to("../evaluation.py")
    copy = tmp_path / "copy" / "ada"
    assert _copy_folder(learner, copy) is None
    assert os.readlink(copy / "pkg" / "loop.py") == "../evaluation.py"
    assert (copy / "pkg" / "loop.py").read_text() == "real = 1\n"
    (tmp_path / "teacher.py").write_text("")
    for target in (str(tmp_path / "teacher.py"), "../../teacher.py", "../.."):
        (learner / "pkg" / "loop.py").unlink()
        (learner / "pkg" / "loop.py").symlink_to(target)
        shutil.rmtree(tmp_path / "copy")
        problem = _copy_folder(learner, copy)
        assert problem is not None, target
        assert f"pkg/loop.py is a symbolic link out of the folder (to {target})" in (
            problem
        )


def test_a_folder_or_file_that_became_a_link_is_not_followed(tmp_path: Path):
    """The copy opens what it lists without following links: a folder given
    as a link, or a file swapped for a link after the listing, is refused
    and nothing behind the link is read."""
    (tmp_path / "teacher.py").write_text("SECRET = 1\n")
    _agent(tmp_path / "ada")
    (tmp_path / "eve").symlink_to("ada")
    problem = _copy_folder(tmp_path / "eve", tmp_path / "copy" / "eve")
    assert problem is not None and "cannot be opened" in problem
    (tmp_path / "ada" / "loop.py").symlink_to(tmp_path / "teacher.py")
    folder = os.open(tmp_path / "ada", os.O_RDONLY | os.O_DIRECTORY)
    try:
        destination = tmp_path / "copied.py"
        problem = _copy_file(
            folder, "loop.py", destination, PurePosixPath("loop.py"), _Budget()
        )
    finally:
        os.close(folder)
    assert problem is not None and problem.startswith(
        "the folder cannot be loaded: loop.py:"
    )
    assert not destination.exists()


# --- report paths, checked before judging -----------------------------------


def _answer(learner: Learner, settings: Settings) -> Judged:
    """The judge's early answer: a loadable folder is said to be one, in
    place of a child judging it."""
    if learner.problem is None and _unloadable(learner.folder) is None:
        learner = replace(learner, problem="judged here without a child")
    return judge(learner, settings, None, Path("/nonexistent"))  # type: ignore[arg-type]


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The command's judging, replaced by `_answer`; the paths judged listed."""
    calls: list[str] = []

    def judge_all(learners, settings, jobs, done=None, scratch=None, warn=None):
        answers = []
        for learner in learners:
            calls.append(learner.path)
            answers.append(_answer(learner, settings))
            if done is not None:
                done(answers[-1])
        return answers

    monkeypatch.setattr(_cli, "judge_all", judge_all)
    return calls


def _class(tmp_path: Path) -> Path:
    root = tmp_path / "class"
    _agent(root / "ada")
    for name in ("bob", "cy"):
        (root / name).mkdir()
    return root


def _main(*args: str) -> int:
    return _cli.main(["--isolation", "process", *args])


@pytest.mark.parametrize(
    ("flag", "target", "said"),
    [
        ("--json", "/proc/x.json", "cannot write it"),
        ("--html", "/proc/x.html", "cannot write it"),
        ("--junit", "{tmp}/class/ada/evaluation.py/x.xml", "no directory"),
        ("--json", "{tmp}/class", "is a directory"),
    ],
)
def test_a_report_path_that_cannot_be_written_stops_the_run_before_judging(
    tmp_path: Path, judged: list[str], capsys, flag: str, target: str, said: str
):
    """Each report path is tried for real before anything is judged: one
    that cannot be written is one line and exit status 2, no learner judged."""
    _class(tmp_path)
    target = target.format(tmp=tmp_path)
    status = _main("--cohort", str(tmp_path / "class"), flag, target)
    err = capsys.readouterr().err
    assert status == 2 and judged == []
    assert err.count("\n") == 1 and f"{flag} {target}: {said}" in err, err
    assert not Path("/proc/x.json").exists()


def test_a_fifo_nobody_reads_is_refused_before_judging_not_waited_on(
    tmp_path: Path, judged: list[str], capsys
):
    """A report path that is a FIFO with no reader would block the command
    after judging the class: it is refused first, in one line, exit 2."""
    _class(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    ended: list[int] = []
    run = threading.Thread(
        target=lambda: ended.append(
            _main("--cohort", str(tmp_path / "class"), "--junit", str(fifo))
        ),
        daemon=True,  # left blocked on the FIFO when the command waits on it
    )
    run.start()
    run.join(30)
    assert ended == [2], "the command waited on a FIFO nobody reads"
    assert judged == []
    assert f"--junit {fifo}: cannot write it" in capsys.readouterr().err


def test_checking_a_report_path_leaves_what_is_there_and_makes_nothing(
    tmp_path: Path, judged: list[str], capsys
):
    """Checking the report paths changes no existing file and leaves no new
    one behind when the run then stops on another usage error."""
    _class(tmp_path)
    old = tmp_path / "class.json"
    old.write_text("last week's class\n")
    new = tmp_path / "class.html"
    status = _main(
        "--cohort", str(tmp_path / "class"), "--json", str(old), "--html", str(new),
        "--shard", "3/2",
    )  # fmt: skip
    assert status == 2 and judged == []
    assert old.read_text() == "last week's class\n"
    assert not new.exists()


def test_two_reports_naming_one_file_is_a_usage_error(tmp_path: Path, judged, capsys):
    """--json and --html naming the same file would leave one of them lost."""
    _class(tmp_path)
    status = _main(
        "--cohort", str(tmp_path / "class"),
        "--json", str(tmp_path / "out"), "--html", f"{tmp_path}/./out",
    )  # fmt: skip
    assert status == 2 and judged == []
    assert "--json and --html both name" in capsys.readouterr().err


def test_a_report_that_fails_at_the_end_loses_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
):
    """A report that still cannot be written after judging does not stop
    the other reports or the table: they are written, one line says which
    one failed, and the exit status is 2."""
    root = _class(tmp_path)
    page = tmp_path / "class.html"

    def judge_all(learners, settings, jobs, done=None, scratch=None, warn=None):
        page.mkdir()  # the page's path taken while the class was judged
        return [_answer(learner, settings) for learner in learners]

    monkeypatch.setattr(_cli, "judge_all", judge_all)
    json_path, junit = tmp_path / "class.json", tmp_path / "class.xml"
    status = _main(
        "--cohort", str(root), "--json", str(json_path), "--html", str(page),
        "--junit", str(junit),
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert status == 2
    assert len(json.loads(json_path.read_text())["learners"]) == 3
    assert junit.read_text().startswith("<?xml")
    assert "learner(s) pass" in out and "bob" in out
    assert f"--html {page}: cannot write it" in err.splitlines()[-1]


def test_a_file_given_as_a_path_judges_nothing(tmp_path: Path, judged, capsys):
    """A file named as PATH is a usage error: exit 2, one line, nothing judged."""
    (tmp_path / "evaluation.py").write_text("")
    status = _main(str(tmp_path / "evaluation.py"))
    out, err = capsys.readouterr()
    assert status == 2 and judged == [] and out == ""
    assert err.count("\n") == 1 and "not a folder" in err


def test_a_linked_learner_and_an_empty_folder_are_rows_of_the_class(
    tmp_path: Path, judged, capsys
):
    """Judged as a class, a link to a classmate and an empty folder are rows
    with status `error` and their reason, beside the classmate's own row."""
    root = _class(tmp_path)
    (root / "eve").symlink_to("ada")
    report = tmp_path / "class.json"
    assert _main("--cohort", str(root), "--json", str(report)) == 1
    rows = {
        Path(learner["path"]).name: (learner["status"], learner["detail"])
        for learner in json.loads(report.read_text())["learners"]
    }
    assert sorted(rows) == ["ada", "bob", "cy", "eve"]
    assert rows["eve"] == ("error", rows["eve"][1])
    assert "symbolic link to ada" in rows["eve"][1]
    assert rows["bob"][0] == "error" and "no learner folder" in rows["bob"][1]


def test_merge_refuses_one_part_given_twice(tmp_path: Path, judged, capsys):
    """`merge a.json a.json` (or the same file by two names) says the part
    is given twice, in one line, exit status 2."""
    _class(tmp_path)
    part = tmp_path / "a.json"
    _main("--cohort", str(tmp_path / "class"), "--json", str(part))
    capsys.readouterr()
    for second in (str(part), f"{tmp_path}/./a.json"):
        status = _cli.main(["merge", str(part), second, "--json", str(tmp_path / "m")])
        err = capsys.readouterr().err
        assert status == 2 and err.count("\n") == 1
        assert f"{second} is given twice" in err, err
    assert not (tmp_path / "m").exists()


def test_a_name_dropped_as_named_twice_is_said_with_escapes_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judged, capsys
):
    """The stderr line naming a folder judged once under another name shows
    a learner's escape sequences as text: it cannot recolour or rewrite the
    teacher's terminal."""
    root = tmp_path / "class"
    _agent(root / "ada\x1b[2K")
    (tmp_path / "alias").symlink_to("class")  # the teacher's own link
    _main(f"{root}/ada\x1b[2K", f"{tmp_path}/alias/ada\x1b[2K")
    said = capsys.readouterr().err
    assert "judged once" in said and "\x1b" not in said and "\\x1b[2K" in said


def test_a_relative_scratch_is_given_to_the_judge_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judged
):
    """--scratch as typed relative reaches the judge absolute: the child and
    its worker run in other directories, where a relative path means another
    folder."""
    seen: list[Path | None] = []
    judging = _cli.judge_all

    def spying(learners, settings, jobs, done=None, scratch=None, warn=None):
        seen.append(scratch)
        return judging(learners, settings, jobs, done, scratch)

    monkeypatch.setattr(_cli, "judge_all", spying)
    _agent(tmp_path / "ada")
    (tmp_path / "room").mkdir()
    monkeypatch.chdir(tmp_path)
    _main("ada", "--scratch", "room")
    assert seen == [tmp_path / "room"]


def test_an_error_learner_is_its_error_with_no_seed_and_no_rows(
    tmp_path: Path, judged: list[str], capsys
):
    """A folder that cannot be judged is told as its error and why nothing was
    judged: no seed line (nothing was drawn), no NOT-RUN row per invariant,
    in the terminal, the JSON and the page (issue 36)."""
    import json

    root = _class(tmp_path)
    report, page = tmp_path / "r.json", tmp_path / "r.html"
    code = _main(
        str(root / "bob"), "--seed", "5", "--json", str(report), "--html", str(page)
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "ERROR" in out and "no invariant was judged" in out
    assert "seed 5" not in out and "NOT-RUN" not in out
    [learner] = json.loads(report.read_text(encoding="utf-8"))["learners"]
    assert learner["status"] == "error" and not learner["invariants"]
    assert learner["score"]["possible"] > 0  # scored as nothing run
    html = page.read_text(encoding="utf-8")
    assert "c-not-run" not in html


def test_one_folder_judged_against_a_baseline_says_who_is_gone(
    tmp_path: Path, judged: list[str], capsys
):
    """A folder judged alone against a class's baseline still says which of
    the baseline's learners are gone (their folder no longer there), and not
    the ones merely not asked for."""
    import json

    from day7_verify.reports._report import ClassReport, LearnerVerdict

    root = _class(tmp_path)
    first = tmp_path / "first.json"
    assert _main(str(root / "bob"), "--json", str(first)) == 1
    settings = json.loads(first.read_text(encoding="utf-8"))["settings"]
    vanished = str(tmp_path / "vanished")
    learners = (
        LearnerVerdict(str(root / "bob"), "error", 1.0, "no"),
        LearnerVerdict(str(root / "cy"), "error", 1.0, "no"),
        LearnerVerdict(vanished, "fail", 1.0, "no"),
    )
    baseline = tmp_path / "baseline.json"
    baseline.write_text(
        ClassReport(settings, tuple(sorted(learners, key=lambda v: v.path))).dumps(),
        encoding="utf-8",
    )
    capsys.readouterr()
    _main(str(root / "bob"), "--baseline", str(baseline))
    out = capsys.readouterr().out
    assert "gone since the baseline (1)" in out
    assert f"{vanished}  (was fail)" in out
    assert str(root / "cy") not in out
