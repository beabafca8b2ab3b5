"""Hostile worlds: workspaces, runs and logs drawn to break an evaluator.

A hostile world is an ordinary Day 7 world whose evidence is booby-trapped:
a FIFO or a socket where a file is expected, a symlink loop, a symlink out
of the root at some component of the path, a path at the length limit, a
protected name holding exactly the expected text, a sparse file of GiBs, a
receipt log that is a directory, a FIFO, empty, a million short lines or one
very long line, a store whose ``get`` raises, events whose results are not
strings, items of ``events`` that are not events, a ``final`` that is not a
string.  Each hazard knows the verdict its check must get (the world carries
its truth, as every world of the suite does): a trap never passes, a control
always does, and a few hazards (a path beyond ``PATH_MAX``) only have to be
survived.

The strategies draw neutral descriptions (plain frozen dataclasses, simplest
hazards first so they shrink there); ``build_world`` makes one real for a
target inside a fresh directory, through the target's own classes.  Nothing
here writes a huge file: sparse files are made with ``truncate``, and the two
large logs are written once per session (``make_assets``) and hard-linked.

Hardened level only: the course's reference blocks for ever on a FIFO and
reads sparse files whole.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import socket
import stat
import tempfile
import types
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from strategies.target import Target

__all__ = [
    "EVENT_HAZARDS",
    "FILE_HAZARDS",
    "FINAL_HAZARDS",
    "LOG_HAZARDS",
    "NAME_MAX",
    "PATH_MAX",
    "SPARSE_SIZES",
    "BuiltWorld",
    "EventHazard",
    "FileHazard",
    "HostileAssets",
    "HostileWorld",
    "LogHazard",
    "build_world",
    "devices_available",
    "event_hazards",
    "file_hazards",
    "hostile_worlds",
    "log_hazards",
    "make_assets",
    "receipt_line",
    "receipt_payload",
    "secret_links",
    "trap_examples",
]

PATH_MAX = 4096  # bytes, with the terminating NUL (Linux)
NAME_MAX = 255  # bytes per component
_GIB = 1 << 30

#: File hazards, simplest first.  `regular` is the control: it must pass.
FILE_HAZARDS = (
    "regular",
    "missing",
    "directory",
    "fifo",
    "socket",
    "device",
    "symlink-loop",
    "symlink-chain",
    "symlink-out",
    "protected",
    "sparse",
    "long-path",
    "name-too-long",
    "beyond-path-max",
)

#: Receipt evidence hazards, simplest first.  `in-memory` and `valid` must pass.
LOG_HAZARDS = (
    "in-memory",
    "valid",
    "missing",
    "empty",
    "directory",
    "fifo",
    "symlink-to-fifo",
    "sparse",
    "million-lines",
    "long-line",
    "get-raises",
    "get-returns-junk",
)

#: Event hazards: every one hides a result expectation's substring somewhere
#: a correct evaluator must not look (so the expectation must fail).
EVENT_HAZARDS = (
    "result-none",
    "action-none",
    "result-int",
    "result-bytes",
    "result-list",
    "result-dict",
    "action-final",
    "action-dict",
    "action-lookalike",
    "item-none",
    "item-str",
    "item-int",
    "item-dict",
    "item-tuple",
)

#: `text` is the control (completed, holds the substring); the rest must fail.
FINAL_HAZARDS = ("text", "incomplete", "none", "int", "bytes", "list", "dict")

# Items, results, actions and finals that break the contract's types; a run
# holding one may be refused with the documented ValueError.
_MALFORMING_EVENTS = frozenset(EVENT_HAZARDS) - {"result-none", "action-none"}
_MALFORMING_FINALS = frozenset(FINAL_HAZARDS) - {"text", "incomplete", "none"}

#: Names the workspace boundary protects, in several spellings.
PROTECTED_NAMES = (
    ".env",
    ".git",
    ".ssh",
    ".aws",
    "credentials",
    "id_rsa",
    "id_ed25519",
    ".env.local",
    "server.key",
    "cert.pem",
    ".ENV",
    "Id_Rsa",
    "CREDENTIALS",
    ".Env.Prod",
    "deploy.KEY",
    "chain.Pem",
)

#: Sizes of sparse files: past 1 GiB and past 4 GiB (a 32-bit length).  A
#: hardened evaluator reads a window of them; one that reads them whole is
#: stopped by the deadline and then finishes in the background, so the sizes
#: stay where that cannot exhaust this machine's memory.
SPARSE_SIZES = (_GIB + 7, 4 * _GIB + 1)

MILLION = 1_000_000
LONG_LINE_BYTES = 2 * (1 << 20)

CONTROL_TOOL = "read_file"
CONTROL_NEEDLE = "control-needle"
HAZARD_TOOL = "run_command"


@functools.cache
def devices_available() -> bool:
    """Whether this process may make a character device (a /dev/null twin)."""
    with tempfile.TemporaryDirectory() as scratch:
        try:
            os.mknod(
                os.path.join(scratch, "null"), stat.S_IFCHR | 0o666, os.makedev(1, 3)
            )
        except (OSError, AttributeError):
            return False
    return True


# --- the neutral description ---


_LOOP_SHAPES = ("self", "pair", "directory")


@dataclass(frozen=True)
class FileHazard:
    """One expected file and what actually sits at (or on the way to) its path.

    `parts` are the path's components below the hazard's own top directory
    (`h<i>`, so hazards never collide); `at` picks a component for
    `symlink-out` (0 is the top directory itself) and `protected` (an index
    into `parts`); `variant` picks a loop shape or a chain length; `size` is
    the sparse size; `absolute` says whether a link target is absolute.
    """

    kind: str
    parts: tuple[str, ...]
    content: str
    at: int = 0
    variant: int = 0
    size: int = 0
    absolute: bool = False
    protected: str = ".env"

    @property
    def must_pass(self) -> bool | None:
        if self.kind in ("regular", "long-path"):
            return True
        if self.kind == "beyond-path-max":
            return None  # either verdict is honest; surviving it is the point
        return False

    def describe(self, path: str) -> str:
        extra = {
            "symlink-out": f" (link at component {self.at},"
            f" {'absolute' if self.absolute else 'relative'} target)",
            "symlink-loop": f" ({_LOOP_SHAPES[self.variant % 3]} loop)",
            "symlink-chain": f" ({self.variant + 1} links)",
            "protected": f" (protected name {self.protected!r})",
            "sparse": f" ({self.size:,} bytes, sparse)",
        }.get(self.kind, "")
        shown = (
            path
            if len(path) <= 60
            else f"{path[:28]}...{path[-28:]} ({len(path)} chars)"
        )
        return f"file {shown}: {self.kind}{extra}, expected {self.content!r}"


@dataclass(frozen=True)
class EventHazard:
    """One event-shaped trap in the run, hiding substring `needle-<i>`."""

    kind: str


@dataclass(frozen=True)
class LogHazard:
    """The receipt evidence: how `count` expected receipts are (not) recorded."""

    kind: str
    count: int = 1
    error: str = "RuntimeError"

    @property
    def must_pass(self) -> bool:
        return self.kind in ("in-memory", "valid")


@dataclass(frozen=True)
class HostileWorld:
    """A run, a workspace and a receipt log, with traps in each."""

    final_contains: str
    final: str
    files: tuple[FileHazard, ...]
    events: tuple[EventHazard, ...]
    log: LogHazard

    @property
    def malformed_run(self) -> bool:
        """Whether the run breaks the contract's types (a ValueError is then fair)."""
        return self.final in _MALFORMING_FINALS or any(
            event.kind in _MALFORMING_EVENTS for event in self.events
        )

    def describe(self) -> str:
        lines = [f"final: {self.final} (final_contains={self.final_contains!r})"]
        lines += [
            hazard.describe(file_path(index, hazard))
            for index, hazard in enumerate(self.files)
        ]
        lines += [
            f"event {index}: {event.kind} hiding 'needle-{index}'"
            for index, event in enumerate(self.events)
        ]
        error = f" ({self.log.error})" if self.log.kind == "get-raises" else ""
        lines.append(f"receipts: {self.log.count} expected, log {self.log.kind}{error}")
        return "\n".join(lines)


def file_path(index: int, hazard: FileHazard) -> str:
    """The expected path (already normalised) of hazard number `index`."""
    return "/".join((f"h{index}", *hazard.parts))


# --- strategies ---

# Lower-case letters only: never protected, never '.' or '..'.
_names = st.text(alphabet="abcdefghij", min_size=1, max_size=6)
_parts = st.lists(_names, min_size=1, max_size=3).map(tuple)
_contents = st.text(st.characters(codec="utf-8"), max_size=24)


@st.composite
def _linked(draw: st.DrawFn, kind: str) -> FileHazard:
    # The link's component depends on how many components the path has.
    parts = draw(_parts, label="parts")
    return FileHazard(
        kind,
        parts,
        draw(_contents, label="content"),
        at=draw(st.integers(0, len(parts)), label="link at component"),
        absolute=draw(st.booleans(), label="absolute target"),
    )


@st.composite
def _protected(draw: st.DrawFn) -> FileHazard:
    parts = draw(_parts, label="parts")
    return FileHazard(
        "protected",
        parts,
        draw(_contents, label="content"),
        at=draw(st.integers(0, len(parts) - 1), label="protected component"),
        protected=draw(st.sampled_from(PROTECTED_NAMES), label="protected name"),
    )


def _simple(kind: str) -> st.SearchStrategy[FileHazard]:
    return st.builds(FileHazard, st.just(kind), _parts, _contents)


def secret_links() -> st.SearchStrategy[FileHazard]:
    """A symlink out of the root, at a drawn component, to a secret with the text."""
    return _linked("symlink-out")


def file_hazards() -> st.SearchStrategy[FileHazard]:
    """One expected file with one trap (or none: `regular`), simplest first."""
    device = "device" if devices_available() else "fifo"
    return st.one_of(
        _simple("regular"),
        _simple("missing"),
        _simple("directory"),
        _simple("fifo"),
        # A socket's absolute path must fit sun_path (108 bytes): one short name.
        st.builds(FileHazard, st.just("socket"), _names.map(lambda n: (n,)), _contents),
        _simple(device),
        st.builds(
            FileHazard,
            st.just("symlink-loop"),
            _parts,
            _contents,
            variant=st.integers(0, 2),
        ),
        st.builds(
            FileHazard,
            st.just("symlink-chain"),
            _parts,
            _contents,
            variant=st.integers(0, 2),
        ),
        secret_links(),
        _protected(),
        st.builds(
            FileHazard,
            st.just("sparse"),
            _parts,
            _contents,
            size=st.sampled_from(SPARSE_SIZES),
        ),
        # The long-path parts are laid out at build time, from the root's
        # length; `size` holds the component length, `at` the bytes left free.
        st.builds(
            FileHazard,
            st.just("long-path"),
            st.just(("long",)),
            _contents,
            size=st.sampled_from((NAME_MAX, 254, 128)),
            at=st.integers(0, 64),
        ),
        st.builds(
            FileHazard,
            st.just("name-too-long"),
            st.integers(NAME_MAX + 1, NAME_MAX + 45).map(lambda n: ("n" * n,)),
            _contents,
        ),
        st.builds(
            FileHazard,
            st.just("beyond-path-max"),
            st.just(("deep",)),
            _contents,
            variant=st.integers(0, 3),
        ),
    )


def event_hazards() -> st.SearchStrategy[EventHazard]:
    """One event-shaped trap, simplest (still contract-typed) first."""
    return st.builds(EventHazard, st.sampled_from(EVENT_HAZARDS))


# What a replaced ``get`` raises: nothing a careful loader would name.
_LOOKUP_ERRORS: dict[str, type[Exception]] = {
    "RuntimeError": RuntimeError,
    "KeyError": KeyError,
    "TypeError": TypeError,
    "AttributeError": AttributeError,
    "RecursionError": RecursionError,
}


def log_hazards() -> st.SearchStrategy[LogHazard]:
    """How the expected receipts are (not) recorded, simplest first."""
    return st.builds(
        LogHazard,
        st.sampled_from(LOG_HAZARDS),
        count=st.integers(1, 3),
        error=st.sampled_from(tuple(_LOOKUP_ERRORS)),
    )


def hostile_worlds(
    *, max_files: int = 4, max_events: int = 4
) -> st.SearchStrategy[HostileWorld]:
    """A hostile world: a final, up to `max_files` file traps, event traps, a log."""
    return st.builds(
        HostileWorld,
        final_contains=st.text(alphabet="xyz", min_size=1, max_size=4),
        final=st.sampled_from(FINAL_HAZARDS),
        files=st.lists(file_hazards(), max_size=max_files).map(tuple),
        events=st.lists(event_hazards(), max_size=max_events).map(tuple),
        log=log_hazards(),
    )


def trap_examples() -> list[HostileWorld]:
    """One small world per trap, simplest first: files, logs, events, finals.

    Each holds a single trap beside a passing final (the final traps beside
    nothing), so a target that falls into it is shown exactly that trap.
    """
    worlds = []
    for kind in FILE_HAZARDS:
        if kind == "device" and not devices_available():
            continue
        hazard = FileHazard(
            kind,
            ("x", "y") if kind == "protected" else ("x",),
            "text",
            at=1 if kind == "symlink-out" else 0,
            size=SPARSE_SIZES[-1] if kind == "sparse" else NAME_MAX,
            variant=1,
        )
        worlds.append(HostileWorld("done", "text", (hazard,), (), LogHazard("missing")))
    for kind in LOG_HAZARDS:
        worlds.append(HostileWorld("done", "text", (), (), LogHazard(kind, count=2)))
    for kind in EVENT_HAZARDS:
        event = EventHazard(kind)
        worlds.append(HostileWorld("done", "text", (), (event,), LogHazard("missing")))
    for kind in FINAL_HAZARDS[1:]:
        worlds.append(HostileWorld("done", kind, (), (), LogHazard("missing")))
    return worlds


# --- receipts in the contract's log format ---


def receipt_payload(number: int) -> dict[str, Any]:
    """The contract's receipt payload for call `call-<number>`: a write or a command."""
    if number % 2:
        path = f"src/module_{number}.py"
        return {
            "tool_call_id": f"call-{number}",
            "tool": "write_file",
            "arguments": {"path": path, "content": f"VALUE = {number}\n"},
            "exit_state": "ok",
            "result": f"wrote {path}",
            "changed_artifacts": [path],
        }
    failed = number % 3 == 0
    return {
        "tool_call_id": f"call-{number}",
        "tool": "run_command",
        "arguments": {"argv": ["pytest", "-q"]},
        "exit_state": "error" if failed else "ok",
        "result": f"status: {1 if failed else 0}\noutput:\n{number} passed\n",
        "changed_artifacts": [],
    }


def receipt_line(payload: dict[str, Any]) -> str:
    """One log line for `payload`: its digest added, sorted keys, default separators."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    return json.dumps({"receipt_id": digest, **payload}, sort_keys=True) + "\n"


# --- session assets ---


class HostileAssets:
    """Large logs written once per session and hard-linked into worlds.

    A plain class with a short repr: Hypothesis prints a test's fixtures in
    every falsifying example.
    """

    def __init__(self, million_lines: Path, long_line: Path) -> None:
        self.million_lines = million_lines
        self.long_line = long_line

    def __repr__(self) -> str:
        return f"HostileAssets({self.million_lines.parent})"


def make_assets(directory: Path) -> HostileAssets:
    """Write the two large logs into `directory` (about 5 MB, well under a second)."""
    million = directory / "million-short-lines.jsonl"
    million.write_bytes(b"{}\n" * MILLION)  # JSON, but not one receipt among them
    long_line = directory / "one-long-line.jsonl"
    # One JSON object, no newline, 2 MiB: a loader reading line by line sees one line.
    long_line.write_bytes(b'{"receipt_id": "' + b"f" * LONG_LINE_BYTES + b'"}')
    return HostileAssets(million, long_line)


# --- building one world for one target ---


@dataclass
class BuiltWorld:
    """A world made real: the four arguments, and what must and must not happen."""

    base: Path
    root: Path
    run: Any
    workspace: Any
    store: Any
    case: Any
    # One (check name, verdict it must get or None, what sits there) per check.
    truth: list[tuple[str, bool | None, str]]
    malformed_run: bool
    fifos: list[Path] = field(default_factory=list)  # to unblock a hung reader
    secrets: list[Path] = field(default_factory=list)  # outside the root
    log: Path | None = None

    @property
    def args(self) -> tuple[Any, Any, Any, Any]:
        """The arguments of ``evaluate_run``, in order."""
        return (self.run, self.workspace, self.store, self.case)


def build_world(
    target: Target, world: HostileWorld, base: Path, assets: HostileAssets
) -> BuiltWorld:
    """Materialise `world` below `base` and build the target's own objects for it."""
    root = base / "root"
    outside = base / "outside"
    root.mkdir()
    outside.mkdir()
    built = BuiltWorld(base, root, None, None, None, None, [], world.malformed_run)

    built.truth.append(("final", world.final == "text", f"final {world.final}"))
    files = []
    for index, hazard in enumerate(world.files):
        path = _make_file(built, outside, index, hazard)
        files.append(target.FileExpectation(path, hazard.content))
        built.truth.append((f"file:{path}", hazard.must_pass, hazard.kind))

    built.run, results = _make_run(target, world)
    for (tool, _needle, truth), kind in zip(
        results, ("control", *(e.kind for e in world.events)), strict=True
    ):
        built.truth.append((f"result:{tool}", truth, f"event {kind}"))

    built.store, receipts = _make_receipts(target, world.log, base, assets, built)
    for expectation in receipts:
        name = f"receipt:{expectation.tool_call_id}"
        built.truth.append((name, world.log.must_pass, f"log {world.log.kind}"))

    built.workspace = target.Workspace(policy=target.ToolPolicy(root=root))
    built.case = target.EvaluationCase(
        final_contains=world.final_contains,
        files=tuple(files),
        results=tuple(
            target.ResultExpectation(tool=tool, contains=needle)
            for tool, needle, _ in results
        ),
        receipts=tuple(receipts),
    )
    return built


def _make_file(built: BuiltWorld, outside: Path, index: int, hazard: FileHazard) -> str:
    """Make hazard `index` real below the root; return its expected path."""
    root = built.root
    top = f"h{index}"
    data = hazard.content.encode("utf-8")
    kind = hazard.kind
    if kind == "long-path":
        parts = _long_parts(root, top, hazard.size, hazard.at)
        _write(root.joinpath(top, *parts), data)
        return "/".join((top, *parts))
    if kind == "beyond-path-max":
        parts = _deep_parts(root, top, hazard.variant)
        _write_deep(root / top, parts, data)
        return "/".join((top, *parts))

    relative = (top, *hazard.parts)
    path = root.joinpath(*relative)
    if kind not in ("symlink-loop", "symlink-out", "protected"):
        path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "regular":
        path.write_bytes(data)
    elif kind == "missing":
        pass
    elif kind == "directory":
        path.mkdir()
        (path / "inside.txt").write_bytes(data)
    elif kind == "fifo":
        os.mkfifo(path)
        built.fifos.append(path)
    elif kind == "socket":
        _bind_socket(path, built)
    elif kind == "device":
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a /dev/null twin
    elif kind == "symlink-loop":
        _loop(root, relative, hazard.variant)
    elif kind == "symlink-chain":
        real = path.with_name(f"real_{path.name}")
        real.write_bytes(data)
        previous = real.name
        for link in range(hazard.variant, 0, -1):
            name = f"link{link}_{path.name}"
            os.symlink(previous, path.with_name(name))
            previous = name
        os.symlink(previous, path)
    elif kind == "symlink-out":
        _link_out(built, outside, index, relative, hazard, data)
    elif kind == "protected":
        parts = list(hazard.parts)
        parts[hazard.at] = hazard.protected
        relative = (top, *parts)
        path = root.joinpath(*relative)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    elif kind == "sparse":
        with open(path, "wb") as handle:
            handle.truncate(hazard.size)  # a hole; no block is written
    elif kind == "name-too-long":
        pass  # cannot exist: the kernel refuses a component over NAME_MAX
    else:  # pragma: no cover - FILE_HAZARDS and this function move together
        raise ValueError(f"unknown file hazard {kind!r}")
    return "/".join(relative)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _long_parts(root: Path, top: str, name_len: int, slack: int) -> tuple[str, ...]:
    """Components of `name_len` bytes filling the path to PATH_MAX - 1 - `slack`."""
    budget = PATH_MAX - 1 - slack - len(os.fsencode(root)) - 1 - len(top)
    parts: list[str] = []
    letter = 0
    while budget > 1:
        length = min(name_len, budget - 1)  # one byte for the separator
        parts.append(chr(ord("a") + letter % 26) * length)
        letter += 1
        budget -= length + 1
    return tuple(parts) or ("x",)


def _deep_parts(root: Path, top: str, extra: int) -> tuple[str, ...]:
    """Directories of NAME_MAX bytes nested past PATH_MAX, then a file."""
    total = len(os.fsencode(root)) + 1 + len(top)
    parts: list[str] = []
    while total <= PATH_MAX + extra * NAME_MAX:
        parts.append(chr(ord("a") + len(parts) % 26) * NAME_MAX)
        total += NAME_MAX + 1
    return (*parts, "file.txt")


def _write_deep(top: Path, parts: Sequence[str], data: bytes) -> None:
    """Create a tree deeper than PATH_MAX: only descriptor-relative calls reach it."""
    top.mkdir()
    directory = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts[:-1]:
            os.mkdir(part, dir_fd=directory)
            child = os.open(part, os.O_RDONLY | os.O_DIRECTORY, dir_fd=directory)
            os.close(directory)
            directory = child
        handle = os.open(parts[-1], os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=directory)
        try:
            os.write(handle, data)
        finally:
            os.close(handle)
    finally:
        os.close(directory)


def _bind_socket(path: Path, built: BuiltWorld) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as bound:
        try:
            bound.bind(os.fspath(path))
        except OSError as error:  # an unusually long TMPDIR: fall back to a FIFO
            if error.errno not in (errno.ENAMETOOLONG, errno.EINVAL):
                raise
            os.mkfifo(path)
            built.fifos.append(path)
    # Closed: the socket file stays, and opening it fails with ENXIO.


def _loop(root: Path, relative: tuple[str, ...], variant: int) -> None:
    path = root.joinpath(*relative)
    shape = variant % 3
    if shape == 2:  # the top directory is a link to itself; the path goes through it
        os.symlink(relative[0], root / relative[0])
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if shape == 0:  # the file is a link to itself
        os.symlink(path.name, path)
    else:  # two links pointing at each other
        os.symlink(f"loop_{path.name}", path)
        os.symlink(path.name, path.with_name(f"loop_{path.name}"))


def _link_out(
    built: BuiltWorld,
    outside: Path,
    index: int,
    relative: tuple[str, ...],
    hazard: FileHazard,
    data: bytes,
) -> None:
    """Component `at` of the path is a link to a mirror outside holding the text."""
    at = hazard.at
    mirror = outside / f"s{index}"
    secret = mirror.joinpath(*relative[at:])
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_bytes(data)
    built.secrets.append(secret)
    link = built.root.joinpath(*relative[: at + 1])
    # The parents of the link are real directories; below it, nothing exists.
    link.parent.mkdir(parents=True, exist_ok=True)
    pointee = mirror.joinpath(*relative[at : at + 1])
    target = pointee if hazard.absolute else Path(os.path.relpath(pointee, link.parent))
    os.symlink(target, link)


# --- the run ---


def _force(instance: Any, **values: Any) -> Any:
    """Set fields of a frozen dataclass instance, past its validation."""
    for name, value in values.items():
        object.__setattr__(instance, name, value)
    return instance


def _make_run(
    target: Target, world: HostileWorld
) -> tuple[Any, list[tuple[str, str, bool]]]:
    """The run, and the result expectations as (tool, substring, must pass)."""
    control = target.AgentEvent(
        step=1,
        response=json.dumps({"tool": CONTROL_TOOL, "path": "notes.txt"}),
        action=target.ToolAction(tool=CONTROL_TOOL, arguments={"path": "notes.txt"}),
        result=f"notes: {CONTROL_NEEDLE}",
    )
    events: list[Any] = [control]
    results = [(CONTROL_TOOL, CONTROL_NEEDLE, True)]
    for index, hazard in enumerate(world.events):
        needle = f"needle-{index}"
        events.append(_event(target, hazard.kind, index + 2, needle))
        results.append((HAZARD_TOOL, needle, False))
    holding = f"the answer: {world.final_contains}."
    run = target.AgentRun(
        completed=True, reason="completed", final=holding, events=(control,)
    )
    final: object = {
        "text": holding,
        "incomplete": holding,
        "none": None,
        "int": 42,
        "bytes": holding.encode(),
        "list": [world.final_contains],
        "dict": {world.final_contains: holding},
    }[world.final]
    completed = world.final != "incomplete"
    reason = "completed" if completed else "step_limit"
    return _force(
        run, completed=completed, reason=reason, final=final, events=tuple(events)
    ), results


def _event(target: Target, kind: str, step: int, needle: str) -> Any:
    action = target.ToolAction(tool=HAZARD_TOOL, arguments={"argv": ["make", "test"]})
    response = json.dumps({"tool": HAZARD_TOOL, "argv": ["make", "test"]})
    event = target.AgentEvent(step=step, response=response, action=action, result="ok")
    if kind == "result-none":
        return _force(event, result=None, response=f"{response} {needle}")
    if kind == "action-none":
        return _force(event, action=None, result=f"error: not JSON near {needle}")
    if kind == "result-int":
        return _force(event, result=7)
    if kind == "result-bytes":
        return _force(event, result=f"status: 0\n{needle}".encode())
    if kind == "result-list":
        return _force(event, result=[needle])
    if kind == "result-dict":
        return _force(event, result={needle: "found"})
    if kind == "action-final":
        return _force(event, action=target.FinalAction(final=needle), result=needle)
    if kind == "action-dict":
        return _force(
            event, action={"tool": HAZARD_TOOL, "arguments": {}}, result=needle
        )
    if kind == "action-lookalike":
        lookalike = types.SimpleNamespace(tool=HAZARD_TOOL, arguments={})
        return _force(event, action=lookalike, result=needle)
    items: dict[str, object] = {
        "item-none": None,
        "item-str": f"{HAZARD_TOOL}: {needle}",
        "item-int": 3,
        "item-dict": {"action": {"tool": HAZARD_TOOL}, "result": needle},
        "item-tuple": (HAZARD_TOOL, needle),
    }
    if kind in items:
        return items[kind]
    raise ValueError(f"unknown event hazard {kind!r}")  # pragma: no cover


# --- the receipts ---


def _make_receipts(
    target: Target, log: LogHazard, base: Path, assets: HostileAssets, built: BuiltWorld
) -> tuple[Any, list[Any]]:
    payloads = [receipt_payload(number) for number in range(1, log.count + 1)]
    expectations = [
        target.ReceiptExpectation(
            tool_call_id=payload["tool_call_id"],
            tool=payload["tool"],
            exit_state=payload["exit_state"],
            result_contains=payload["result"][:10],
            changed_artifacts=tuple(payload["changed_artifacts"]),
        )
        for payload in payloads
    ]
    kind = log.kind
    if kind in ("in-memory", "get-raises", "get-returns-junk"):
        store = target.ReceiptStore()
        for payload in payloads:
            store.put(target.EffectReceipt(**payload))
        if kind == "get-raises":
            error = _LOOKUP_ERRORS[log.error]

            def raising(call_id: str) -> object:
                raise error(f"store failed looking up {call_id}")

            store.get = raising
        elif kind == "get-returns-junk":
            store.get = lambda call_id: {"tool_call_id": call_id, "tool": "write_file"}
        return store, expectations

    logs = base / "logs"
    logs.mkdir()
    path = logs / "receipts.jsonl"
    built.log = path
    # Built while nothing is at the path: an empty store that will reload the
    # log (the target's own loader never meets the trap below).
    store = target.ReceiptStore(path)
    if kind == "valid":
        path.write_text("".join(receipt_line(p) for p in payloads), encoding="utf-8")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
        built.fifos.append(path)
    elif kind == "symlink-to-fifo":
        fifo = logs / "pipe"
        os.mkfifo(fifo)
        built.fifos.append(fifo)
        os.symlink(fifo.name, path)
    elif kind == "sparse":
        with open(path, "wb") as handle:
            handle.truncate(SPARSE_SIZES[-1])  # one line of 4 GiB NUL bytes
    elif kind == "million-lines":
        os.link(assets.million_lines, path)
    elif kind == "long-line":
        os.link(assets.long_line, path)
    elif kind != "missing":  # pragma: no cover
        raise ValueError(f"unknown log hazard {kind!r}")
    return store, expectations
