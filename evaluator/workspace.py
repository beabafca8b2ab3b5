"""The workspace: the one directory an agent may see and change, and its tools.

Reads are free.  Effects (write, edit, command) are checked, shown to the
operator for approval, checked again, carried out, and recorded as receipts.
A file may only be replaced or edited when this workspace read it before and
its bytes have not changed since, so the model never overwrites what it has
not seen.

This is a boundary for one trusted operator in one process, not a sandbox:
a hostile process racing the workspace on the same tree can still swap a
checked directory for a symlink between the check and the use.
"""

from __future__ import annotations

import hashlib
import math
import os
import stat
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._bounded import read_at_most
from .protocol import AgentError, ToolAction, check_arguments
from .receipts import EffectReceipt, ReceiptStore

_PROTECTED_NAMES = frozenset(
    {".aws", ".env", ".git", ".ssh", "credentials", "id_ed25519", "id_rsa"}
)
_PROTECTED_SUFFIXES = (".key", ".pem")
_MAX_COMMAND_OUTPUT_CHARS = 16_000
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
_EFFECT_VERBS = {"write_file": "wrote", "edit_file": "edited"}


def _is_protected(name: str) -> bool:
    """Whether one path component names a secret or repository metadata."""
    lowered = name.lower()
    return (
        lowered in _PROTECTED_NAMES
        or lowered.startswith(".env.")
        or lowered.endswith(_PROTECTED_SUFFIXES)
    )


@dataclass(frozen=True)
class ApprovalDecision:
    """The operator's answer to one proposed effect; a denial says why."""

    approved: bool
    reason: str = ""

    def __post_init__(self) -> None:
        if type(self.approved) is not bool:
            raise ValueError("approved must be True or False")
        if not isinstance(self.reason, str):
            raise ValueError("approval reason must be a string")
        if not self.approved and not self.reason.strip():
            raise ValueError("a denial needs a non-blank reason")


@dataclass(frozen=True)
class ToolPolicy:
    """What one workspace allows: its root, its limits and its effects."""

    root: Path
    max_file_bytes: int = 64 * 1024
    max_list_entries: int = 200
    allow_writes: bool = False
    allowed_commands: tuple[tuple[str, ...], ...] = ()
    max_write_bytes: int = 64 * 1024
    command_timeout_seconds: float = 30.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", _checked_root(self.root))
        for name in ("max_file_bytes", "max_list_entries", "max_write_bytes"):
            value = getattr(self, name)
            if type(value) is not int or value <= 0:
                raise ValueError(
                    f"workspace limits must be positive integers: {name}={value!r}"
                )
        if type(self.allow_writes) is not bool:
            raise ValueError("allow_writes must be True or False")
        timeout = self.command_timeout_seconds
        if (
            type(timeout) not in (int, float)
            or not math.isfinite(timeout)
            or timeout <= 0
        ):
            raise ValueError(
                f"command timeout must be finite and positive, not {timeout!r}"
            )
        commands = self.allowed_commands
        if not isinstance(commands, tuple) or not all(
            _is_command(command) for command in commands
        ):
            raise ValueError(
                "allowed commands must be a tuple of non-empty argv tuples "
                "of non-empty strings without NUL"
            )


def _checked_root(raw: object) -> Path:
    if not isinstance(raw, (str, os.PathLike)):
        raise ValueError(f"workspace root must be a path, not {type(raw).__name__}")
    root = Path(raw)
    if root.is_symlink():
        raise ValueError(f"workspace root must not be a symlink: {root}")
    try:
        resolved = root.resolve(strict=True)
    except (OSError, RuntimeError, ValueError) as error:
        raise ValueError(f"workspace root must exist: {root}") from error
    if not resolved.is_dir():
        raise ValueError(f"workspace root must be a directory: {root}")
    return resolved


def _is_command(command: object) -> bool:
    return (
        isinstance(command, tuple)
        and bool(command)
        and all(isinstance(part, str) and part and "\0" not in part for part in command)
    )


@dataclass
class Workspace:
    """The tools of one run under one policy, approval callback and receipt store.

    Not frozen: it remembers what it read and changed, and tests replace
    ``read_file`` on one instance.
    """

    policy: ToolPolicy
    confirm_tool: Callable[[ToolAction], bool | ApprovalDecision] | None = None
    receipt_store: ReceiptStore = field(default_factory=ReceiptStore)
    # Relative path -> SHA-256 of the bytes last read or written there.
    _observed: dict[str, str] = field(default_factory=dict, init=False, repr=False)
    _modified: set[str] = field(default_factory=set, init=False, repr=False)
    _next_call_number: int = field(default=1, init=False, repr=False)

    def __post_init__(self) -> None:
        policy: object = self.policy
        confirm: object = self.confirm_tool
        store: object = self.receipt_store
        if not isinstance(policy, ToolPolicy):
            raise ValueError(
                f"workspace policy must be a ToolPolicy, not {type(policy).__name__}"
            )
        if confirm is not None and not callable(confirm):
            raise ValueError("confirm_tool must be callable or None")
        if not isinstance(store, ReceiptStore):
            raise ValueError(
                f"receipt_store must be a ReceiptStore, not {type(store).__name__}"
            )

    @property
    def available_tools(self) -> frozenset[str]:
        """The tools this policy enables."""
        tools = {"list_files", "read_file"}
        if self.policy.allow_writes:
            tools |= {"write_file", "edit_file"}
        if self.policy.allowed_commands:
            tools.add("run_command")
        return frozenset(tools)

    @property
    def modified_files(self) -> tuple[str, ...]:
        """The relative paths this workspace wrote or edited, sorted."""
        return tuple(sorted(self._modified))

    def resolve_path(self, raw: str, *, must_exist: bool = True) -> Path:
        """The absolute path ``raw`` names inside the root, or ``AgentError``.

        Refused: a blank or non-string path, an absolute one, one with a
        ``..`` or protected component, one through a symlink anywhere, and
        (when ``must_exist``) one that does not exist.
        """
        if not isinstance(raw, str) or not raw.strip():
            raise AgentError("path must be a non-empty string")
        if "\0" in raw:
            raise AgentError("path must not contain NUL")
        relative = Path(raw)
        if relative.is_absolute() or ".." in relative.parts:
            raise AgentError(
                f"path must be relative and stay in the workspace: {raw!r}"
            )
        if any(_is_protected(part) for part in relative.parts):
            raise AgentError(f"path is not accessible: {raw!r} names a protected file")
        # The root is resolved and no component below is '.', '..' or a
        # symlink, so joining the parts is already the resolved path.
        current = self.policy.root
        for part in relative.parts:
            current /= part
            try:
                info = os.lstat(current)
            except (FileNotFoundError, NotADirectoryError):
                if must_exist:
                    raise AgentError(f"path does not exist: {raw!r}") from None
                return self.policy.root.joinpath(*relative.parts)
            except (OSError, ValueError) as error:
                raise AgentError(f"path is not accessible: {raw!r}") from error
            if stat.S_ISLNK(info.st_mode):
                raise AgentError(f"symlinks are not accessible: {raw!r}")
        return current

    def list_files(self, raw: str = ".") -> str:
        """One line per file or directory in ``raw``, bounded by the policy."""
        path = self.resolve_path(raw)
        if not path.is_dir():
            raise AgentError(f"path is not a directory: {raw!r}")
        try:
            with os.scandir(path) as scanned:
                entries = sorted(scanned, key=lambda entry: entry.name)
        except OSError as error:
            raise AgentError(f"could not list path: {error.strerror}") from error
        lines: list[str] = []
        for entry in entries:
            if len(lines) == self.policy.max_list_entries:
                break
            if entry.is_symlink() or _is_protected(entry.name):
                continue
            if entry.is_dir(follow_symlinks=False):
                kind = "dir"
            elif entry.is_file(follow_symlinks=False):
                kind = "file"
            else:
                continue
            lines.append(f"{kind} {self._relative(Path(entry.path))}")
        return "\n".join(lines) if lines else "(empty directory)"

    def read_file(self, raw: str) -> str:
        """The text of one bounded, strict UTF-8 regular file; remembered for edits."""
        path = self.resolve_path(raw)
        limit = self.policy.max_file_bytes
        data = _read_regular(path, limit)
        if len(data) > limit:
            raise AgentError(f"file exceeds {limit} bytes")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise AgentError("file is not valid UTF-8") from error
        self._observed[self._relative(path)] = hashlib.sha256(data).hexdigest()
        return text

    def write_file(self, raw: str, content: str) -> str:
        """Create a file, or replace one read before and unchanged since."""
        path, relative, data = self._prepare_write(raw, content)
        return self._commit(path, relative, data, "wrote")

    def edit_file(self, raw: str, old: str, new: str) -> str:
        """Replace the one occurrence of ``old`` in a file read before and unchanged."""
        path, relative, data = self._prepare_edit(raw, old, new)
        return self._commit(path, relative, data, "edited")

    def run_command(self, argv: list[str]) -> str:
        """Run one exactly allowed argv in the root, without a shell."""
        command = self._allowed_command(argv)
        try:
            completed = subprocess.run(
                command,
                cwd=self.policy.root,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=self.policy.command_timeout_seconds,
                check=False,
            )
        except subprocess.TimeoutExpired as error:
            status, stdout, stderr = "timeout", error.stdout, error.stderr
        except (OSError, ValueError) as error:
            raise AgentError(f"could not run command: {error}") from error
        else:
            status = str(completed.returncode)
            stdout, stderr = completed.stdout, completed.stderr
        output = (_output_text(stdout) + _output_text(stderr))[
            :_MAX_COMMAND_OUTPUT_CHARS
        ]
        return f"status: {status}\noutput:\n{output}"

    def execute(self, action: ToolAction, tool_call_id: str | None = None) -> str:
        """Carry out one action and return its result; errors come back as text.

        An effect runs at most once per tool call id: a call id that already
        has a receipt for the same action returns the recorded result.
        """
        try:
            return self._execute(action, tool_call_id)
        except AgentError as error:
            return f"error: {error}"

    def _execute(self, action: ToolAction, tool_call_id: str | None) -> str:
        if not isinstance(action, ToolAction):
            raise AgentError(
                f"action must be a ToolAction, not {type(action).__name__}"
            )
        if tool_call_id is not None and (
            not isinstance(tool_call_id, str) or not tool_call_id.strip()
        ):
            raise AgentError("tool call id must be a non-blank string")
        tool, arguments = action.tool, action.arguments
        if tool == "list_files":
            check_arguments(tool, arguments)
            return self.list_files(arguments.get("path", "."))
        if tool == "read_file":
            check_arguments(tool, arguments)
            return self.read_file(arguments["path"])
        if tool not in self.available_tools:
            raise AgentError(f"tool is not enabled: {tool}")
        # The id is taken before the checks, so a refused or denied attempt
        # uses up its number just as an approved one does.
        call_id = tool_call_id if tool_call_id is not None else self._new_call_id()
        previous = self.receipt_store.get(call_id)
        if previous is not None:
            if previous.tool != tool or previous.arguments != arguments:
                raise AgentError(
                    f"tool call id {call_id} was already used for another action"
                )
            return previous.result
        check_arguments(tool, arguments)
        artifacts = self._check_effect(tool, arguments)
        self._approve(action)
        # Checked again: the file may have changed while the operator decided.
        result = self._apply_effect(tool, arguments)
        succeeded = tool != "run_command" or result.startswith("status: 0\n")
        self.receipt_store.put(
            EffectReceipt(
                call_id,
                tool,
                arguments,
                "ok" if succeeded else "error",
                result,
                artifacts,
            )
        )
        return result

    def _check_effect(self, tool: str, arguments: Mapping[str, Any]) -> tuple[str, ...]:
        """Refuse an effect that cannot run; return the files it would change."""
        if tool == "run_command":
            self._allowed_command(arguments["argv"])
            return ()
        if tool == "write_file":
            _, relative, _ = self._prepare_write(
                arguments["path"], arguments["content"]
            )
        else:
            _, relative, _ = self._prepare_edit(
                arguments["path"], arguments["old"], arguments["new"]
            )
        return (relative,)

    def _apply_effect(self, tool: str, arguments: Mapping[str, Any]) -> str:
        if tool == "run_command":
            return self.run_command(arguments["argv"])
        if tool == "write_file":
            return self.write_file(arguments["path"], arguments["content"])
        return self.edit_file(arguments["path"], arguments["old"], arguments["new"])

    def _approve(self, action: ToolAction) -> None:
        if self.confirm_tool is None:
            raise AgentError("operator denied the tool action: no approval callback")
        decision = self.confirm_tool(action)
        if isinstance(decision, ApprovalDecision):
            if not decision.approved:
                raise AgentError(f"operator denied the tool action: {decision.reason}")
        elif decision is not True:
            raise AgentError("operator denied the tool action")

    def _prepare_write(self, raw: str, content: str) -> tuple[Path, str, bytes]:
        self._require_writes()
        if not isinstance(content, str):
            raise AgentError("content must be a string")
        path = self.resolve_path(raw, must_exist=False)
        relative = self._relative(path)
        try:
            info: os.stat_result | None = os.lstat(path)
        except OSError:
            info = None  # a new file, unless the parent is missing too
        if info is None:
            if not path.parent.is_dir():
                raise AgentError(f"parent directory does not exist: {raw!r}")
        elif not stat.S_ISREG(info.st_mode):
            raise AgentError(f"path is not a regular file: {raw!r}")
        else:
            self._unchanged_text(path, relative)
        return path, relative, self._encoded(content)

    def _prepare_edit(self, raw: str, old: str, new: str) -> tuple[Path, str, bytes]:
        self._require_writes()
        if not isinstance(old, str) or not isinstance(new, str):
            raise AgentError("old and new must be strings")
        path = self.resolve_path(raw)
        relative = self._relative(path)
        current = self._unchanged_text(path, relative)
        count = current.count(old) if old else 0
        if count != 1:
            raise AgentError(
                f"old text must occur exactly once in {relative}, found {count}"
            )
        return path, relative, self._encoded(current.replace(old, new, 1))

    def _require_writes(self) -> None:
        if not self.policy.allow_writes:
            raise AgentError("writes are not enabled")

    def _encoded(self, text: str) -> bytes:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise AgentError("new content is not encodable as UTF-8") from error
        if len(data) > self.policy.max_write_bytes:
            raise AgentError(f"write exceeds {self.policy.max_write_bytes} bytes")
        return data

    def _unchanged_text(self, path: Path, relative: str) -> str:
        """The file's text, if it is exactly what this workspace last saw there."""
        expected = self._observed.get(relative)
        if expected is None:
            raise AgentError("read the existing file before changing it")
        # What was seen came from a read or from a write, so it is bounded by
        # the larger limit; anything longer has changed.
        limit = max(self.policy.max_file_bytes, self.policy.max_write_bytes)
        data = _read_regular(path, limit)
        if hashlib.sha256(data).hexdigest() != expected:
            raise AgentError("file changed since it was read")
        # These bytes hash to bytes that decoded (or were encoded) before.
        return data.decode("utf-8")

    def _commit(self, path: Path, relative: str, data: bytes, verb: str) -> str:
        """Replace ``path`` with ``data`` atomically, via a sibling temporary file."""
        try:
            mode: int | None = stat.S_IMODE(os.lstat(path).st_mode)
        except OSError:
            mode = None
        temporary: Path | None = None
        try:
            descriptor, name = tempfile.mkstemp(
                dir=path.parent, prefix=".evaluator-", suffix=".tmp"
            )
            temporary = Path(name)
            with os.fdopen(descriptor, "wb") as output:
                output.write(data)
                output.flush()
                os.fsync(output.fileno())
            if mode is not None:
                # A replaced file keeps its permissions: a script stays executable.
                os.chmod(temporary, mode)
            os.replace(temporary, path)
        except OSError as error:
            if temporary is not None:
                temporary.unlink(missing_ok=True)
            raise AgentError(f"could not replace file: {error.strerror}") from error
        self._observed[relative] = hashlib.sha256(data).hexdigest()
        self._modified.add(relative)
        return f"{verb} {relative}"

    def _allowed_command(self, argv: object) -> tuple[str, ...]:
        if not isinstance(argv, list) or not all(
            isinstance(part, str) and part and "\0" not in part for part in argv
        ):
            raise AgentError("argv must contain non-empty strings without NUL")
        command = tuple(argv)
        if command not in self.policy.allowed_commands:
            raise AgentError("command is not allowed")
        return command

    def _new_call_id(self) -> str:
        while True:
            call_id = f"call-{self._next_call_number}"
            self._next_call_number += 1
            if self.receipt_store.get(call_id) is None:
                return call_id

    def _relative(self, path: Path) -> str:
        return path.relative_to(self.policy.root).as_posix()


def _read_regular(path: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of the regular file at ``path``.

    The open neither follows a symlink nor blocks, so a FIFO swapped in after
    the path was checked is refused instead of stalling the read.
    """
    try:
        descriptor = os.open(path, _READ_FLAGS)
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise AgentError("path is not a regular file")
            return read_at_most(descriptor, limit + 1)
        finally:
            os.close(descriptor)
    except OSError as error:
        raise AgentError(f"could not read file: {error.strerror}") from error


def _output_text(output: bytes | str | None) -> str:
    """Command output as text the way a text-mode pipe would give it."""
    if output is None:
        return ""
    text = (
        output.decode("utf-8", errors="replace")
        if isinstance(output, bytes)
        else output
    )
    return text.replace("\r\n", "\n").replace("\r", "\n")
