"""The bundled evaluator beyond the chapter: it cannot be hung, flooded or led outside.

What the file at an expected path *is* decides these examples (FIFO, socket,
device node, symlink, directory, a sparse file of 10 GiB), never permissions:
the suite runs as root.  Calls that could hang run in a worker thread with a
timeout, so a regression fails instead of stalling the suite.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import evaluator._evidence as evidence
from evaluator import (
    AgentEvent,
    AgentRun,
    EffectReceipt,
    EvaluationCase,
    EvaluationCheck,
    EvaluationReport,
    FileExpectation,
    FinalAction,
    ReceiptExpectation,
    ReceiptStore,
    ResultExpectation,
    ToolAction,
    ToolPolicy,
    Workspace,
    evaluate_run,
)

EXPECTED = "answer = 2\n"
EDIT = ReceiptExpectation("call-1", "edit_file", "ok", "edited app.py", ("app.py",))
HANG_LIMIT = 5.0  # seconds a worker may take before the test calls it a hang


def run_done() -> AgentRun:
    final = FinalAction("done")
    return AgentRun(True, "completed", "done", (AgentEvent(1, "{}", final, None),))


def evaluate_within(
    limit: float,
    run: AgentRun,
    workspace: Workspace,
    store: ReceiptStore,
    case: EvaluationCase,
) -> tuple[EvaluationReport, float]:
    """evaluate_run in a daemon thread; fail (not hang) when it blocks."""
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["report"] = evaluate_run(run, workspace, store, case)
        except BaseException as error:  # handed to the test thread
            outcome["error"] = error

    worker = threading.Thread(target=work, daemon=True)
    started = time.perf_counter()
    worker.start()
    worker.join(limit)
    elapsed = time.perf_counter() - started
    if worker.is_alive():
        pytest.fail(f"evaluate_run still blocked after {limit} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["report"], elapsed


def file_check(
    root: Path, path: str = "app.py", content: str = EXPECTED
) -> EvaluationCheck:
    case = EvaluationCase("done", files=(FileExpectation(path, content),))
    report, _ = evaluate_within(
        HANG_LIMIT, run_done(), Workspace(ToolPolicy(root)), ReceiptStore(), case
    )
    return report.checks[1]


def store_naming(log: object) -> ReceiptStore:
    """An empty store whose log is ``log``: evaluation reloads from there."""
    store = ReceiptStore()
    store.path = log  # type: ignore[assignment]
    return store


def receipt_checks(root: Path, log: object) -> tuple[EvaluationCheck, ...]:
    return receipt_checks_of(Workspace(ToolPolicy(root)), store_naming(log))


def receipt_checks_of(
    workspace: Workspace, store: ReceiptStore
) -> tuple[EvaluationCheck, ...]:
    expectations = (EDIT, ReceiptExpectation("call-2", "run_command", "ok", "status"))
    case = EvaluationCase("done", receipts=expectations)
    report, _ = evaluate_within(HANG_LIMIT, run_done(), workspace, store, case)
    return report.checks[1:]


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def no_descriptor_leak() -> Iterator[None]:
    before = open_descriptors()
    yield
    assert open_descriptors() == before


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    return workspace


def make_socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
    finally:
        server.close()  # the socket file stays behind


def make_device(path: Path, kind: int, device: int) -> None:
    try:
        os.mknod(path, kind | 0o600, device)
    except PermissionError:
        pytest.skip("creating device nodes needs CAP_MKNOD")


# --- files that are not regular files ----------------------------------------


def test_a_fifo_at_an_expected_path_fails_at_once(
    root: Path, no_descriptor_leak: None
) -> None:
    os.mkfifo(root / "app.py")
    case = EvaluationCase("done", files=(FileExpectation("app.py", EXPECTED),))
    report, elapsed = evaluate_within(
        HANG_LIMIT, run_done(), Workspace(ToolPolicy(root)), ReceiptStore(), case
    )
    assert elapsed < 1.0, f"took {elapsed:.3f} s"
    assert report.checks[1] == EvaluationCheck(
        "file:app.py",
        False,
        "evidence unavailable: app.py is a FIFO, not a regular file",
    )


def test_a_fifo_deeper_in_the_tree_fails_at_once(root: Path) -> None:
    (root / "src" / "pkg").mkdir(parents=True)
    os.mkfifo(root / "src" / "pkg" / "app.py")
    check = file_check(root, "src/pkg/app.py")
    assert check.detail == (
        "evidence unavailable: src/pkg/app.py is a FIFO, not a regular file"
    )


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (make_socket, "a socket"),
        (
            lambda path: make_device(path, stat.S_IFCHR, os.makedev(1, 5)),
            "a character device",
        ),
        (
            lambda path: make_device(path, stat.S_IFBLK, os.makedev(7, 200)),
            "a block device",
        ),
        (lambda path: path.mkdir(), "a directory"),
    ],
    ids=["socket", "zero-twin", "block-device", "directory"],
)
def test_other_non_regular_files_are_unavailable_and_never_opened(
    root: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], None], kind: str
) -> None:
    make(root / "app.py")
    opened: list[object] = []
    real_open = os.open

    def recording_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        opened.append(path)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(evidence.os, "open", recording_open)
    check = file_check(root)
    monkeypatch.undo()
    assert check.detail == f"evidence unavailable: app.py is {kind}, not a regular file"
    assert "app.py" not in opened


# --- symlinks and escapes ----------------------------------------------------


@pytest.mark.parametrize("where", ["inside", "outside"])
def test_a_symlink_to_identical_bytes_is_still_unavailable(
    root: Path, where: str
) -> None:
    target = root / "real.py" if where == "inside" else root.parent / "outside.py"
    target.write_text(EXPECTED, encoding="utf-8")
    (root / "app.py").symlink_to(target)
    check = file_check(root)
    assert not check.passed
    assert check.detail.startswith("evidence unavailable: ")
    assert "symlink" in check.detail


def test_a_symlinked_directory_on_the_way_is_unavailable(root: Path) -> None:
    outside = root.parent / "elsewhere"
    outside.mkdir()
    (outside / "app.py").write_text(EXPECTED, encoding="utf-8")
    (root / "src").symlink_to(outside, target_is_directory=True)
    check = file_check(root, "src/app.py")
    assert not check.passed and "symlink" in check.detail


def swap_after_resolve(
    monkeypatch: pytest.MonkeyPatch, workspace: Workspace, swap: Callable[[], None]
) -> None:
    """Let the boundary approve a path, then change the tree before the read."""
    real = workspace.resolve_path

    def resolve_then_swap(raw: str, *, must_exist: bool = True) -> Path:
        resolved = real(raw, must_exist=must_exist)
        swap()
        return resolved

    monkeypatch.setattr(workspace, "resolve_path", resolve_then_swap)


def test_a_directory_swapped_for_a_symlink_after_the_check_is_not_followed(
    root: Path, monkeypatch: pytest.MonkeyPatch, no_descriptor_leak: None
) -> None:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("answer = 1\n", encoding="utf-8")
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "app.py").write_text(EXPECTED, encoding="utf-8")

    def swap() -> None:
        (root / "src").rename(root / "old-src")
        (root / "src").symlink_to(outside, target_is_directory=True)

    workspace = Workspace(ToolPolicy(root))
    swap_after_resolve(monkeypatch, workspace, swap)
    case = EvaluationCase("done", files=(FileExpectation("src/app.py", EXPECTED),))
    check = evaluate_run(run_done(), workspace, ReceiptStore(), case).checks[1]
    assert not check.passed
    assert check.detail.startswith(
        "evidence unavailable: could not open directory src without following links"
    )


def test_a_file_swapped_for_a_symlink_after_the_check_is_not_followed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "app.py").write_text("answer = 1\n", encoding="utf-8")
    outside = root.parent / "outside.py"
    outside.write_text(EXPECTED, encoding="utf-8")

    def swap() -> None:
        (root / "app.py").unlink()
        (root / "app.py").symlink_to(outside)

    workspace = Workspace(ToolPolicy(root))
    swap_after_resolve(monkeypatch, workspace, swap)
    case = EvaluationCase("done", files=(FileExpectation("app.py", EXPECTED),))
    check = evaluate_run(run_done(), workspace, ReceiptStore(), case).checks[1]
    assert (
        check.detail == "evidence unavailable: app.py is a symlink, not a regular file"
    )


def test_a_file_swapped_for_a_fifo_between_inspection_and_open_is_refused(
    root: Path, monkeypatch: pytest.MonkeyPatch, no_descriptor_leak: None
) -> None:
    (root / "decoy").write_text(EXPECTED, encoding="utf-8")
    os.mkfifo(root / "app.py")
    real_stat = os.stat

    def stale_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        # What lstat saw an instant before the swap: a regular file.
        return real_stat("decoy" if path == "app.py" else path, *args, **kwargs)

    monkeypatch.setattr(evidence.os, "stat", stale_stat)
    check = file_check(root)
    monkeypatch.undo()
    assert (
        check.detail == "evidence unavailable: app.py was replaced while it was opened"
    )


def test_a_regular_file_replaced_by_another_between_inspection_and_open_is_refused(
    root: Path, monkeypatch: pytest.MonkeyPatch, no_descriptor_leak: None
) -> None:
    (root / "decoy").write_text(EXPECTED, encoding="utf-8")
    (root / "app.py").write_text(EXPECTED, encoding="utf-8")
    real_stat = os.stat

    def stale_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        return real_stat("decoy" if path == "app.py" else path, *args, **kwargs)

    monkeypatch.setattr(evidence.os, "stat", stale_stat)
    check = file_check(root)
    monkeypatch.undo()
    assert (
        check.detail == "evidence unavailable: app.py was replaced while it was opened"
    )


@pytest.mark.parametrize(
    ("answer", "detail"),
    [
        (
            lambda root: root.parent / "outside.py",
            "path resolves outside the workspace root",
        ),
        (lambda root: root, "path does not name a file below the root"),
        (
            lambda root: root / "a" / ".." / "app.py",
            "path does not name a file below the root",
        ),
        # The wording of Path()'s TypeError differs between Python versions.
        (lambda root: 42, ""),
    ],
    ids=["outside", "root-itself", "dot-dot", "not-a-path"],
)
def test_a_faulty_resolve_path_cannot_steer_the_read(
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    answer: Callable[[Path], object],
    detail: str,
) -> None:
    (root.parent / "outside.py").write_text(EXPECTED, encoding="utf-8")
    (root / "app.py").write_text(EXPECTED, encoding="utf-8")
    workspace = Workspace(ToolPolicy(root))
    monkeypatch.setattr(workspace, "resolve_path", lambda raw, **_: answer(root))
    case = EvaluationCase("done", files=(FileExpectation("app.py", EXPECTED),))
    check = evaluate_run(run_done(), workspace, ReceiptStore(), case).checks[1]
    assert not check.passed
    assert check.detail.startswith(f"evidence unavailable: {detail}")
    assert check.detail != "evidence unavailable: "


@pytest.mark.parametrize(
    "error", [RuntimeError("odd"), KeyError("k"), RecursionError()]
)
def test_anything_resolve_path_raises_is_unavailable_evidence(
    root: Path, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    workspace = Workspace(ToolPolicy(root))

    def raising(raw: str, **_: object) -> Path:
        raise error

    monkeypatch.setattr(workspace, "resolve_path", raising)
    case = EvaluationCase("done", files=(FileExpectation("app.py", EXPECTED),))
    check = evaluate_run(run_done(), workspace, ReceiptStore(), case).checks[1]
    assert not check.passed and check.detail.startswith("evidence unavailable: ")


def test_a_root_moved_away_after_the_check_is_unavailable_evidence(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "app.py").write_text(EXPECTED, encoding="utf-8")
    workspace = Workspace(ToolPolicy(root))
    swap_after_resolve(
        monkeypatch, workspace, lambda: root.rename(root.parent / "moved")
    )
    case = EvaluationCase("done", files=(FileExpectation("app.py", EXPECTED),))
    check = evaluate_run(run_done(), workspace, ReceiptStore(), case).checks[1]
    assert check.detail.startswith(
        "evidence unavailable: could not open the workspace root"
    )


def test_a_file_vanishing_after_the_check_is_unavailable(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "app.py").write_text(EXPECTED, encoding="utf-8")
    workspace = Workspace(ToolPolicy(root))
    swap_after_resolve(monkeypatch, workspace, (root / "app.py").unlink)
    case = EvaluationCase("done", files=(FileExpectation("app.py", EXPECTED),))
    check = evaluate_run(run_done(), workspace, ReceiptStore(), case).checks[1]
    assert check.detail.startswith("evidence unavailable: could not inspect app.py")


def test_an_open_failure_is_unavailable(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "app.py").write_text(EXPECTED, encoding="utf-8")
    real_open = os.open

    def failing_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if path == "app.py":
            raise OSError(errno.EACCES, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(evidence.os, "open", failing_open)
    check = file_check(root)
    monkeypatch.undo()
    assert (
        check.detail
        == "evidence unavailable: could not open app.py: [Errno 13] Permission denied"
    )


@pytest.mark.parametrize("failing", ["fstat", "read"])
def test_fstat_and_read_failures_are_unavailable_and_close_the_file(
    root: Path, monkeypatch: pytest.MonkeyPatch, no_descriptor_leak: None, failing: str
) -> None:
    (root / "app.py").write_text(EXPECTED, encoding="utf-8")

    def failing_call(*_args: object) -> object:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(evidence.os, failing, failing_call)
    check = file_check(root)
    monkeypatch.undo()
    assert not check.passed
    assert check.detail.startswith("evidence unavailable: ")
    assert "Input/output error" in check.detail


# --- bounded reads -----------------------------------------------------------


@pytest.fixture
def counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every chunk the evidence reader gets back from os.read."""
    sizes: list[int] = []
    real_read = os.read

    def counting_read(descriptor: int, size: int) -> bytes:
        data = real_read(descriptor, size)
        sizes.append(len(data))
        return data

    monkeypatch.setattr(evidence.os, "read", counting_read)
    return sizes


def test_a_huge_sparse_file_is_a_quick_bounded_mismatch(
    root: Path, counted_reads: list[int], no_descriptor_leak: None
) -> None:
    with open(root / "app.py", "wb") as handle:
        handle.write(EXPECTED.encode())
        handle.truncate(10 * 1024**3)  # 10 GiB, almost all of it a hole
    case = EvaluationCase("done", files=(FileExpectation("app.py", EXPECTED),))
    report, elapsed = evaluate_within(
        HANG_LIMIT, run_done(), Workspace(ToolPolicy(root)), ReceiptStore(), case
    )
    assert report.checks[1] == EvaluationCheck(
        "file:app.py", False, "content does not match"
    )
    assert sum(counted_reads) == evidence.read_budget(len(EXPECTED)) + 1
    assert elapsed < 1.0


def test_a_huge_file_with_invalid_utf8_in_its_first_window_is_unavailable(
    root: Path, counted_reads: list[int]
) -> None:
    with open(root / "app.py", "wb") as handle:
        handle.write(b"answer = \xff\n")
        handle.truncate(10 * 1024**3)
    check = file_check(root)
    assert (
        check.detail
        == "evidence unavailable: app.py is not valid UTF-8 (byte offset 9)"
    )
    assert sum(counted_reads) <= evidence.read_budget(len(EXPECTED)) + 1


WINDOW = evidence.WINDOW_BYTES


def test_the_budget_is_the_window_or_the_expected_size() -> None:
    assert evidence.read_budget(0) == WINDOW
    assert evidence.read_budget(11) == WINDOW
    assert evidence.read_budget(WINDOW + 5) == WINDOW + 5


@pytest.mark.parametrize(
    ("data", "detail"),
    [
        # Up to the budget the whole file is decoded: same verdict as a full read.
        (b"a" * (WINDOW - 1) + b"\xff", "unavailable"),
        (b"a" * WINDOW, "content does not match"),
        (b"answer = 2\n" + b"\xff" * 3, "unavailable"),
        # One byte over the budget: longer than expected, so a mismatch, unless
        # the bytes read already hold invalid UTF-8.
        (b"a" * WINDOW + b"\xff", "unavailable"),
        (b"\xff" + b"a" * WINDOW, "unavailable"),
        (b"a" * (WINDOW - 1) + "\u00e9".encode(), "content does not match"),
        (b"a" * (WINDOW - 2) + "\u20ac".encode(), "content does not match"),
        # Beyond the bytes read nothing is looked at, the documented limit:
        # neither a later invalid byte nor a character cut by the end of file.
        (b"a" * (WINDOW + 1) + b"\xff", "content does not match"),
        (b"a" * (WINDOW - 1) + b"\xe2\x82", "content does not match"),
    ],
    ids=[
        "invalid-last-byte-in-window",
        "exactly-window",
        "invalid-tail-of-small-file",
        "invalid-first-byte-over",
        "invalid-at-start",
        "two-byte-char-cut-at-edge",
        "three-byte-char-cut-at-edge",
        "invalid-beyond-what-is-read",
        "char-cut-by-end-of-file-beyond-what-is-read",
    ],
)
def test_the_verdict_at_the_edge_of_the_read_budget(
    root: Path, data: bytes, detail: str, counted_reads: list[int]
) -> None:
    (root / "app.py").write_bytes(data)
    check = file_check(root)
    assert not check.passed
    if detail == "unavailable":
        assert check.detail.startswith(
            "evidence unavailable: app.py is not valid UTF-8"
        )
    else:
        assert check.detail == detail
    assert sum(counted_reads) <= WINDOW + 1


@pytest.mark.parametrize(
    ("data", "passed"),
    [
        ("x" * (WINDOW + 10), True),
        ("x" * (WINDOW + 11), False),
        ("x" * (WINDOW + 9), False),
        ("x" * (WINDOW + 9) + "y", False),
    ],
    ids=["equal", "one-longer", "one-shorter", "one-different"],
)
def test_expected_content_beyond_the_window_is_compared_whole(
    root: Path, data: str, passed: bool, counted_reads: list[int]
) -> None:
    (root / "app.py").write_text(data, encoding="utf-8")
    check = file_check(root, content="x" * (WINDOW + 10))
    assert check.passed is passed
    assert sum(counted_reads) <= WINDOW + 11


def test_a_file_growing_while_read_stops_at_the_budget(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "app.py").write_bytes(b"a")
    # A reader that always has more: like a file being appended to.
    monkeypatch.setattr(evidence.os, "read", lambda _fd, size: b"a" * size)
    check = file_check(root)
    monkeypatch.undo()
    assert check.detail == "content does not match"


# --- receipt logs that are not plain files -----------------------------------


def write_log(path: Path) -> None:
    store = ReceiptStore(path)
    store.put(
        EffectReceipt("call-1", "edit_file", {}, "ok", "edited app.py", ("app.py",))
    )
    store.put(EffectReceipt("call-2", "run_command", {}, "ok", "status: 0\n", ()))


def test_a_valid_log_passes(root: Path) -> None:
    log = root.parent / "receipts.jsonl"
    write_log(log)
    assert all(check.passed for check in receipt_checks(root, log))


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda path: path.mkdir(), "a directory"),
        (lambda path: os.mkfifo(path), "a FIFO"),
        (make_socket, "a socket"),
        (
            lambda path: make_device(path, stat.S_IFCHR, os.makedev(1, 5)),
            "a character device",
        ),
        (lambda path: path.symlink_to(path.parent / "real.jsonl"), "a symlink"),
        (lambda path: path.symlink_to(path.parent / "fifo"), "a symlink"),
    ],
    ids=[
        "directory",
        "fifo",
        "socket",
        "zero-twin",
        "symlink-to-log",
        "symlink-to-fifo",
    ],
)
def test_a_log_that_is_not_a_regular_file_fails_every_receipt_at_once(
    root: Path, make: Callable[[Path], None], kind: str
) -> None:
    write_log(root.parent / "real.jsonl")
    os.mkfifo(root.parent / "fifo")
    log = root.parent / "receipts.jsonl"
    make(log)
    started = time.perf_counter()
    checks = receipt_checks(root, log)
    assert time.perf_counter() - started < 1.0
    detail = f"receipt evidence unavailable: the log is {kind}, not a regular file"
    assert [check.detail for check in checks] == [detail, detail]
    assert not any(check.passed for check in checks)


def test_a_missing_log_is_absent_receipts_and_is_not_created(root: Path) -> None:
    log = root.parent / "receipts.jsonl"
    checks = receipt_checks(root, log)
    assert [check.detail for check in checks] == ["receipt is absent"] * 2
    assert not os.path.lexists(log)


def test_an_oversized_log_is_refused_without_reading(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = root.parent / "receipts.jsonl"
    write_log(log)
    with open(log, "ab") as handle:
        handle.truncate(10 * 1024**3)

    def forbidden(*_args: object) -> None:
        raise AssertionError("an oversized log was loaded")

    workspace, store = Workspace(ToolPolicy(root)), store_naming(log)
    monkeypatch.setattr(ReceiptStore, "__post_init__", forbidden)
    checks = receipt_checks_of(workspace, store)
    assert checks[0].detail == (
        "receipt evidence unavailable: the log exceeds 67108864 bytes"
    )


@pytest.mark.parametrize("path", ["a\0b", 17], ids=["nul", "int"])
def test_a_nonsense_log_path_is_unavailable(root: Path, path: object) -> None:
    checks = receipt_checks(root, path)  # type: ignore[arg-type]
    assert all(c.detail.startswith("receipt evidence unavailable: ") for c in checks)


def test_an_unreachable_log_is_unavailable(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def denied(_path: object) -> os.stat_result:
        raise PermissionError(errno.EACCES, "Permission denied")

    workspace = Workspace(ToolPolicy(root))
    store = store_naming(root.parent / "receipts.jsonl")
    monkeypatch.setattr("evaluator.evaluation.os.lstat", denied)
    try:
        checks = receipt_checks_of(workspace, store)
    finally:
        monkeypatch.undo()
    assert (
        checks[0].detail == "receipt evidence unavailable: [Errno 13] Permission denied"
    )


@pytest.mark.parametrize(
    "error", [RuntimeError("loader broke"), MemoryError(), UnicodeError("u")]
)
def test_anything_the_loader_raises_is_unavailable(
    root: Path, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    log = root.parent / "receipts.jsonl"
    write_log(log)

    def raising(self: ReceiptStore) -> None:
        raise error

    workspace, store = Workspace(ToolPolicy(root)), store_naming(log)
    monkeypatch.setattr(ReceiptStore, "__post_init__", raising)
    checks = receipt_checks_of(workspace, store)
    assert all(c.detail.startswith("receipt evidence unavailable: ") for c in checks)


def test_a_reloaded_store_whose_lookup_raises_is_a_lookup_failure(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = root.parent / "receipts.jsonl"
    write_log(log)

    def raising(self: ReceiptStore, call_id: str) -> None:
        raise LookupError(f"no index for {call_id}")

    monkeypatch.setattr(ReceiptStore, "get", raising)
    checks = receipt_checks(root, log)
    assert [c.detail for c in checks] == [
        "receipt lookup failed: no index for call-1",
        "receipt lookup failed: no index for call-2",
    ]


# --- odd runs ----------------------------------------------------------------


def test_odd_runs_never_make_evaluation_raise(root: Path) -> None:
    (root / "app.py").write_text(EXPECTED, encoding="utf-8")
    action = ToolAction("run_command", {})
    odd_action = ToolAction("run_command", {})
    object.__setattr__(odd_action, "tool", {"unhashable": True})
    odd_events = (
        None,
        "run_command validation passed",
        AgentEvent(1, None, None, None),  # type: ignore[arg-type]
        AgentEvent(2, "x", action, b"validation passed"),  # type: ignore[arg-type]
        AgentEvent(3, "x", odd_action, "validation passed"),
        AgentEvent(4, "x", "run_command", "validation passed"),  # type: ignore[arg-type]
    )
    case = EvaluationCase(
        "validated",
        files=(FileExpectation("app.py", EXPECTED),),
        results=(ResultExpectation("run_command", "validation passed"),),
    )
    for run in (
        AgentRun(True, "completed", None, odd_events),
        AgentRun(True, "completed", 3.5, odd_events),  # type: ignore[arg-type]
        AgentRun(None, None, None, None),  # type: ignore[arg-type]
    ):
        report = evaluate_run(run, Workspace(ToolPolicy(root)), ReceiptStore(), case)
        assert [c.passed for c in report.checks] == [False, True, False]


# --- read-only, observed from outside ----------------------------------------


def snapshot(top: Path) -> dict[str, tuple[str, bytes | str | None, int]]:
    """Every entry under ``top``: kind, bytes (or link target), and mtime."""
    entries: dict[str, tuple[str, bytes | str | None, int]] = {}
    for directory, names, files in os.walk(top):
        for name in names + files:
            path = Path(directory, name)
            info = path.lstat()
            if stat.S_ISREG(info.st_mode):
                content: bytes | str | None = path.read_bytes()
            elif stat.S_ISLNK(info.st_mode):
                content = os.readlink(path)
            else:
                content = None
            entries[str(path.relative_to(top))] = (
                evidence.describe_kind(info.st_mode),
                content,
                info.st_mtime_ns,
            )
    return entries


def test_evaluation_changes_no_byte_and_opens_nothing_for_writing(
    tmp_path: Path,
) -> None:
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "app.py").write_text(EXPECTED, encoding="utf-8")
    (root / "bad.py").write_bytes(b"\xff")
    (root / "dir").mkdir()
    os.mkfifo(root / "fifo")
    (root / "link").symlink_to(root / "app.py")
    log = tmp_path / "receipts.jsonl"
    write_log(log)
    store = ReceiptStore(log)
    run = run_done()
    case = EvaluationCase(
        "done",
        files=tuple(
            FileExpectation(name, EXPECTED)
            for name in ("app.py", "bad.py", "dir", "fifo", "link", "missing.py")
        ),
        results=(ResultExpectation("run_command", "status"),),
        receipts=(EDIT, ReceiptExpectation("call-9", "t", "ok", "x")),
    )
    before = snapshot(tmp_path)
    audited: list[tuple[str, tuple[Any, ...]]] = []
    watching = True

    def audit(event: str, arguments: tuple[Any, ...]) -> None:
        if watching and threading.current_thread() is main_thread:
            audited.append((event, arguments))

    main_thread = threading.current_thread()
    sys.addaudithook(audit)  # cannot be removed; `watching` switches it off
    try:
        report = evaluate_run(run, Workspace(ToolPolicy(root)), store, case)
    finally:
        watching = False
    assert snapshot(tmp_path) == before
    assert [c.passed for c in report.checks] == [True, True] + [False] * 5 + [
        False,
        True,
        False,
    ]
    writes = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    opens = [args for event, args in audited if event == "open"]
    assert opens, "the audit hook saw no open at all"
    for path, mode, flags in opens:
        assert flags & writes == 0 and (mode is None or "r" in mode), (
            path,
            mode,
            flags,
        )
    forbidden = {
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.fork",
    }
    assert not [event for event, _ in audited if event in forbidden]
    changes = (
        "os.remove",
        "os.rename",
        "os.mkdir",
        "os.chmod",
        "os.utime",
        "os.truncate",
    )
    assert not [event for event, _ in audited if event.startswith(changes)]


def test_evaluation_never_calls_the_tools_the_callback_or_put(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "app.py").write_text(EXPECTED, encoding="utf-8")
    log = root.parent / "receipts.jsonl"
    write_log(log)
    calls: list[str] = []

    def confirm(action: ToolAction) -> bool:
        calls.append("confirm_tool")
        return True

    store = ReceiptStore(log)
    workspace = Workspace(ToolPolicy(root, allow_writes=True), confirm, store)
    for name in (
        "read_file",
        "write_file",
        "edit_file",
        "run_command",
        "execute",
        "list_files",
    ):
        monkeypatch.setattr(workspace, name, lambda *a, _n=name, **k: calls.append(_n))
    monkeypatch.setattr(ReceiptStore, "put", lambda *a: calls.append("put"))
    command = ToolAction("run_command", {"argv": ["check"]})
    run = AgentRun(
        True,
        "completed",
        "done",
        (AgentEvent(1, "{}", command, "status: 0\noutput:\nok\n"), *run_done().events),
    )
    case = EvaluationCase(
        "done",
        files=(FileExpectation("app.py", EXPECTED),),
        results=(ResultExpectation("run_command", "status: 0"),),
        receipts=(EDIT,),
    )
    before = (repr(run), workspace.modified_files)
    report = evaluate_run(run, workspace, store, case)
    assert report.passed
    assert calls == []
    assert (repr(run), workspace.modified_files) == before
