"""The worker package stays small and standard library only; the judge judges its audit.

worker/ is the one place a learner's code runs: it must start anywhere a
Python does (nothing but the standard library) and be readable in one
sitting. Its audit recorder sends raw records and the worker's own import
places; judge/access.py decides what they mean.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from _command_learners import learner_folder

from judge import judge_access, load_target, materialise, recast, report_view, spy_on
from judge.access import Access, accesses, violations
from judge.lessons import InvariantFailure
from judge.remote import Remote
from judge.shape import report_problem, viewed_report
from judge.target import Target
from judge.verdicts import evaluate, judging
from strategies import PASSING_WORLD
from worker.audit import AccessRecorder

WORKER = Path(__file__).resolve().parents[2] / "worker"
#: Under 500 lines, to be read whole in one sitting (issue 24), and what it
#: holds today is the ceiling, so it can only shrink.
CEILING = 499


def _lines() -> int:
    return sum(len(p.read_text("utf-8").splitlines()) for p in WORKER.glob("*.py"))


def test_the_worker_package_is_readable_in_one_sitting() -> None:
    """The worker package (wc -l worker/*.py) stays under 500 lines and within
    its ceiling (lower the ceiling as it shrinks)."""
    assert _lines() <= CEILING < 500, f"worker/ has {_lines()} lines, over {CEILING}"


def test_the_worker_imports_only_the_standard_library() -> None:
    """Every import in worker/ is of the standard library or of worker itself."""
    assert sys.version_info >= (3, 10)
    allowed = {*sys.stdlib_module_names, "worker"}
    strays = []
    for path in sorted(WORKER.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            strays += [
                f"{path.name}: {n}" for n in names if n.split(".")[0] not in allowed
            ]
    assert not strays


def test_a_workers_unreadable_record_is_a_violation() -> None:
    """A record the worker sent malformed is judged as an access that cannot be
    placed, never skipped (the worker's records are the learner's word)."""
    read = accesses([["path", "open"], None, ["path", "open", "/r/a", "/r/a", False]])
    assert read[2] == Access("path", "open", "/r/a", "/r/a", False)
    problems = violations(read, root="/r", log=None)
    assert len(problems) == 2
    assert all("cannot be placed" in problem for problem in problems)


def test_module_files_are_allowed_only_in_the_recording_process_places() -> None:
    """The import system reading a module file passes only inside the import
    places of the process that read it (the worker says where its are)."""
    read = [Access("path", "open", "m.py", "/opt/lib/m.py")]
    assert violations(read, root="/r", log=None, places=["/opt/lib"]) == []
    assert violations(read, root="/r", log=None, places=["/usr/lib"])


# evaluate_run wrapped: a lazy import of a module not yet imported, and
# (when asked) a read of a file outside the root.
_WRAPPED = (
    "\n\n_evaluate_run = evaluate_run\n\n\n"
    "def evaluate_run(*args, **kwargs):\n"
    "    import wave  # the import system reads module files\n"
    "{stray}"
    "    return _evaluate_run(*args, **kwargs)\n"
)


@pytest.fixture
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    folder = learner_folder(tmp_path, "learner")
    module = folder / "evaluation.py"
    tail = _WRAPPED.format(stray=request.param)
    module.write_text(module.read_text("utf-8") + tail, "utf-8")
    loaded = load_target(impl_path=folder)
    assert loaded.remote
    try:
        yield loaded
    finally:
        loaded.client.stop()


@pytest.mark.parametrize("target", [""], indirect=True)
def test_a_lazy_import_in_the_worker_is_no_stray_access(target: Target) -> None:
    """Module files a call imports in the worker are judged with the worker's
    import places: a lazy import is not an access outside the root."""
    judge_access(target, PASSING_WORLD)


_STRAY = "    open('/proc/self/status').close()\n"


@pytest.mark.parametrize("target", [_STRAY], indirect=True)
def test_a_read_outside_the_root_in_the_worker_fails(target: Target) -> None:
    """A file outside the root read in the worker fails the audit, named."""
    with pytest.raises(InvariantFailure, match="opened outside the root and the log"):
        judge_access(target, PASSING_WORLD)


_STRAY_IN_A_THREAD = (
    "    import threading\n"
    "    reader = threading.Thread(target=lambda: open('/proc/self/status').close())\n"
    "    reader.start()\n"
    "    reader.join()\n"
)


@pytest.mark.parametrize("target", [_STRAY_IN_A_THREAD], indirect=True)
def test_a_read_outside_the_root_in_a_thread_of_the_call_fails(target: Target) -> None:
    """A file outside the root read in a thread the learner's call started
    fails the audit too: the worker records every thread while armed."""
    with pytest.raises(InvariantFailure, match="opened outside the root and the log"):
        judge_access(target, PASSING_WORLD)


# Tools called, and the errors they raise passed on (their names then sent
# as a tool's argument, the one place the spy shows).
_TOOL_CALLS = (
    "    workspace, seen = args[1], []\n"
    "    workspace.list_files('.')\n"
    "    for call in (lambda: workspace.read_file('/nowhere'),\n"
    "                 lambda: args[2].put(1)):\n"
    "        try:\n"
    "            call()\n"
    "        except Exception as error:  # the original ran, and raised\n"
    "            seen.append(type(error).__name__)\n"
    "    try:\n"
    "        workspace.list_files(' '.join(seen))\n"
    "    except Exception:\n"
    "        pass\n"
)


@pytest.mark.parametrize("target", [_TOOL_CALLS], indirect=True)
def test_tool_calls_in_the_worker_are_spied_judge_side(target: Target) -> None:
    """spy_on a worker's world notes each tool call judge-side (the judge's own
    callables set on the objects) and the call still happens, raising as it would."""
    with judging(PASSING_WORLD, target), materialise(PASSING_WORLD, target) as built:
        calls = spy_on(built)
        evaluate(target, built)
    # The store is reached twice (the argument, workspace.receipt_store): spied once.
    assert calls[:3] == [
        "workspace.list_files('.')",
        "workspace.read_file('/nowhere')",
        "receipts.put(1)",
    ]
    assert calls[3:] == ["workspace.list_files('AgentError ValueError')"]


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no")


def _report(checks: object = (), passed: object = True, render: object = str) -> object:
    return SimpleNamespace(checks=checks, passed=passed, render=render)


def _check(name: object = "a", passed: object = True, detail: object = "d") -> object:
    return SimpleNamespace(name=name, passed=passed, detail=detail)


@pytest.mark.parametrize(
    "report",
    [
        None,
        _report(checks=None),
        _report(checks=[_check()]),
        _report(checks=(_check(name=1),)),
        _report(checks=(_check(), _check(passed="yes"), _check(name=None))),
        _report(checks=(_check(detail="x" * 200 + "é"),)),
        _report(checks=(_check(detail=_BadRepr()),)),
        _report(checks=(_check(detail=("x" * 300,)),)),
        _report(passed=None),
        _report(passed=1),
        _report(render=None),
        _report(render="text"),
        _report(checks=(_check(), _check(name="b", passed=False))),
        SimpleNamespace(),
    ],
)
def test_the_worker_reads_a_report_and_the_judge_words_its_shape_alike(
    report: object,
) -> None:
    """What the worker reads of a report, judged in the judge, has the same
    shape problem (word for word) as the report judged in-process."""
    from worker.serve import Server

    said = json.loads(json.dumps(Server(None, None).view(report)))
    assert report_problem(viewed_report(said)) == report_problem(report)


@pytest.mark.parametrize("target", [""], indirect=True)
def test_an_error_a_judge_callback_raises_is_raised_alike_in_the_worker(
    target: Target,
) -> None:
    """A judge callback's error (a store lookup a world makes fail) reaches the
    target as the builtin itself with the same text, a KeyError's unquoted."""

    def get(call_id: str) -> None:
        raise KeyError(f"lookup of {call_id} broke")

    client = target.client
    step = {"fn": client.encode(get), "args": ["call-1"], "kwargs": {"$d": []}}
    said = client.request({"op": "batch", "steps": [step]})
    assert said["raised"]["type"] == said["raised"]["builtin"] == "KeyError"
    assert said["raised"]["message"] == "'lookup of call-1 broke'"


_BASES = ("AgentRun", "Workspace", "ReceiptStore", "EvaluationCase")


def _class_of(value: object) -> tuple[str, str]:
    """The name of `value`'s class and of its base, read where the value lives
    (a worker's object through the worker's own getattr)."""
    if not isinstance(value, Remote):
        return type(value).__name__, type(value).__bases__[0].__name__
    ask = value._client.ask
    kind = ask("a class", "getattr", value, "__class__")
    base = ask("a base", "getattr", kind, "__base__")
    return ask("a name", "getattr", kind, "__name__"), ask(
        "a name", "getattr", base, "__name__"
    )


@pytest.mark.parametrize("target", [""], indirect=True)
def test_recast_makes_a_subclass_instance_where_the_object_lives(
    target: Target,
) -> None:
    """`recast` makes each argument, in the worker as in-process, an instance of
    a subclass of its Day 7 class with its state kept: the report is unchanged."""
    for loaded in (load_target(impl="evaluator"), target):
        with materialise(PASSING_WORLD, loaded) as built:
            plain = report_view(evaluate(loaded, built))
            for value, base in zip(built.args, _BASES, strict=True):
                assert recast(value, base, f"My{base}") is value
                assert _class_of(value) == (f"My{base}", base)
            assert report_view(evaluate(loaded, built)) == plain


def test_the_recorder_keeps_each_kind_of_event_and_a_network_modules_every_one() -> (
    None
):
    """The recorder keeps a change, a process and every event of a network
    module (by the module's name: telnetlib.Telnet.open too), and nothing else."""
    kept = {
        "os.remove": "change",
        "subprocess.Popen": "process",
        "socket.connect": "network",
        "http.client.connect": "network",
        "telnetlib.Telnet.open": "network",
        "urllib.Request": "network",
        "object.__setattr__": None,
        "sqlite3.connect": None,
    }
    recorder = AccessRecorder()
    with recorder.armed():
        for event in kept:
            sys.audit(event, "x")
    recorded = {record[1]: record[0] for record in recorder.accesses}
    assert recorded == {event: kind for event, kind in kept.items() if kind}


def test_the_recorder_records_another_thread_only_when_armed_for_every_thread() -> None:
    """Armed for its own thread (the judge's), the recorder leaves another
    thread's actions out; armed for every thread (the worker's), it keeps them."""
    for every_thread, expected in ((False, []), (True, ["socket.connect"])):
        recorder = AccessRecorder()
        with recorder.armed(every_thread=every_thread):
            other = threading.Thread(target=sys.audit, args=("socket.connect", "x"))
            other.start()
            other.join()
        assert [record[1] for record in recorder.accesses] == expected


def test_a_failed_descriptor_relative_open_is_placed_in_its_directory() -> None:
    """os.open of a missing name relative to a directory descriptor (no link
    followed) is recorded as reaching that directory's entry, never the
    working directory's."""
    with tempfile.TemporaryDirectory() as top:
        fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
        recorder = AccessRecorder()
        try:
            with recorder.armed(), contextlib.suppress(FileNotFoundError):
                os.open("missing", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
        finally:
            os.close(fd)
        [opened] = [record for record in recorder.accesses if record[1] == "open"]
        assert opened[3] == os.path.join(os.path.realpath(top), "missing")


#: What names the judge to learner code (issue 37): none may be in the
#: worker's script, its environment or how it is started.
JUDGE_WORDS = ("day7", "verify", "judge", "hypothesis", "pytest", "worker")


def test_the_workers_script_names_nothing_of_the_judge() -> None:
    """The worker runs as one script (judge/script.py) whose text, read by
    learner code through its frames or __main__, holds no word of ours; and
    it is the worker package's code, whole (it still starts and serves)."""
    from judge.script import SCRIPT, worker_source

    text = worker_source().lower()
    assert not [word for word in JUDGE_WORDS if word in text]
    assert text.rstrip().endswith("main()") and "class server" in text
    assert not [word for word in JUDGE_WORDS if word in SCRIPT]


def test_the_workers_environment_is_built_from_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """However the judge's own environment looks (its scratch, Hypothesis's
    storage, pytest's variables, the seed), the worker gets PATH, HOME,
    TMPDIR and the locale only, HOME and TMPDIR as the command says."""
    from judge.remote import WORKER_PATH, _environment

    for name in ("DAY7_SCRATCH", "HYPOTHESIS_STORAGE_DIRECTORY", "DAY7_VERIFY_SEED"):
        monkeypatch.setenv(name, "/judge/day7")
    monkeypatch.setenv("PATH", "/opt/day7/bin:/usr/bin")
    given = {"env": {"HOME": "/s/home", "TMPDIR": "/tmp"}}
    environment = _environment(given, "/s/lib")
    assert environment == {
        "PATH": WORKER_PATH,
        "HOME": "/s/home",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }
    assert _environment({}, "/s/lib")["HOME"] == "/s/lib"
    assert not [w for w in JUDGE_WORDS if w in json.dumps(environment).lower()]
