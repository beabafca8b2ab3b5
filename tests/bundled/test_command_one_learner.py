"""One learner's trouble is that learner's row (issue 37, items 5 to 11).

Whatever goes wrong while one learner's folder is handled (found, copied,
its child started, sandboxed, its worker's answer read, its verdict made,
scored, or its part of a report written) ends in that learner's `error` row
saying why: never a traceback, a refused class or a lost report. Every
classmate is judged as if nothing happened.

The children here are stand-ins (`_FakeChild`): what is tested is the
command's handling around them, which is the same for a real child.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import tempfile
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from day7_verify import _cli
from day7_verify.cohort import _discover, _judge, _pool
from day7_verify.cohort._discover import cohort
from day7_verify.cohort._supervise import Finished
from day7_verify.isolation import _cleanup
from day7_verify.isolation._cleanup import remove_scratch
from day7_verify.reports import _evidence, _html, _junit, _output, _report, _text
from day7_verify.reports._report import ClassReport, LearnerVerdict, Shard
from day7_verify.reports._safe import data_text
from day7_verify.reports._shard import merge
from judge.ordering import HARDENED_ONLY, INVARIANT_ORDER

VICTIM = "bo"
CLASS = ("ada", VICTIM, "cy")
INJECTED = "injected fault"


class _Injected(Exception):
    """The fault a test plants in one step, for one learner."""


class _Manifest:
    """The bundle, as far as a stand-in child needs it."""

    def copy_into(self, target: Path) -> None:
        (target / "worker").mkdir(parents=True)


def _fake_child(argv: Any, **options: Any) -> Finished:
    """A child that says every invariant of the course level holds."""
    config = json.loads(options["stdin_data"])
    names = [
        name
        for name in INVARIANT_ORDER
        if name not in HARDENED_ONLY and name != "writes-nothing-outside"
    ]
    result = {
        "protocol": _evidence.PROTOCOL,
        "nonce": config["nonce"],
        "phase": "suite",
        "complete": True,
        "exit_code": 0,
        "stopped": None,
        "summary": {
            "verification": "PASS",
            "invariants": [
                {"name": name, "status": "PASS", "statement": f"{name} holds."}
                for name in names
            ],
            "lessons": [],
        },
        "memory_error": None,
        "outside_writes": None,
    }
    Path(config["result"]).write_text(json.dumps(result), encoding="utf-8")
    return Finished(
        returncode=0,
        timed_out=False,
        seconds=0.1,
        peak_rss_kib=1,
        output="",
        output_bytes=0,
    )


@pytest.fixture
def stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Children, bundle, preflight and Unicode tables stood in for: fast."""
    monkeypatch.setattr(_pool, "manifest", lambda: _Manifest())
    monkeypatch.setattr(_pool, "check_worker", lambda *args, **kwargs: None)
    monkeypatch.setattr(_pool, "unicode_tables", lambda workroot: None)
    monkeypatch.setattr(_judge, "run_bounded", _fake_child)


def _class(base: Path) -> Path:
    root = base / "class"
    for name in CLASS:
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "evaluation.py").write_text("def evaluate_run(): ...\n")
    return root


def _run(base: Path) -> tuple[int, dict[str, Path]]:
    root = _class(base) if not (base / "class").exists() else base / "class"
    out = {name: base / f"out.{name}" for name in ("json", "html", "junit")}
    argv = [
        "--cohort",
        str(root),
        "--isolation",
        "process",
        "--seed",
        "7",
        "--jobs",
        "1",
        *(word for name, path in out.items() for word in (f"--{name}", str(path))),
    ]
    return _cli.main(argv), out


def _text_of(path: Path) -> str:
    """A report's text, the run's own folder written as BASE."""
    return path.read_text(encoding="utf-8").replace(str(path.parent), "BASE")


def _rows(out: dict[str, Path]) -> dict[str, dict[str, Any]]:
    """Each learner's JSON row by its folder's name, timings left out."""
    data = json.loads(_text_of(out["json"]))
    rows = {}
    for learner in data["learners"]:
        learner.pop("seconds")
        rows[learner["path"].rsplit("/", 1)[-1]] = learner
    return rows


def _suites(out: dict[str, Path]) -> dict[str, str]:
    """Each learner's JUnit suite by its folder's name, timings left out."""
    suites = {}
    for suite in ET.fromstring(_text_of(out["junit"])):
        for element in suite.iter():
            element.attrib.pop("time", None)
        suites[suite.get("name", "").rsplit("/", 1)[-1]] = ET.tostring(suite)
    return suites


# --- each step of one learner's way, made to fail for that learner only ------

_judging = {"path": ""}


def _for_victim(raising_when: Callable[..., bool]) -> Callable[..., Any]:
    def fault(*args: Any, **kwargs: Any) -> Any:
        if raising_when(*args, **kwargs):
            raise _Injected(INJECTED)
        return fault.original(*args, **kwargs)  # type: ignore[attr-defined]

    return fault


def _victim_judged(*args: Any, **kwargs: Any) -> bool:
    return _judging["path"].endswith(f"/{VICTIM}")


def _victim_shown(learner: Any, *args: Any, **kwargs: Any) -> bool:
    # The learner's own data breaks the writer; the row that replaces it,
    # `error` saying why, does not.
    return learner.path.endswith(f"/{VICTIM}") and learner.status != "error"


#: Where the fault goes: (module, name, when it raises, the report it shows in).
STEPS: dict[str, tuple[Any, str, Callable[..., bool], str]] = {
    "discover": (
        _discover,
        "_candidates",
        lambda top, written: written.endswith(f"/{VICTIM}"),
        "every report",
    ),
    "copy": (_judge, "_copy_folder", _victim_judged, "every report"),
    "child start": (_judge, "run_bounded", _victim_judged, "every report"),
    "sandbox": (_judge, "worker_settings", _victim_judged, "every report"),
    "worker": (_judge, "read_result", _victim_judged, "every report"),
    "verdict": (_judge, "classify", _victim_judged, "every report"),
    "score": (_judge, "scored", _victim_judged, "every report"),
    "json row": (_report.LearnerVerdict, "to_json", _victim_shown, "json row"),
    "junit suite": (_junit, "_suite", _victim_shown, "junit"),
    "html row": (
        _html,
        "_row",
        lambda row, learner, *rest: _victim_shown(learner),
        "html",
    ),
    "progress line": (
        _cli,
        "_progress_line",
        lambda count, total, judged, *rest: _victim_shown(judged.verdict),
        "no report",
    ),
    "terminal row": (
        _text,
        "_cell",
        lambda learner, name: _victim_shown(learner),
        "terminal",
    ),
}


@pytest.mark.parametrize("step", list(STEPS))
def test_a_fault_at_any_step_of_one_learner_is_that_learners_error_row(
    step: str,
    tmp_path: Path,
    stand_ins: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An exception at any step of one learner's handling leaves that row
    `error`, saying why, and every other row as an unharmed run has it; every
    report is written and the run ends with a verdict, not a traceback."""
    # The class judged with no fault first, in the same folder: what every
    # classmate's row must stay.
    status, out = _run(tmp_path)
    unharmed = {"rows": _rows(out), "suites": _suites(out)}
    assert status == 0 and len(unharmed["rows"]) == len(CLASS)
    capsys.readouterr()
    module, name, raising_when, shown_in = STEPS[step]
    original = getattr(module, name)
    fault = _for_victim(raising_when)
    fault.original = original  # type: ignore[attr-defined]
    monkeypatch.setattr(module, name, fault)
    real_judge = _judge._judge

    def judging(learner: Any, *args: Any, **kwargs: Any) -> Any:
        _judging["path"] = learner.path
        return real_judge(learner, *args, **kwargs)

    monkeypatch.setattr(_judge, "_judge", judging)
    status, out = _run(tmp_path)
    said = capsys.readouterr()
    everywhere = shown_in == "every report"
    # The verdicts decide the status: a row one report could not show is
    # that report's error, not the learner's.
    assert status == (1 if everywhere else 0), said.err
    assert all(path.exists() for path in out.values()), said.err
    assert "Traceback" not in said.err
    rows, suites = _rows(out), _suites(out)
    harmed = {
        "json": everywhere or shown_in == "json row",
        "junit": everywhere or shown_in == "junit",
        "html": everywhere or shown_in == "html",
        "terminal": everywhere or shown_in == "terminal",
    }
    for learner in CLASS:
        if learner == VICTIM and harmed["json"]:
            assert rows[learner]["status"] == "error"
            assert INJECTED in rows[learner]["detail"]
        else:
            assert rows[learner] == unharmed["rows"][learner], learner
        if learner == VICTIM and harmed["junit"]:
            assert INJECTED.encode() in suites[learner]
        else:
            assert suites[learner] == unharmed["suites"][learner], learner
    page = out["html"].read_text(encoding="utf-8")
    assert (f"_Injected: {INJECTED}" in page) == harmed["html"]
    if shown_in == "no report":
        assert f"{VICTIM}: its line could not be shown (_Injected)" in said.err
    errors = [line for line in said.out.splitlines() if " error " in line]
    assert len(errors) == harmed["terminal"], said.out
    assert all(line.split()[0] == VICTIM for line in errors)


# --- an ordinary teacher ---------------------------------------------------------

TEACHER = 65534  # nobody: as root, the tests become an ordinary teacher


def _as_teacher(work: Callable[[], Any]) -> Any:
    """`work()` run as an ordinary user, its JSON-able answer returned.

    As root, a forked child drops to uid and gid 65534 (no useradd needed:
    the code under test is already imported); as anyone else, it runs here.
    """
    if os.geteuid() != 0:
        return work()
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(reader)
            os.setgroups([])
            os.setresgid(TEACHER, TEACHER, TEACHER)
            os.setresuid(TEACHER, TEACHER, TEACHER)
            answer = json.dumps({"answer": work()})
        except BaseException as error:  # noqa: BLE001
            answer = json.dumps({"raised": f"{type(error).__name__}: {error}"})
        os.write(writer, answer.encode())
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as stream:
        said = json.loads(stream.read() or b'{"raised": "nothing said"}')
    os.waitpid(pid, 0)
    assert "raised" not in said, said["raised"]
    return said["answer"]


def _teachers_folder() -> Path:
    """A fresh folder the ordinary teacher owns, outside pytest's 0700 one."""
    base = Path(tempfile.mkdtemp(prefix="teacher-", dir="/tmp"))
    if os.geteuid() == 0:
        os.chown(base, TEACHER, TEACHER)
    return base


def test_an_unreadable_submission_is_its_row_for_an_ordinary_teacher() -> None:
    """Item 7: one mode-000 submission directly under ROOT, as an ordinary
    teacher, is that learner's `error` row saying it cannot be read; the
    classmates are found and the class is not refused."""
    base = _teachers_folder()

    def work() -> list[list[Any]]:
        root = base / "class"
        for name in ("ada", "bo", "cy"):
            (root / name).mkdir(parents=True)
            (root / name / "evaluation.py").write_text("")
        os.chmod(root / "bo", 0)
        try:
            found = cohort(str(root))
            judged = _judge._unloadable(root / "bo")
        finally:
            os.chmod(root / "bo", 0o755)
        rows = [[row.path[len(str(root)) + 1 :], row.problem] for row in found]
        return [*rows, ["judged", judged]]

    try:
        rows = dict(_as_teacher(work))
    finally:
        remove_scratch(base)
    assert rows["ada"] is None and rows["cy"] is None
    assert (
        rows["bo"]
        == "the folder cannot be loaded: it cannot be read (Permission denied)"
    )
    assert rows["judged"] == rows["bo"]


def _deep_tree(top: Path, depth: int) -> None:
    """`depth` nested folders under `top` ending in a 0500 folder holding a
    file and a 000 folder, made through descriptors (no path is that long)."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.mkdir("kept", dir_fd=fd)
        kept = os.open("kept", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(os.open("f", os.O_CREAT | os.O_WRONLY, dir_fd=kept))
        os.mkdir("shut", dir_fd=kept)
        os.chmod("shut", 0, dir_fd=kept)
        os.fchmod(kept, 0o500)
        os.close(kept)
        os.symlink("/etc", "out", dir_fd=fd)
    finally:
        os.close(fd)


@pytest.mark.parametrize("teacher", ["root", "ordinary"])
def test_a_deep_and_unwritable_scratch_is_removed_without_recursion(
    teacher: str,
) -> None:
    """Item 8: 1,500 nested folders ending in a 0500 folder (and a 000 one
    in it) are removed whole, as root and as an ordinary teacher, never
    following the link beside them; nothing raises (shutil.rmtree raised
    RecursionError here and left the tree)."""
    base = _teachers_folder()
    outside = base / "outside"

    def work() -> list[Any]:
        outside.mkdir()
        (outside / "keep").write_text("the teacher's")
        scratch = base / "scratch"
        scratch.mkdir()
        _deep_tree(scratch, 1500)
        (scratch / "link").symlink_to(outside)
        left = remove_scratch(scratch)
        return [left, scratch.exists(), (outside / "keep").exists()]

    try:
        said = work() if teacher == "root" else _as_teacher(work)
    finally:
        remove_scratch(base)
    assert said == [None, False, True]


def test_a_cleanup_that_cannot_finish_says_so_in_one_line(tmp_path: Path) -> None:
    """What stays is one line naming it, never an exception."""
    assert remove_scratch(tmp_path / "never-made") is None
    with mock.patch.object(_cleanup.os, "rmdir", side_effect=OSError(16, "Busy")):
        (tmp_path / "busy" / "inner").mkdir(parents=True)
        said = remove_scratch(tmp_path / "busy")
    assert said is not None and "busy was not removed" in said
    assert "\n" not in said


# --- names, shards and merge ---------------------------------------------------

_NAME_BYTES = st.binary(min_size=1, max_size=6).filter(
    # What a file name cannot be: a separator, NUL, or . and ..
    lambda name: b"/" not in name and b"\0" not in name and name not in (b".", b"..")
)


@st.composite
def _class_names(draw: st.DrawFn) -> list[bytes]:
    """Distinct folder names as bytes, with, for some that are not UTF-8,
    the name their escape reads as (`q\\xff` written out) beside them."""
    names = draw(st.lists(_NAME_BYTES, min_size=1, max_size=8, unique=True))
    twins = [
        data_text(os.fsdecode(name)).encode("utf-8")
        for name in names
        if data_text(os.fsdecode(name)) != os.fsdecode(name)
        and draw(st.booleans(), label="twin")
    ]
    return list(dict.fromkeys([*names, *twins]))


@given(names=_class_names(), count=st.integers(1, 4))
def test_shards_merged_keep_every_exact_name_apart(
    names: list[bytes], count: int
) -> None:
    """Item 9 (sharding, docs/checking-a-class.md): whatever bytes the
    learners' folder names hold, the parts of a sharded run merge into the
    report one unsharded run gives, one row per exact name, even for two
    names whose escapes read alike (`q` + byte 0xff and `q\\xff`), which
    `merge` refused as one learner twice."""
    paths = sorted(f"class/{os.fsdecode(name)}" for name in names)
    verdicts = [LearnerVerdict(path, "pass", 1.0, "all hold") for path in paths]
    whole = ClassReport(settings={"level": "course"}, learners=tuple(verdicts))
    parts = []
    for index in range(1, count + 1):
        part = ClassReport(
            settings={"level": "course"},
            learners=tuple(verdicts[index - 1 :: count]),
            shard=Shard(index, count, len(verdicts)),
        )
        parts.append((f"part{index}", ClassReport.from_json(json.loads(part.dumps()))))
    merged = merge(parts)
    assert len(merged.learners) == len(names)
    assert sorted(v.identity for v in merged.learners) == sorted(
        b"class/" + name for name in names
    )
    assert merged.to_json()["learners"] == whole.to_json()["learners"]
    again = ClassReport.from_json(json.loads(merged.dumps()))
    assert again.to_json()["learners"] == whole.to_json()["learners"]


def test_two_names_that_escape_alike_are_two_learners() -> None:
    """The issue's pair, by name: both rows kept, told apart by path_bytes."""
    raw = ["class/q\udcff", "class/q\\xff"]
    report = ClassReport(
        settings={},
        learners=tuple(LearnerVerdict(p, "pass", 1.0, "ok") for p in sorted(raw)),
    )
    rows = report.to_json()["learners"]
    assert [row["path"] for row in rows] == ["class/q\\xff", "class/q\\xff (2)"]
    assert [row.get("path_bytes") for row in rows] == [
        None,
        b"class/q\xff".hex(),
    ]


# --- where reports go ------------------------------------------------------------


def test_a_report_is_written_through_what_the_user_named(tmp_path: Path) -> None:
    """Item 11: a link keeps being a link (the file it names gets the
    report), a FIFO's reader gets the report, a character device stays one;
    a regular file or a new name is replaced whole."""
    kept = tmp_path / "kept.xml"
    kept.write_text("old")
    link = tmp_path / "link.xml"
    link.symlink_to(kept)
    assert _output.unwritable(str(link)) is None
    _output.write(str(link), "new report\n")
    assert link.is_symlink() and kept.read_text() == "new report\n"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    heard: list[bytes] = []
    with open(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK), "rb") as reader:
        assert _output.unwritable(str(fifo)) is None
        writer = threading.Thread(target=_output.write, args=(str(fifo), "piped\n"))
        writer.start()
        writer.join(10)
        heard.append(reader.read())
    assert heard == [b"piped\n"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert _output.unwritable("/dev/null") is None
    _output.write("/dev/null", "nothing\n")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)
    fresh = tmp_path / "new.json"
    _output.write(str(fresh), "{}\n")
    assert fresh.read_text() == "{}\n" and not fresh.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fifo",
        "kept.xml",
        "link.xml",
        "new.json",
    ]


def test_a_report_path_is_tried_for_real_before_judging() -> None:
    """Item 11: /proc/version, a link to nothing, and (as an ordinary
    teacher) an existing file in a folder where no new file can be made are
    refused before judging, each in one line; nothing is left behind."""
    assert "cannot write it" in str(_output.unwritable("/proc/version"))
    base = _teachers_folder()

    def work() -> list[str | None]:
        (base / "dangling").symlink_to(base / "nowhere")
        shut = base / "shut"
        shut.mkdir()
        (shut / "class.json").write_text("old")
        os.chmod(shut, 0o555)
        try:
            said = [
                _output.unwritable(str(base / "dangling")),
                _output.unwritable(str(shut / "class.json")),
            ]
            return [*said, str(sorted(os.listdir(shut)))]
        finally:
            os.chmod(shut, 0o755)

    try:
        dangling, shut, left = _as_teacher(work)
    finally:
        remove_scratch(base)
    assert dangling == "cannot write it (a symbolic link to nothing)"
    assert shut == "cannot write it (Permission denied)"
    assert left == "['class.json']"


def test_the_command_writes_to_dev_null_and_through_a_link(
    tmp_path: Path, stand_ins: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 11, end to end: `--json /dev/null --junit LINK` leaves /dev/null
    the machine's device and LINK a link, the file it names holding the XML."""
    root = _class(tmp_path)
    kept = tmp_path / "kept.xml"
    kept.write_text("")
    link = tmp_path / "junit.xml"
    link.symlink_to(kept)
    status = _cli.main(
        [
            "--cohort",
            str(root),
            "--isolation",
            "process",
            "--json",
            "/dev/null",
            "--junit",
            str(link),
        ]
    )
    assert status == 0, capsys.readouterr().err
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)
    assert link.is_symlink()
    assert len(ET.fromstring(kept.read_text(encoding="utf-8"))) == len(CLASS)


# --- copies ---------------------------------------------------------------------


def test_a_chain_of_a_thousand_links_is_copied_without_recursion(
    tmp_path: Path,
) -> None:
    """Item 5: 1,200 links in a chain (os.path.realpath recursed on it) copy
    as links; a chain the kernel would follow that leads out is refused."""
    source = tmp_path / "agent"
    source.mkdir()
    (source / "evaluation.py").write_text("x = 1\n")
    for index in range(1200):
        following = f"l{index + 1}" if index < 1199 else "evaluation.py"
        (source / f"l{index}").symlink_to(following)
    assert _judge._copy_folder(source, tmp_path / "copy" / "agent") is None
    assert os.readlink(tmp_path / "copy" / "agent" / "l0") == "l1"
    (source / "out0").symlink_to("out1")
    (source / "out1").symlink_to("../..")
    problem = _judge._copy_folder(source, tmp_path / "copy2" / "agent")
    assert problem is not None and "out0 is a symbolic link out of" in problem


def test_a_tree_deeper_than_path_max_is_copied(tmp_path: Path) -> None:
    """Item 6: 17 nested folders of 255-character names (a path longer than
    PATH_MAX: copying by path raised ENAMETOOLONG) copy whole."""
    source = tmp_path / "agent"
    source.mkdir()
    (source / "evaluation.py").write_text("x = 1\n")
    fd = os.open(source, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(17):
        os.mkdir("d" * 255, dir_fd=fd)
        inner = os.open("d" * 255, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with open(os.open("deep.py", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd), "w") as f:
        f.write("deep = True\n")
    os.close(fd)
    copy = tmp_path / "copy" / "agent"
    assert _judge._copy_folder(source, copy) is None
    fd = os.open(copy, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(17):
        inner = os.open("d" * 255, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with open(os.open("deep.py", os.O_RDONLY, dir_fd=fd)) as copied:
        assert copied.read() == "deep = True\n"
    os.close(fd)
    assert remove_scratch(tmp_path / "copy") is None
    assert remove_scratch(source) is None


_PARTS = st.sampled_from(["a", "b", "c", "..", ".", ""])


@st.composite
def _linked_trees(draw: st.DrawFn) -> list[tuple[str, str, str]]:
    """A small folder of (kind, path, link text) entries: folders, files and
    links whose texts climb, descend, loop and point at absolute places."""
    entries: list[tuple[str, str, str]] = []
    taken: set[str] = set()
    for _ in range(draw(st.integers(1, 10), label="entries")):
        folders = [path for kind, path, _ in entries if kind == "folder"]
        parent = draw(st.sampled_from(["", *folders]), label="parent")
        name = draw(st.sampled_from(["a", "b", "c"]), label="name")
        path = f"{parent}/{name}" if parent else name
        if path in taken:
            continue
        taken.add(path)
        kind = draw(st.sampled_from(["folder", "file", "link"]), label="kind")
        text = ""
        if kind == "link":
            text = "/".join(draw(st.lists(_PARTS, min_size=1, max_size=5)))
            if draw(st.booleans(), label="absolute"):
                # Rooted at the test's folder (written BASE), outside the copy.
                text = "BASE/" + text
            text = text or "."
        entries.append((kind, path, text))
    return entries


def _kernel_leads_out(link: Path, top: Path) -> bool | None:
    """Where the kernel takes `link`: out of `top` or not; None when it
    reaches nothing (a link to nothing decides nothing)."""
    try:
        fd = os.open(link, os.O_PATH)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return False  # the kernel gives up: it leads nowhere
        return None
    try:
        reached = os.readlink(f"/proc/self/fd/{fd}")
    finally:
        os.close(fd)
    return not (reached == str(top) or reached.startswith(f"{top}/"))


@given(entries=_linked_trees())
def test_a_link_is_judged_where_the_kernel_would_take_it(
    entries: list[tuple[str, str, str]],
) -> None:
    """Item 5 (the copy's links, read in memory instead of by realpath):
    each link is judged out of the copy exactly when the kernel, following
    it, leaves the copy; a copy is refused when one does, naming one that
    does (or leads nowhere). So the worker cannot read what the learner did
    not write, and no honest folder is refused."""
    with tempfile.TemporaryDirectory(dir="/tmp") as temporary:
        base = Path(os.path.realpath(temporary))
        # Places outside the copy for a link to reach, so the kernel can
        # say where it went.
        for above in (base, base / "copy"):
            for name in "abc":
                for inner in "abc":
                    (above / name / inner).mkdir(parents=True)
        source = base / "agent"
        source.mkdir()
        entries = [(k, p, t.replace("BASE", str(base), 1)) for k, p, t in entries]
        for kind, path, text in entries:
            if kind == "folder":
                (source / path).mkdir()
            elif kind == "file":
                (source / path).write_text("")
            else:
                (source / path).symlink_to(text)
        copy = base / "copy" / "agent"
        problem = _judge._copy_folder(source, copy)
        links = {path: text for kind, path, text in entries if kind == "link"}
        verdicts = {path: _kernel_leads_out(copy / path, copy) for path in links}
        tree = _judge._Tree(
            {tuple(path.split("/")): text for path, text in links.items()}
        )
        for path, text in links.items():
            if verdicts[path] is not None:
                judged = tree._leads_out(tuple(path.split("/")), text)
                assert judged == verdicts[path], (path, text, verdicts)
        if any(verdicts.values()):
            assert problem is not None, verdicts
        if problem is not None:
            match = re.search(r"loaded: (\S+) is a symbolic link out of", problem)
            assert match is not None, problem
            assert verdicts[match[1]] is not False, (problem, verdicts)
