"""The isolation modes one by one, without judging anyone (fast).

- `user` runs a command as the uid and gid it is given (65534 unless the
  caller leases one per learner) with no groups (as root only);
- every mode sets the process, file-size and CPU limits;
- `sandbox` shows no `/`, no network and no other process;
- `--cohort` refuses, in one line, to run with less than `user` unless
  `--isolation process` is named;
- a mode is named only when measured from inside (`got`), and `blocked`
  names the folder that keeps an unprivileged uid from the interpreter.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from _command_learners import ROOT, learner_folder

from day7_verify import _cli
from day7_verify.isolation import _sandbox
from day7_verify.isolation._sandbox import (
    FSIZE,
    NOBODY,
    NPROC,
    Detected,
    blocked,
    got,
    wrap,
)
from day7_verify.isolation._uids import FIRST

_SHOW = (
    "import os, resource;"
    "print(os.getuid(), os.getgid(), os.getgroups(),"
    " resource.getrlimit(resource.RLIMIT_NPROC)[0],"
    " resource.getrlimit(resource.RLIMIT_FSIZE)[0],"
    " resource.getrlimit(resource.RLIMIT_CPU)[0],"
    " os.path.exists({!r}), len([p for p in os.listdir('/proc') if p.isdigit()]))"
).format(str(ROOT / "README.md"))


def _run(isolation: str, scratch: Path, uid: int = NOBODY) -> list[str]:
    (scratch / "tmp").mkdir(parents=True)
    _sandbox.give_to(uid, scratch)
    os.chmod(scratch, 0o711)
    wrapped = wrap(
        isolation,
        ["/usr/bin/python3", "-S", "-c", _SHOW],
        scratch=scratch,
        cpu_seconds=77,
        cwd=scratch,
        uid=uid,
    )
    done = subprocess.run(
        wrapped.argv,
        preexec_fn=wrapped.preexec,
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.split(" ", 3)


needs_python = pytest.mark.skipif(
    not os.access("/usr/bin/python3", os.X_OK), reason="no /usr/bin/python3"
)


@needs_python
@pytest.mark.skipif(os.geteuid() != 0, reason="only root can switch to uid 65534")
def test_user_mode_runs_as_nobody_with_limits(tmp_path: Path) -> None:
    # Outside pytest's 0700 directory: uid 65534 must reach its scratch.
    scratch = Path(
        tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    )
    try:
        uid, gid, groups, rest = _run("user", scratch)
    finally:
        shutil.rmtree(scratch)
    assert (int(uid), int(gid), groups) == (NOBODY, NOBODY, "[]")
    nproc, fsize, cpu, _, _ = rest.split()
    assert (int(nproc), int(fsize), int(cpu)) == (NPROC, FSIZE, 77)


@needs_python
@pytest.mark.skipif(
    _sandbox.detect().isolation != "sandbox",
    reason=f"no bubblewrap sandbox here: {_sandbox.detect().why_not_stronger}",
)
def test_sandbox_mode_shows_nothing_of_the_machine(tmp_path: Path) -> None:
    uid, gid, groups, rest = _run("sandbox", tmp_path / "scratch")
    assert (int(uid), int(gid), groups) == (NOBODY, NOBODY, "[]")
    nproc, fsize, cpu, work, processes = rest.split()
    assert (int(nproc), int(fsize), int(cpu)) == (NPROC, FSIZE, 77)
    assert work == "False"  # no / bound: not this checkout
    assert int(processes) <= 2  # bwrap's init and itself


@needs_python
@pytest.mark.skipif(os.geteuid() != 0, reason="only root can switch uids")
@pytest.mark.parametrize("isolation", ["user", "sandbox"])
def test_the_command_runs_as_the_uid_it_is_given(
    isolation: str, tmp_path: Path
) -> None:
    if isolation == "sandbox" and _sandbox.detect().isolation != "sandbox":
        pytest.skip(f"no bubblewrap sandbox here: {_sandbox.detect().why_not_stronger}")
    # A learner's leased uid, as the command hands it out: in setpriv's argv
    # (sandbox) or the preexec's setuid (user), never 65534.
    scratch = Path(
        tempfile.mkdtemp(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    )
    try:
        uid, gid, groups, rest = _run(isolation, scratch, FIRST + 7)
    finally:
        shutil.rmtree(scratch)
    assert (int(uid), int(gid), groups) == (FIRST + 7, FIRST + 7, "[]")
    assert int(rest.split()[0]) == NPROC


def test_process_mode_sets_the_limits_and_changes_nothing_else() -> None:
    wrapped = wrap("process", ["true"], scratch=Path("/nonexistent"), cpu_seconds=9)
    assert wrapped.argv == ["true"]
    done = subprocess.run(
        ["python3", "-c", _SHOW],
        preexec_fn=wrapped.preexec,
        capture_output=True,
        text=True,
        check=True,
    )
    uid, _, _, rest = done.stdout.split(" ", 3)
    assert int(uid) == os.getuid()
    nproc, fsize, cpu, _, _ = rest.split()
    assert (int(fsize), int(cpu)) == (FSIZE, 9)
    # The command's own user keeps its own process limit (it counts all of
    # that user's processes, not the learner's).
    assert int(nproc) == resource.getrlimit(resource.RLIMIT_NPROC)[0]


def test_a_cohort_refuses_process_isolation_unless_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    learner_folder(tmp_path / "class", "a")
    said = "no sandbox: bwrap is not installed; no separate user: not root"
    monkeypatch.setattr(_cli, "detect", lambda: Detected("process", said))
    assert _cli.main(["--cohort", str(tmp_path / "class")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0] == f"day7-verify: isolation process: {said}"
    assert err[1].startswith("day7-verify: --cohort judges untrusted code")
    assert "--isolation process" in err[1]
    assert len(err) == 2


def test_a_named_isolation_the_machine_lacks_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = learner_folder(tmp_path, "agent")
    monkeypatch.setattr(_cli, "unavailable", lambda isolation: f"no {isolation}: why")
    assert _cli.main(["--isolation", "sandbox", str(folder)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "day7-verify: --isolation sandbox is not available here: no sandbox: why"
    ]


@needs_python
@pytest.mark.skipif(
    _sandbox.detect().isolation != "sandbox",
    reason=f"no bubblewrap sandbox here: {_sandbox.detect().why_not_stronger}",
)
def test_a_signal_inside_the_sandbox_reads_as_that_signal(tmp_path: Path) -> None:
    """bwrap's init exits 128 + N; the command reads -N, as for a bare child."""
    scratch = tmp_path / "scratch"
    (scratch / "tmp").mkdir(parents=True)
    _sandbox.give_to(NOBODY, scratch)
    os.chmod(scratch, 0o711)
    kill = "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
    wrapped = wrap(
        "sandbox",
        ["/usr/bin/python3", "-S", "-c", kill],
        scratch=scratch,
        cpu_seconds=9,
    )
    done = subprocess.run(wrapped.argv, preexec_fn=wrapped.preexec, check=False)
    assert wrapped.returncode(done.returncode) == -11
    assert wrapped.returncode(3) == 3


def test_the_isolation_named_is_the_one_measured_from_inside() -> None:
    """`got` names sandbox only for the asked uid in namespaces of its own,
    user only for that uid (not the command's) in the command's, else process."""
    own = ("pid:[1]", "net:[2]")
    me = os.geteuid()
    other = FIRST if me != FIRST else FIRST + 1
    assert got(f"{other} pid:[7] net:[8]", uid=other, own=own) == "sandbox"
    assert got(f"{other} pid:[1] net:[2]", uid=other, own=own) == "user"
    assert got(f"{other} pid:[7] net:[2]", uid=other, own=own) == "user"
    # The command's own user, with namespaces or without, is no separate user.
    assert got(f"{me} pid:[1] net:[2]", uid=me, own=own) == "process"
    # Not the uid it was to run as, root, or not a measurement at all.
    assert got(f"{other + 1} pid:[7] net:[8]", uid=other, own=own) == "process"
    assert got("0 pid:[7] net:[8]", uid=0, own=own) == "process"
    for said in ("", "PermissionError", f"{other} pid:[7]", f"x{other} a b"):
        assert got(said, uid=other, own=own) == "process"
    # Where /proc does not tell the namespaces, none counts as its own.
    assert got(f"{other} - -", uid=other, own=own) == "user"
    assert got(f"{other} pid:[7] net:[8]", uid=other, own=("-", "-")) == "user"


@pytest.mark.skipif(
    os.geteuid() != 0, reason="folders of root's other uids cannot enter"
)
def test_blocked_names_the_first_folder_a_uid_cannot_enter(tmp_path: Path) -> None:
    """The folder of mode 0700 above a path is named, with its mode."""
    base = Path(tempfile.mkdtemp())
    try:
        os.chmod(base, 0o755)
        private = base / "private"
        (private / "venv" / "bin").mkdir(parents=True)
        os.chmod(private, 0o700)
        assert blocked(private / "venv" / "bin" / "python", FIRST) == (private, 0o700)
        # Its owner, or a member of its group by gid, may enter it.
        os.chown(private, FIRST, 0)
        assert blocked(private / "venv" / "bin" / "python", FIRST) is None
        os.chown(private, 0, FIRST)
        os.chmod(private, 0o710)
        assert blocked(private / "venv" / "bin" / "python", FIRST) is None
        assert blocked(base / "x", FIRST) is None
    finally:
        shutil.rmtree(base)
