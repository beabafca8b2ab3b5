"""The bundled workspace: its policy, boundary, tools, approvals and receipts."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evaluator import (
    AgentError,
    ApprovalDecision,
    ReceiptStore,
    ToolAction,
    ToolPolicy,
    Workspace,
)
from evaluator import workspace as workspace_module

Approval = Callable[[ToolAction], Any]


def approve_all(action: ToolAction) -> bool:
    return True


def make(
    root: Path,
    confirm: Approval | None = approve_all,
    store: ReceiptStore | None = None,
    **policy: Any,
) -> Workspace:
    policy.setdefault("allow_writes", True)
    return Workspace(ToolPolicy(root, **policy), confirm, store or ReceiptStore())


def python(code: str) -> tuple[str, ...]:
    return (sys.executable, "-c", code)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    return path


# --- the policy ----------------------------------------------------------------


def test_a_policy_stores_its_root_resolved(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    policy = ToolPolicy(str(tmp_path / "root" / ".." / "root"))
    assert policy.root == (tmp_path / "root").resolve()
    assert (policy.max_file_bytes, policy.max_list_entries) == (65536, 200)
    assert (policy.allow_writes, policy.allowed_commands) == (False, ())
    assert (policy.max_write_bytes, policy.command_timeout_seconds) == (65536, 30.0)
    assert ToolPolicy(tmp_path, command_timeout_seconds=2).command_timeout_seconds == 2


def test_a_policy_root_must_be_an_existing_real_directory(tmp_path: Path) -> None:
    write(tmp_path / "file", "x")
    (tmp_path / "link").symlink_to(tmp_path)
    cases = [
        (tmp_path / "missing", "must exist"),
        (tmp_path / "file", "must be a directory"),
        (tmp_path / "link", "must not be a symlink"),
        (None, "must be a path, not NoneType"),
    ]
    for root, message in cases:
        with pytest.raises(ValueError, match=message):
            ToolPolicy(root)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("max_file_bytes", 0, "positive integers: max_file_bytes=0"),
        ("max_list_entries", True, "positive integers: max_list_entries=True"),
        ("max_write_bytes", 1.5, "positive integers: max_write_bytes=1.5"),
        ("allow_writes", 1, "allow_writes must be True or False"),
        ("command_timeout_seconds", 0, "finite and positive"),
        ("command_timeout_seconds", -1.0, "finite and positive"),
        ("command_timeout_seconds", float("nan"), "finite and positive"),
        ("command_timeout_seconds", float("inf"), "finite and positive"),
        ("command_timeout_seconds", True, "finite and positive"),
        ("command_timeout_seconds", "1", "finite and positive"),
        ("allowed_commands", [("make",)], "commands must be a tuple"),
        ("allowed_commands", (["make"],), "commands must be a tuple"),
        ("allowed_commands", ((),), "non-empty argv tuples"),
        ("allowed_commands", (("",),), "non-empty strings"),
        ("allowed_commands", (("make", 1),), "non-empty strings"),
        ("allowed_commands", (("make\0",),), "without NUL"),
    ],
)
def test_a_policy_refuses_bad_limits_and_commands(
    tmp_path: Path, field: str, value: object, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        ToolPolicy(tmp_path, **{field: value})  # type: ignore[arg-type]


def test_an_approval_decision_checks_itself() -> None:
    assert ApprovalDecision(True).reason == ""
    assert ApprovalDecision(False, "too risky").approved is False
    with pytest.raises(ValueError, match="approved must be True or False"):
        ApprovalDecision(1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reason must be a string"):
        ApprovalDecision(True, None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="denial needs a non-blank reason"):
        ApprovalDecision(False, "  ")


# --- the workspace itself ------------------------------------------------------


def test_a_workspace_checks_what_it_is_built_from(tmp_path: Path) -> None:
    policy = ToolPolicy(tmp_path)
    with pytest.raises(ValueError, match="policy must be a ToolPolicy, not PosixPath"):
        Workspace(tmp_path)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="confirm_tool must be callable"):
        Workspace(policy, True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="receipt_store must be a ReceiptStore"):
        Workspace(policy, None, {})  # type: ignore[arg-type]


def test_each_workspace_gets_its_own_receipt_store(tmp_path: Path) -> None:
    first, second = Workspace(ToolPolicy(tmp_path)), Workspace(ToolPolicy(tmp_path))
    assert first.receipt_store is not second.receipt_store
    assert first.receipt_store.path is None


def test_a_workspace_method_can_be_replaced_on_one_instance(tmp_path: Path) -> None:
    workspace = Workspace(ToolPolicy(tmp_path))
    workspace.read_file = lambda raw: "patched"  # type: ignore[method-assign]
    assert workspace.read_file("anything") == "patched"


def test_the_available_tools_follow_the_policy(tmp_path: Path) -> None:
    reads = {"list_files", "read_file"}
    writes = {"write_file", "edit_file"}
    command = (("make",),)
    assert Workspace(ToolPolicy(tmp_path)).available_tools == reads
    assert make(tmp_path).available_tools == reads | writes
    assert Workspace(
        ToolPolicy(tmp_path, allowed_commands=command)
    ).available_tools == (reads | {"run_command"})


# --- the boundary --------------------------------------------------------------


PROTECTED = [
    ".aws",
    ".env",
    ".git",
    ".ssh",
    "credentials",
    "id_ed25519",
    "id_rsa",
    ".env.local",
    "server.key",
    "cert.pem",
    ".ENV",
    ".Git",
    "Credentials",
    "ID_RSA",
    ".Env.Production",
    "SERVER.KEY",
    "cert.PEM",
]


@pytest.mark.parametrize("name", PROTECTED)
def test_a_protected_name_is_refused_anywhere_in_the_path(
    tmp_path: Path, name: str
) -> None:
    write(tmp_path / name / "inner", "secret")
    workspace = Workspace(ToolPolicy(tmp_path))
    for raw in (name, f"{name}/inner", f"src/{name}", f"./{name}"):
        with pytest.raises(AgentError, match="names a protected file"):
            workspace.resolve_path(raw, must_exist=False)


@pytest.mark.parametrize("name", ["env", ".envy", "keys", "key", "pem.txt", "rsa"])
def test_a_name_that_only_looks_protected_is_allowed(tmp_path: Path, name: str) -> None:
    write(tmp_path / name, "fine")
    assert Workspace(ToolPolicy(tmp_path)).resolve_path(name) == tmp_path / name


def test_a_symlink_at_any_component_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write(root / "dir" / "file.txt", "inside")
    write(tmp_path / "outside.txt", "outside")
    (root / "to-outside").symlink_to(tmp_path / "outside.txt")
    (root / "to-inside").symlink_to(root / "dir" / "file.txt")
    (root / "dir-link").symlink_to(root / "dir")
    (root / "dangling").symlink_to(root / "nowhere")
    workspace = Workspace(ToolPolicy(root))
    for raw in ("to-outside", "to-inside", "dir-link/file.txt", "dangling"):
        with pytest.raises(AgentError, match="symlinks are not accessible"):
            workspace.resolve_path(raw, must_exist=False)


@pytest.mark.parametrize("raw", ["..", "../x", "a/../a", "a/..", "/etc/passwd"])
def test_escaping_or_absolute_paths_are_refused(tmp_path: Path, raw: str) -> None:
    write(tmp_path / "a", "x")
    with pytest.raises(AgentError, match="must be relative and stay in the workspace"):
        Workspace(ToolPolicy(tmp_path)).resolve_path(raw, must_exist=False)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "non-empty string"),
        ("  ", "non-empty string"),
        (None, "non-empty string"),
        ("a\0b", "must not contain NUL"),
        ("\ud800", "not accessible"),  # no file name can encode it
        ("x" * 300, "not accessible"),  # longer than a file name may be
    ],
)
def test_unusable_path_text_is_refused(tmp_path: Path, raw: Any, message: str) -> None:
    with pytest.raises(AgentError, match=message):
        Workspace(ToolPolicy(tmp_path)).resolve_path(raw)


def test_a_missing_path_is_refused_only_when_it_must_exist(tmp_path: Path) -> None:
    write(tmp_path / "file", "x")
    workspace = Workspace(ToolPolicy(tmp_path))
    for raw in ("missing", "new/deeper", "file/below"):
        with pytest.raises(AgentError, match="path does not exist"):
            workspace.resolve_path(raw)
        assert workspace.resolve_path(raw, must_exist=False) == tmp_path / raw


def test_spellings_of_one_path_resolve_alike(tmp_path: Path) -> None:
    write(tmp_path / "a" / "b", "x")
    workspace = Workspace(ToolPolicy(tmp_path))
    for raw in ("a/b", "./a/b", "a//b", "a/./b", "a/b/"):
        assert workspace.resolve_path(raw) == tmp_path / "a" / "b"
    assert workspace.resolve_path(".") == tmp_path


# --- listing -------------------------------------------------------------------


def test_listing_shows_files_and_directories_sorted_and_hides_the_rest(
    tmp_path: Path,
) -> None:
    write(tmp_path / "b.txt", "b")
    write(tmp_path / "src" / "main.py", "m")
    write(tmp_path / ".env", "secret")
    write(tmp_path / "A.PEM", "secret")
    (tmp_path / "link").symlink_to(tmp_path / "b.txt")
    os.mkfifo(tmp_path / "fifo")
    workspace = Workspace(ToolPolicy(tmp_path))
    assert workspace.list_files() == "file b.txt\ndir src"
    assert workspace.list_files("src") == "file src/main.py"
    assert workspace.execute(ToolAction("list_files", {})) == "file b.txt\ndir src"


def test_listing_stops_at_the_entry_limit(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        write(tmp_path / name, name)
    assert Workspace(ToolPolicy(tmp_path, max_list_entries=2)).list_files() == (
        "file a\nfile b"
    )


def test_listing_an_empty_directory_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert Workspace(ToolPolicy(tmp_path)).list_files("empty") == "(empty directory)"


def test_listing_a_file_or_an_unlistable_directory_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "a.txt", "x")
    workspace = Workspace(ToolPolicy(tmp_path))
    with pytest.raises(AgentError, match="path is not a directory"):
        workspace.list_files("a.txt")

    def failing_scandir(path: object) -> object:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(workspace_module.os, "scandir", failing_scandir)
    with pytest.raises(AgentError, match="could not list path: Input/output error"):
        workspace.list_files()


# --- reading -------------------------------------------------------------------


def test_reading_returns_the_exact_text(tmp_path: Path) -> None:
    write(tmp_path / "crlf.txt", "one\r\ntwo\r")
    write(tmp_path / "bom.txt", "\ufeffhi")
    workspace = Workspace(ToolPolicy(tmp_path))
    assert workspace.read_file("crlf.txt") == "one\r\ntwo\r"
    assert workspace.read_file("bom.txt") == "\ufeffhi"
    assert workspace.execute(ToolAction("read_file", {"path": "crlf.txt"})) == (
        "one\r\ntwo\r"
    )


def test_reading_is_bounded(tmp_path: Path) -> None:
    write(tmp_path / "five.txt", "12345")
    write(tmp_path / "six.txt", "123456")
    workspace = Workspace(ToolPolicy(tmp_path, max_file_bytes=5))
    assert workspace.read_file("five.txt") == "12345"
    with pytest.raises(AgentError, match="file exceeds 5 bytes"):
        workspace.read_file("six.txt")


def test_reading_refuses_what_is_not_a_utf8_regular_file(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "binary").write_bytes(b"\xffok")
    workspace = Workspace(ToolPolicy(tmp_path))
    for raw in ("dir", "fifo"):  # the FIFO must not block the read
        with pytest.raises(AgentError, match="path is not a regular file"):
            workspace.read_file(raw)
    with pytest.raises(AgentError, match="file is not valid UTF-8"):
        workspace.read_file("binary")


def test_a_file_that_cannot_be_opened_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "a.txt", "x")

    def failing_open(path: object, flags: int, mode: int = 0o777) -> int:
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))

    monkeypatch.setattr(workspace_module.os, "open", failing_open)
    with pytest.raises(AgentError, match="could not read file: Too many levels"):
        Workspace(ToolPolicy(tmp_path)).read_file("a.txt")


# --- writing and editing -------------------------------------------------------


def test_writing_creates_a_new_file_without_a_read(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    workspace = make(tmp_path)
    assert workspace.write_file("d/new.txt", "new\n") == "wrote d/new.txt"
    assert (tmp_path / "d" / "new.txt").read_bytes() == b"new\n"
    assert workspace.modified_files == ("d/new.txt",)


def test_replacing_needs_a_read_of_the_unchanged_file(tmp_path: Path) -> None:
    source = write(tmp_path / "a.txt", "one\n")
    workspace = make(tmp_path)
    with pytest.raises(AgentError, match="read the existing file before changing it"):
        workspace.write_file("a.txt", "two\n")
    workspace.read_file("a.txt")
    source.write_text("changed\n")
    with pytest.raises(AgentError, match="file changed since it was read"):
        workspace.write_file("a.txt", "two\n")
    assert source.read_text() == "changed\n"
    workspace.read_file("a.txt")
    assert workspace.write_file("./a.txt", "two\n") == "wrote a.txt"
    assert source.read_text() == "two\n"


def test_a_file_grown_past_the_limit_counts_as_changed(tmp_path: Path) -> None:
    source = write(tmp_path / "a.txt", "12")
    workspace = make(tmp_path, max_file_bytes=3, max_write_bytes=3)
    workspace.read_file("a.txt")
    source.write_text("12" * 10)
    with pytest.raises(AgentError, match="file changed since it was read"):
        workspace.edit_file("a.txt", "1", "3")


def test_a_file_this_workspace_wrote_can_be_changed_again(tmp_path: Path) -> None:
    # Longer than max_file_bytes but within max_write_bytes: still known.
    workspace = make(tmp_path, max_file_bytes=4, max_write_bytes=10)
    workspace.write_file("a.txt", "0123456789")
    assert workspace.edit_file("a.txt", "0", "-") == "edited a.txt"
    assert workspace.write_file("a.txt", "done") == "wrote a.txt"
    assert (tmp_path / "a.txt").read_text() == "done"
    assert workspace.modified_files == ("a.txt",)


@pytest.mark.parametrize(
    ("raw", "content", "message"),
    [
        ("dir", "x", "path is not a regular file"),
        ("missing/new.txt", "x", "parent directory does not exist"),
        ("file/new.txt", "x", "parent directory does not exist"),
        ("new.txt", "x" * 11, "write exceeds 10 bytes"),
        ("new.txt", "\ud800", "not encodable as UTF-8"),
        ("new.txt", 3, "content must be a string"),
    ],
)
def test_a_write_that_cannot_be_done_is_refused(
    tmp_path: Path, raw: str, content: Any, message: str
) -> None:
    (tmp_path / "dir").mkdir()
    write(tmp_path / "file", "x")
    workspace = make(tmp_path, max_write_bytes=10)
    with pytest.raises(AgentError, match=message):
        workspace.write_file(raw, content)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["dir", "file"]


def test_edits_replace_exactly_one_occurrence(tmp_path: Path) -> None:
    source = write(tmp_path / "a.txt", "x = 1\ny = 22\n")
    workspace = make(tmp_path)
    workspace.read_file("a.txt")
    for old, found in (("3", 0), ("2", 2), ("", 0)):
        with pytest.raises(AgentError, match=f"exactly once in a.txt, found {found}"):
            workspace.edit_file("a.txt", old, "9")
    assert workspace.edit_file("a.txt", "1", "10") == "edited a.txt"
    assert source.read_text() == "x = 10\ny = 22\n"


def test_an_edit_checks_its_texts_its_read_and_its_size(tmp_path: Path) -> None:
    write(tmp_path / "a.txt", "abc")
    workspace = make(tmp_path, max_write_bytes=5)
    with pytest.raises(AgentError, match="read the existing file"):
        workspace.edit_file("a.txt", "a", "b")
    workspace.read_file("a.txt")
    with pytest.raises(AgentError, match="old and new must be strings"):
        workspace.edit_file("a.txt", "a", None)  # type: ignore[arg-type]
    with pytest.raises(AgentError, match="write exceeds 5 bytes"):
        workspace.edit_file("a.txt", "a", "aaaa")
    with pytest.raises(AgentError, match="path does not exist"):
        workspace.edit_file("missing.txt", "a", "b")


def test_a_read_file_replaced_by_a_directory_is_not_edited(tmp_path: Path) -> None:
    source = write(tmp_path / "a.txt", "abc")
    workspace = make(tmp_path)
    workspace.read_file("a.txt")
    source.unlink()
    source.mkdir()
    with pytest.raises(AgentError, match="path is not a regular file"):
        workspace.edit_file("a.txt", "a", "b")


def test_writes_need_the_policy_to_allow_them(tmp_path: Path) -> None:
    write(tmp_path / "a.txt", "abc")
    workspace = make(tmp_path, allow_writes=False)
    workspace.read_file("a.txt")
    for change in (
        lambda: workspace.write_file("new.txt", "x"),
        lambda: workspace.edit_file("a.txt", "a", "b"),
    ):
        with pytest.raises(AgentError, match="writes are not enabled"):
            change()


def test_a_replacement_is_atomic_and_keeps_permissions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = write(tmp_path / "run.sh", "echo 1\n")
    script.chmod(0o755)  # a property to keep, not a way to hide evidence
    workspace = make(tmp_path)
    workspace.read_file("run.sh")
    replacements: list[tuple[Path, Path]] = []
    real_replace = os.replace

    def observed_replace(source: Path, target: Path) -> None:
        replacements.append((Path(source), Path(target)))
        real_replace(source, target)

    monkeypatch.setattr(workspace_module.os, "replace", observed_replace)
    workspace.edit_file("run.sh", "1", "2")
    [(temporary, target)] = replacements
    assert temporary.parent == target.parent == tmp_path
    assert target == script
    assert script.read_text() == "echo 2\n"
    assert script.stat().st_mode & 0o777 == 0o755
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run.sh"]


def test_a_failed_replacement_leaves_no_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = write(tmp_path / "a.txt", "old")
    workspace = make(tmp_path)
    workspace.read_file("a.txt")

    def failing_replace(source: Path, target: Path) -> None:
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))

    monkeypatch.setattr(workspace_module.os, "replace", failing_replace)
    with pytest.raises(AgentError, match="could not replace file: Invalid cross"):
        workspace.write_file("a.txt", "new")
    assert source.read_text() == "old"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.txt"]
    assert workspace.modified_files == ()


def test_a_temporary_file_that_cannot_be_made_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_mkstemp(**options: object) -> tuple[int, str]:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(workspace_module.tempfile, "mkstemp", failing_mkstemp)
    with pytest.raises(AgentError, match="could not replace file: No space"):
        make(tmp_path).write_file("a.txt", "new")
    assert list(tmp_path.iterdir()) == []


# --- commands ------------------------------------------------------------------


def test_a_command_runs_in_the_root_and_reports_status_and_output(
    tmp_path: Path,
) -> None:
    code = (
        "import os, sys; print(os.getcwd()); sys.stdout.flush();"
        " sys.stderr.write('warn\\r\\n'); sys.exit(3)"
    )
    command = python(code)
    workspace = Workspace(ToolPolicy(tmp_path, allowed_commands=(command,)))
    result = workspace.run_command(list(command))
    # stdout then stderr; line ends read as text would read them
    assert result == f"status: 3\noutput:\n{tmp_path}\nwarn\n"


def test_a_command_gets_no_input_and_bounded_output(tmp_path: Path) -> None:
    reads = python("import sys; print(repr(sys.stdin.read()))")
    floods = python("print('\\xe9' * 20000)")
    workspace = Workspace(ToolPolicy(tmp_path, allowed_commands=(reads, floods)))
    assert workspace.run_command(list(reads)) == "status: 0\noutput:\n''\n"
    flooded = workspace.run_command(list(floods))
    assert flooded == "status: 0\noutput:\n" + "\xe9" * 16000


def test_a_command_that_overruns_its_timeout_is_stopped(tmp_path: Path) -> None:
    command = python("import time; time.sleep(10)")
    workspace = Workspace(
        ToolPolicy(tmp_path, allowed_commands=(command,), command_timeout_seconds=0.2)
    )
    assert workspace.run_command(list(command)) == "status: timeout\noutput:\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["make"], "command is not allowed"),
        (["make", "test", "extra"], "command is not allowed"),
        ([], "command is not allowed"),
        (("make", "test"), "argv must contain non-empty strings without NUL"),
        (["make", ""], "argv must contain non-empty strings without NUL"),
        (["make", "te\0st"], "argv must contain non-empty strings without NUL"),
    ],
)
def test_only_an_exact_allowed_argv_runs(
    tmp_path: Path, argv: Any, message: str
) -> None:
    workspace = Workspace(ToolPolicy(tmp_path, allowed_commands=(("make", "test"),)))
    with pytest.raises(AgentError, match=message):
        workspace.run_command(argv)


def test_a_command_that_cannot_start_is_reported(tmp_path: Path) -> None:
    command = (str(tmp_path / "no-such-program"),)
    workspace = Workspace(ToolPolicy(tmp_path, allowed_commands=(command,)))
    with pytest.raises(AgentError, match="could not run command"):
        workspace.run_command(list(command))


# --- execute: approvals, receipts, replays -------------------------------------


def test_execute_turns_every_bad_action_into_an_error_result(tmp_path: Path) -> None:
    write(tmp_path / "a.txt", "x")
    workspace = make(tmp_path)
    cases = [
        ("not an action", None, "action must be a ToolAction, not str"),
        (ToolAction("read_file", {"path": "a.txt"}), "", "tool call id must be"),
        (ToolAction("read_file", {"path": "a.txt"}), 7, "tool call id must be"),
        (ToolAction("read_file", {}), None, "missing fields for read_file: path"),
        (ToolAction("list_files", {"path": 1}), None, "path must be a string"),
        (ToolAction("read_file", {"path": ".git"}), None, "protected"),
        (ToolAction("deploy", {}), None, "tool is not enabled: deploy"),
        (ToolAction("write_file", {"path": "b"}), None, "missing fields"),
        (ToolAction("edit_file", {"path": "a.txt", "old": "x"}), None, "missing"),
    ]
    for action, call_id, message in cases:
        result = workspace.execute(action, call_id)  # type: ignore[arg-type]
        assert result.startswith("error: ") and message in result, result


def test_disabled_effects_are_refused_before_anyone_is_asked(tmp_path: Path) -> None:
    asked: list[ToolAction] = []
    workspace = Workspace(ToolPolicy(tmp_path), lambda action: asked.append(action))
    for action in (
        ToolAction("write_file", {"path": "x", "content": "y"}),
        ToolAction("run_command", {"argv": ["make"]}),
    ):
        assert workspace.execute(action) == f"error: tool is not enabled: {action.tool}"
    assert asked == []


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        (True, "wrote a.txt"),
        (ApprovalDecision(True), "wrote a.txt"),
        (
            ApprovalDecision(False, "not today"),
            "operator denied the tool action: not today",
        ),
        (False, "operator denied the tool action"),
        (None, "operator denied the tool action"),
        ("yes", "operator denied the tool action"),
        (1, "operator denied the tool action"),
    ],
)
def test_only_true_or_an_approving_decision_lets_an_effect_run(
    tmp_path: Path, answer: object, outcome: str
) -> None:
    asked: list[ToolAction] = []

    def confirm(action: ToolAction) -> object:
        asked.append(action)
        return answer

    workspace = make(tmp_path, confirm)
    action = ToolAction("write_file", {"path": "a.txt", "content": "hi"})
    result = workspace.execute(action)
    assert result in (outcome, f"error: {outcome}")
    assert asked == [action]
    assert (tmp_path / "a.txt").exists() == (result == "wrote a.txt")


def test_without_an_approval_callback_every_effect_is_denied(tmp_path: Path) -> None:
    workspace = make(tmp_path, None)
    result = workspace.execute(ToolAction("write_file", {"path": "a", "content": "b"}))
    assert result == "error: operator denied the tool action: no approval callback"
    assert list(tmp_path.iterdir()) == []


def test_an_effect_that_cannot_run_is_refused_before_approval(tmp_path: Path) -> None:
    write(tmp_path / "a.txt", "x")
    asked: list[ToolAction] = []
    workspace = make(tmp_path, lambda action: asked.append(action) or True)
    edit = ToolAction("edit_file", {"path": "a.txt", "old": "x", "new": "y"})
    assert "read the existing file" in workspace.execute(edit)
    assert asked == []
    assert workspace.receipt_store.get("call-1") is None


def test_a_file_changed_during_approval_is_not_written(tmp_path: Path) -> None:
    source = write(tmp_path / "a.txt", "x = 1\n")

    def change_then_approve(action: ToolAction) -> bool:
        source.write_text("x = 9\n")
        return True

    workspace = make(tmp_path, change_then_approve)
    workspace.read_file("a.txt")
    edit = ToolAction("edit_file", {"path": "a.txt", "old": "1", "new": "2"})
    assert workspace.execute(edit) == "error: file changed since it was read"
    assert source.read_text() == "x = 9\n"
    assert workspace.modified_files == ()
    assert workspace.receipt_store.get("call-1") is None


def test_effects_are_receipted_under_call_ids_in_order(tmp_path: Path) -> None:
    write(tmp_path / "app.py", "answer = 1\n")
    ok, fails = python("print('fine')"), python("import sys; sys.exit(2)")
    answers = iter([True, False, True, True, True])
    store = ReceiptStore()
    workspace = make(
        tmp_path, lambda action: next(answers), store, allowed_commands=(ok, fails)
    )
    workspace.read_file("app.py")
    edit = ToolAction("edit_file", {"path": "./app.py", "old": "1", "new": "2"})
    assert workspace.execute(edit) == "edited app.py"
    # A denied attempt uses up its call id, as the course's workspace does.
    assert workspace.execute(ToolAction("run_command", {"argv": list(ok)})).startswith(
        "error: operator denied"
    )
    assert workspace.execute(ToolAction("run_command", {"argv": list(ok)})) == (
        "status: 0\noutput:\nfine\n"
    )
    assert workspace.execute(ToolAction("run_command", {"argv": list(fails)})) == (
        "status: 2\noutput:\n"
    )
    assert workspace.execute(ToolAction("write_file", {"path": "n.txt", "content": ""}))
    edited, denied, passed, failed, wrote = (
        store.get(f"call-{number}") for number in range(1, 6)
    )
    assert edited is not None and passed is not None and failed is not None
    assert wrote is not None and denied is None
    assert (edited.tool, edited.exit_state, edited.result) == (
        "edit_file",
        "ok",
        "edited app.py",
    )
    assert edited.arguments == {"path": "./app.py", "old": "1", "new": "2"}
    assert edited.changed_artifacts == ("app.py",)
    assert (passed.exit_state, passed.changed_artifacts) == ("ok", ())
    assert passed.arguments == {"argv": list(ok)}
    assert (failed.exit_state, failed.result) == ("error", "status: 2\noutput:\n")
    assert (wrote.tool, wrote.changed_artifacts) == ("write_file", ("n.txt",))
    assert workspace.modified_files == ("app.py", "n.txt")


def test_reads_are_neither_approved_nor_receipted(tmp_path: Path) -> None:
    write(tmp_path / "a.txt", "x")
    asked: list[ToolAction] = []
    workspace = make(tmp_path, lambda action: asked.append(action) or True)
    workspace.execute(ToolAction("read_file", {"path": "a.txt"}))
    workspace.execute(ToolAction("list_files", {"path": "."}))
    assert asked == []
    assert workspace.receipt_store.get("call-1") is None


def test_a_repeated_call_id_replays_the_result_without_running_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[object] = []

    def fake_run(command: object, **options: object) -> object:
        runs.append(command)  # text output, as a test double may give it
        return SimpleNamespace(returncode=0, stdout="pass\r\n", stderr=None)

    monkeypatch.setattr(workspace_module.subprocess, "run", fake_run)
    asked: list[ToolAction] = []
    workspace = make(
        tmp_path,
        lambda action: asked.append(action) or True,
        allowed_commands=(("check",),),
    )
    action = ToolAction("run_command", {"argv": ["check"]})
    assert workspace.execute(action, "same") == "status: 0\noutput:\npass\n"
    assert workspace.execute(action, "same") == "status: 0\noutput:\npass\n"
    assert len(runs) == 1 and len(asked) == 1
    other = ToolAction("run_command", {"argv": ["check", "more"]})
    assert workspace.execute(other, "same") == (
        "error: tool call id same was already used for another action"
    )
    write_action = ToolAction("write_file", {"path": "a", "content": "b"})
    assert "already used" in workspace.execute(write_action, "same")


def test_new_call_ids_skip_ids_already_in_the_log(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    make(tmp_path, store=ReceiptStore(log)).write_file("seed.txt", "")
    first = make(tmp_path, store=ReceiptStore(log))
    first.execute(ToolAction("write_file", {"path": "a.txt", "content": "1"}))
    reloaded = make(tmp_path, store=ReceiptStore(log))
    reloaded.execute(ToolAction("write_file", {"path": "b.txt", "content": "2"}))
    store = ReceiptStore(log)
    call_1, call_2 = store.get("call-1"), store.get("call-2")
    assert call_1 is not None and call_1.changed_artifacts == ("a.txt",)
    assert call_2 is not None and call_2.changed_artifacts == ("b.txt",)


def test_a_receipt_that_cannot_be_logged_is_reported(tmp_path: Path) -> None:
    store = ReceiptStore()
    store.path = tmp_path  # a directory: the append fails
    workspace = make(tmp_path, store=store)
    result = workspace.execute(ToolAction("write_file", {"path": "a", "content": "b"}))
    assert result.startswith("error: could not append receipt log")
    assert store.get("call-1") is None


def test_command_output_text_is_normalised_like_a_text_pipe() -> None:
    assert workspace_module._output_text(None) == ""
    assert workspace_module._output_text(b"a\r\nb\rc\xff") == "a\nb\nc\ufffd"
    assert workspace_module._output_text("a\r\n") == "a\n"


def test_run_command_calls_the_subprocess_module_without_a_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[dict[str, object]] = []

    def fake_run(command: object, **options: object) -> object:
        seen.append({"command": command, **options})
        return subprocess.CompletedProcess(command, 0, b"", b"")

    monkeypatch.setattr(workspace_module.subprocess, "run", fake_run)
    workspace = Workspace(ToolPolicy(tmp_path, allowed_commands=(("make",),)))
    workspace.run_command(["make"])
    [call] = seen
    assert call["command"] == ("make",)
    assert call["cwd"] == tmp_path
    assert call.get("shell", False) is False
    assert call["stdin"] is subprocess.DEVNULL
