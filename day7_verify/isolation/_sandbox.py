"""Run any command in the strongest operating-system isolation the machine allows.

Three modes, strongest first:

- ``sandbox``: bubblewrap (``bwrap``). New pid, network (a private loopback
  only), ipc, uts and cgroup namespaces; a new session; killed with its
  parent (``--die-with-parent``: with its own pid namespace, every process
  the command left, a ``setsid`` daemon too, dies with it). No ``/`` is
  bound: only ``/usr`` (and the ``/lib*``, ``/bin``, ``/sbin`` links), a few
  files of ``/etc``, the Python installation (its site-packages masked by an
  empty tmpfs), the read-only paths the caller names and, writable, the
  caller's writable paths; ``/tmp`` is the scratch directory's ``tmp``. The
  command runs as an unprivileged uid/gid with no capabilities: run as root,
  bwrap uses no user namespace and drops to the caller's `uid` with
  ``setpriv`` (a real uid: ``RLIMIT_NPROC`` counts its processes); run as
  another user, ``--unshare-user --uid 65534 --gid 65534``.
- ``user``: no namespaces, but the command is root: the command runs as the
  caller's `uid` (and the gid of that number) with no supplementary groups;
  the writable paths are given to it, everything else of root's it cannot
  write. Root only: for any other user the command would run as that user,
  which is ``process``, so it is refused rather than named ``user``.

The `uid` is 65534 (``nobody``) unless the caller leases one per learner
(day7_verify.isolation._uids), as the command does for learners judged at once.
- ``process``: the command's own user, as before this module.

In every mode: ``RLIMIT_NPROC``, ``RLIMIT_FSIZE``, ``RLIMIT_CPU`` and no core
files (the child sets ``RLIMIT_AS`` itself). `detect()` probes once which mode
works (running the interpreter in it) and says in one line why a stronger one
does not; `unavailable()` says why one named mode does not. A probe counts
only when it got what its mode promises, measured from inside (`got()`: its
uid, and its own pid and network namespaces or the command's): a mode is
named in a report only after a command run in it was seen to be in it.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from judge.script import INTERPRETER

__all__ = [
    "ISOLATIONS",
    "JUDGE_FSIZE",
    "MEASURE",
    "NOBODY",
    "Detected",
    "Wrapped",
    "blocked",
    "cannot_run",
    "detect",
    "expected_uid",
    "give_to",
    "got",
    "judge_packages",
    "not_for_grading",
    "unavailable",
    "worker_settings",
    "wrap",
]

ISOLATIONS: tuple[str, ...] = ("sandbox", "user", "process")
#: The unprivileged uid and gid a command runs as when the caller names none
#: (``nobody``): the probe, and every sandbox of a user other than root.
NOBODY = 65534
#: Processes the command's uid may have at once (sandbox and user modes, run
#: as root only: for the command's own user the count would include all of
#: that user's processes).
NPROC = 64
#: The largest file the command may write.
FSIZE = 256 << 20
#: The largest file the judge's own child may write: the hardened level's
#: sparse worlds are files of 4 GiB and one byte (holes: they take no room).
JUDGE_FSIZE = 8 << 30

# Files of /etc a Python process may read; nothing else of /etc is shown.
_ETC = (
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/ssl",
    "/etc/alternatives",
)


@dataclass(frozen=True)
class Wrapped:
    """How to start the command: its argv and what to do in the child before exec."""

    argv: list[str]
    preexec: Callable[[], None]
    isolation: str

    def returncode(self, code: int | None) -> int | None:
        """The command's own exit status (negative: killed by that signal).

        bwrap's init exits 128 + N when the command is killed by signal N;
        told back as -N, as for an unwrapped child. (A command that exits
        with such a status itself reads as killed: none of ours does.)
        """
        if self.isolation == "sandbox" and code is not None and 128 < code < 128 + 65:
            return 128 - code
        return code


@dataclass(frozen=True)
class Detected:
    """The strongest isolation that works here, and why a stronger one does not."""

    isolation: str
    why_not_stronger: str  # one line; empty for sandbox


def wrap(
    isolation: str,
    argv: Sequence[str],
    *,
    scratch: Path,
    writable: Sequence[Path] = (),
    readonly: Sequence[Path] = (),
    cpu_seconds: int,
    cwd: Path | None = None,
    uid: int = NOBODY,
    fsize: int = FSIZE,
) -> Wrapped:
    """The argv (and preexec) that runs `argv` under `isolation`.

    `scratch` and `writable` are the only places it may write; `readonly` it
    may read (besides the system and the Python installation). Paths keep
    their names inside the sandbox. Run as root, the command runs as `uid`
    (and gid) under sandbox and user; the caller gives it the writable paths
    first (`give_to`).
    """
    if isolation not in ISOLATIONS:
        raise ValueError(f"isolation {isolation!r} is not one of {ISOLATIONS}")
    # Only where `uid` is a real uid (root dropped to it): for any other user
    # the count would take in all of that user's processes.
    limited = isolation != "process" and os.geteuid() == 0
    drop = uid if isolation == "user" and os.geteuid() == 0 else None
    preexec = functools.partial(_preexec, cpu_seconds, limited, drop, fsize)
    if isolation == "sandbox":
        command = _bwrap(list(argv), scratch, [scratch, *writable], readonly, uid=uid)
        if cwd is not None:
            at = command.index("--")
            command[at:at] = ["--chdir", str(cwd)]
    else:
        command = list(argv)
    return Wrapped(command, preexec, isolation)


def worker_settings(
    isolation: str,
    *,
    scratch: Path,
    worlds: Path,
    writable: Sequence[Path],
    readonly: Sequence[Path],
    cpu_seconds: int,
    memory: int,
    cwd: Path,
    env: dict[str, str],
    uid: int = NOBODY,
) -> dict[str, object]:
    """How the judge starts its worker (judge.remote reads it from
    DAY7_WORKER): the sandbox's argv to put before the interpreter, the uid to
    drop to (`uid`, run as root), and the limits. `worlds` is where the judge
    builds the trees the worker reads and writes (devices it placed there stay
    devices); the worker sees nothing else of `scratch` but `writable` and
    `readonly`."""
    if isolation not in ISOLATIONS:
        raise ValueError(f"isolation {isolation!r} is not one of {ISOLATIONS}")
    root = os.geteuid() == 0
    settings: dict[str, object] = {
        "fsize": FSIZE,
        "cpu": cpu_seconds,
        "memory": memory,
        "cwd": str(cwd),
        "env": env,
        "isolation": isolation,
    }
    if isolation != "process" and root:
        settings["nproc"] = NPROC
        settings["owner"] = uid
    if isolation == "user" and root:
        settings["uid"] = uid
    if isolation == "sandbox":
        prefix = _bwrap(
            [], scratch, [*writable], readonly, devices=[worlds], cwd=cwd, uid=uid
        )
        settings["prefix"] = prefix
    return settings


def give_to(uid: int, *paths: Path) -> None:
    """Make `uid` (and the gid of that number) the owner of everything under
    `paths` (as root only)."""
    if os.geteuid() != 0:
        return
    for root in paths:
        os.chown(root, uid, uid, follow_symlinks=False)
        for folder, folders, files in os.walk(root):
            for name in folders + files:
                path = os.path.join(folder, name)
                os.chown(path, uid, uid, follow_symlinks=False)


def _preexec(
    cpu_seconds: int, limited: bool, drop: int | None, fsize: int = FSIZE
) -> None:
    """In the forked child, before exec: limits, then (user mode) uid `drop`."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if limited:
        # Root is not held to it, so it bites once the command has dropped.
        resource.setrlimit(resource.RLIMIT_NPROC, (NPROC, NPROC))
    if drop is not None:
        os.setgroups([])
        os.setgid(drop)
        os.setuid(drop)


def _python_paths() -> tuple[list[Path], list[Path]]:
    """The installation to show read-only, and its site-packages to mask: the
    base interpreter's (judge/script.py), never a venv of the judge's."""
    shown = {Path(sys.base_prefix).resolve(), Path(sys.base_exec_prefix).resolve()}
    executable = Path(INTERPRETER)
    shown.add(executable.parent)
    shown.add(executable.resolve().parent)
    masked = set()
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
    for key in ("purelib", "platlib"):
        masked.add(Path(sysconfig.get_path(key, vars=base)).resolve())
    return sorted(shown), sorted(masked)


def _bwrap(
    argv: list[str],
    scratch: Path,
    writable: list[Path],
    readonly: Sequence[Path],
    *,
    devices: Sequence[Path] = (),
    cwd: Path | None = None,
    uid: int = NOBODY,
) -> list[str]:
    bwrap = shutil.which("bwrap") or "bwrap"
    as_root = os.geteuid() == 0
    out = [bwrap]
    if as_root:
        # No user namespace (bwrap would map only root to root): `uid` is a
        # real uid, dropped to by setpriv after bwrap kept it only the two
        # capabilities setpriv needs.
        out += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
        out += ["--unshare-cgroup-try"]
    else:
        out += ["--unshare-all", "--unshare-user", "--uid", str(NOBODY)]
        out += ["--gid", str(NOBODY)]
    out += ["--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if as_root:
        out += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    out += ["--ro-bind", "/usr", "/usr"]
    for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(name):
            out += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            out += ["--ro-bind", name, name]
    for name in _ETC:
        if os.path.exists(name):
            out += ["--ro-bind", name, name]
    out += ["--proc", "/proc", "--dev", "/dev"]
    # /tmp is the scratch's tmp: capped with it (bwrap 0.8 has no --size).
    # First, so that paths under /tmp (a scratch in TMPDIR) are bound over it.
    tmp = scratch / "tmp"
    if tmp.is_dir():
        out += ["--bind", str(tmp), "/tmp"]
    made: set[str] = {"/", "/usr", "/etc", "/proc", "/dev", "/tmp"}
    shown, masked = _python_paths()
    for path in [*shown, *readonly]:
        out += _parents(path, made) + ["--ro-bind", str(path), str(path)]
    for path in masked:
        if path.is_dir():
            out += ["--tmpfs", str(path)]
    for path in writable:
        out += _parents(path, made) + ["--bind", str(path), str(path)]
    for path in devices:
        # The judge's hostile worlds hold device nodes the target must meet as
        # devices; an unprivileged uid without capabilities cannot make one.
        out += _parents(path, made) + ["--dev-bind", str(path), str(path)]
    if cwd is not None:
        out += ["--chdir", str(cwd)]
    if as_root:
        setpriv = shutil.which("setpriv") or "setpriv"
        out += ["--", setpriv, f"--reuid={uid}", f"--regid={uid}"]
        out += ["--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--"]
    else:
        out += ["--"]
    return out + argv


def _parents(path: Path, made: set[str]) -> list[str]:
    """`--dir` for each missing ancestor of `path`, traversable (mode 0755)."""
    out: list[str] = []
    for parent in reversed(path.parents):
        name = str(parent)
        if name in made:
            continue
        made.add(name)
        out += ["--perms", "0755", "--dir", name]
    made.add(str(path))
    return out


#: Python code that prints what isolation it got: its uid, and its pid and
#: network namespaces (run with -S -I: the standard library only).
MEASURE = """\
import os
def namespace(kind):
    try:
        return os.readlink('/proc/self/ns/' + kind)
    except OSError:
        return '-'
print(os.getuid(), namespace('pid'), namespace('net'))
"""


def _namespace(kind: str) -> str:
    # '-' where /proc does not tell: then no namespace counts as its own.
    try:
        return os.readlink(f"/proc/self/ns/{kind}")
    except OSError:
        return "-"


def _own_namespaces() -> tuple[str, str]:
    return _namespace("pid"), _namespace("net")


def expected_uid(isolation: str, uid: int) -> int:
    """The uid a command run under `isolation`, handed `uid`, sees itself as."""
    if os.geteuid() == 0 and isolation != "process":
        return uid
    return NOBODY if isolation == "sandbox" else os.geteuid()


def got(said: str, *, uid: int, own: tuple[str, str] | None = None) -> str:
    """The isolation a command had, from what `MEASURE` printed in it.

    `sandbox`: pid and network namespaces of its own, as the unprivileged
    `uid` it was to run as; `user`: the command's namespaces, as `uid`, which
    is not the command's own; else `process` (the command's user, or output
    that is not the measurement).
    """
    own = own if own is not None else _own_namespaces()
    parts = said.split()
    if len(parts) != 3 or not parts[0].isdigit():
        return "process"
    seen_uid, pid_ns, net_ns = int(parts[0]), parts[1], parts[2]
    if seen_uid != uid or seen_uid == 0:
        return "process"
    if "-" not in (pid_ns, net_ns, *own) and pid_ns != own[0] and net_ns != own[1]:
        return "sandbox"
    return "user" if seen_uid != os.geteuid() else "process"


@functools.cache
def detect() -> Detected:
    """The strongest isolation this machine allows, probed once per command."""
    why = unavailable("sandbox")
    if why is None:
        return Detected("sandbox", "")
    user_why = unavailable("user")
    if user_why is None:
        return Detected("user", f"no sandbox: {why}")
    return Detected("process", f"no sandbox: {why}; no separate user: {user_why}")


@functools.cache
def unavailable(isolation: str) -> str | None:
    """None if a command run under `isolation` gets it here, else one line why not."""
    if isolation == "process":
        return None
    return _probe(isolation, [INTERPRETER, "-S", "-s", "-B", "-c", MEASURE])


def _probe(isolation: str, probe: list[str]) -> str | None:
    """None if `probe` runs under `isolation` and gets it, else one line why not."""
    if not sys.platform.startswith("linux"):
        return f"{sys.platform} has neither namespaces nor this command's uid switch"
    if isolation == "sandbox":
        if shutil.which("bwrap") is None:
            return "bwrap is not installed (apt-get install bubblewrap)"
        if os.geteuid() == 0 and shutil.which("setpriv") is None:
            return "setpriv is not installed (util-linux)"
    elif os.geteuid() != 0:
        return (
            f"it needs root (run as uid {os.geteuid()}, the command cannot give"
            " learners uids of their own: they would run as you); use --isolation"
            " sandbox (bubblewrap), or run the command as root"
        )
    scratch = Path(tempfile.mkdtemp())
    give_to(NOBODY, scratch)
    wrapped = wrap(isolation, probe, scratch=scratch, cpu_seconds=30)
    try:
        done = subprocess.run(
            wrapped.argv,
            preexec_fn=wrapped.preexec,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
            cwd=scratch,
        )
    except (OSError, subprocess.SubprocessError) as error:
        if isolation == "user" and isinstance(error, PermissionError):
            # Raised by the exec after the switch to the unprivileged uid.
            return cannot_run(NOBODY, str(error))
        return f"{wrapped.argv[0]} cannot run: {error}"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    said = (done.stderr or done.stdout).decode("utf-8", "replace").strip()
    said = said.splitlines()[-1] if said else f"exit status {done.returncode}"
    if done.returncode != 0 and isolation == "sandbox":
        return (
            f"bwrap refused ({said}); allow unprivileged user namespaces"
            " (Ubuntu 24.04: sysctl kernel.apparmor_restrict_unprivileged_userns=0)"
            " or run in a container started with them"
        )
    if done.returncode != 0:
        return cannot_run(NOBODY, said)
    measured = got(
        done.stdout.decode("utf-8", "replace"), uid=expected_uid(isolation, NOBODY)
    )
    if measured != isolation:
        return (
            f"a command run under it got {measured} isolation"
            f" (it said: {done.stdout.decode('utf-8', 'replace').strip()[:200]!r})"
        )
    return None


def blocked(path: Path, uid: int) -> tuple[Path, int] | None:
    """The first folder above `path` that `uid` (and the gid of that number,
    no other group) cannot enter, and its mode; None if it can enter them all."""
    for folder in reversed(Path(os.path.abspath(path)).parents):
        try:
            info = os.stat(folder)
        except OSError:
            return None
        if info.st_uid == uid:
            bits = info.st_mode >> 6
        elif info.st_gid == uid:
            bits = info.st_mode >> 3
        else:
            bits = info.st_mode
        if not bits & 0o1:
            return folder, info.st_mode & 0o7777
    return None


#: The judge's own packages, which learner code must not reach: `evaluator`
#: above all (re-exported, it would pass for the learner's own).
OURS = ("evaluator", "judge", "strategies", "day7_verify", "worker")


def judge_packages() -> list[Path]:
    """Where this command's own packages are installed (found, not imported)."""
    import importlib.util

    found = []
    for name in OURS:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            found.append(Path(spec.origin).resolve().parent)
    return found


def _readable(package: Path, uid: int) -> bool:
    """Whether `uid` (and the gid of that number, no other group) can reach
    `package` and read its `__init__.py` (enough to import it, or run it)."""
    if blocked(package / "x", uid) is not None:
        return False
    try:
        info = os.stat(package / "__init__.py")
    except OSError:
        return False
    shift = 6 if info.st_uid == uid else 3 if info.st_gid == uid else 0
    return bool(info.st_mode >> shift & 0o4)


def not_for_grading(
    isolation: str, packages: Sequence[Path] | None = None
) -> str | None:
    """Why verdicts judged under `isolation` here are not for grading (learner
    code could import the judge's own evaluator and pass it off as its own),
    in one line; None when it cannot reach any of the judge's `packages`."""
    packages = judge_packages() if packages is None else packages
    if isolation == "process":
        return (
            "under process isolation learner code runs as this user and can import"
            " the judge's own evaluator; grade under sandbox or user isolation"
        )
    if isolation == "user":
        for package in packages:
            if _readable(package, NOBODY):
                return (
                    f"learners' uids can read the judge's own {package.name} at"
                    f" {package}, and could import it as their own; install"
                    " day7-verify where only root can read it (a venv under /root:"
                    " learner code runs on the Python it was made from)"
                )
        return None
    shown, masked = _python_paths()
    bound = [Path(name) for name in ("/usr", "/bin", "/sbin", "/lib", "/etc")]
    for package in packages:
        inside = [*bound, *shown]
        if any(package.is_relative_to(place) for place in inside) and not any(
            package.is_relative_to(place) for place in masked
        ):
            return (
                f"the sandbox shows the judge's own {package.name} at {package} to"
                " learner code, which could import it as its own; install"
                " day7-verify in a venv outside the system's Python"
            )
    return None


def cannot_run(uid: int, said: str) -> str:
    """Why `uid` cannot run this Python, in one line, with what to do."""
    executable = Path(INTERPRETER)
    where = ""
    for path in (executable, executable.resolve(), Path(sysconfig.get_path("stdlib"))):
        found = blocked(path, uid)
        if found is not None:
            where = f"{found[0]} is mode {found[1]:o}"
            break
    return (
        f"the Python at {INTERPRETER} cannot be run by uid {uid}, an unprivileged"
        f" uid such as learner code runs as ({where or said}); install day7-verify"
        " into a venv made from a Python every user can run (e.g. /usr/bin/python3"
        " -m venv /root/day7: learner code runs on that Python, the venv may stay"
        " private), or judge one trusted folder with --isolation process"
    )
