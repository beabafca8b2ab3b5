"""Running one child: the wall clock, the process group, capped output, the bundle.

Small Python one-liners stand in for a learner's child here, so each test
takes a second or less.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from day7_verify.cohort._bundle import (
    CHILD_SCRIPT,
    THIRD_PARTY,
    manifest,
    suite_folders,
)
from day7_verify.cohort._supervise import OutputBuffer, run_bounded


def _alive(pid: int) -> bool:
    """Running or sleeping: a zombie (killed, not yet reaped by init) is dead."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _run(code: str, tmp_path: Path, timeout: float = 10.0, max_output: int = 4096):
    return run_bounded(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PATH": os.environ.get("PATH", os.defpath)},
        stdin_data=b"",
        timeout=timeout,
        max_output=max_output,
    )


def test_exit_status_and_output_are_reported(tmp_path: Path):
    finished = _run("import sys; print('hello'); sys.exit(3)", tmp_path)
    assert finished.returncode == 3 and not finished.timed_out
    assert finished.output == "hello\n"


def test_a_signal_is_reported_by_name(tmp_path: Path):
    finished = _run("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", tmp_path)
    assert finished.returncode == -11 and finished.signal_name == "SIGSEGV"


def test_the_clock_kills_the_whole_group_and_what_it_started(tmp_path: Path):
    """A hang is killed at the deadline, with the grandchild it left running."""
    marker = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(marker)!r}, 'w').write(str(p.pid))\n"
        "while True: time.sleep(1)\n"
    )
    started = time.monotonic()
    finished = _run(code, tmp_path, timeout=1.5)
    assert finished.timed_out and finished.returncode == -9
    assert time.monotonic() - started < 8
    grandchild = int(marker.read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild), f"the grandchild {grandchild} outlived its group"


def test_a_child_that_exits_leaves_nothing_running(tmp_path: Path):
    """What the child started in its group is killed when the child ends."""
    marker = tmp_path / "grandchild.pid"
    code = (
        "import subprocess, sys\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'],"
        " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        f"open({str(marker)!r}, 'w').write(str(p.pid))\n"
    )
    finished = _run(code, tmp_path)
    assert finished.returncode == 0 and not finished.timed_out
    grandchild = int(marker.read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(grandchild), f"the grandchild {grandchild} outlived the child"


def test_endless_output_is_capped_and_counted(tmp_path: Path):
    """Output past the cap is dropped (counted), keeping its head and its tail."""
    code = "import sys\nfor i in range(200000): sys.stdout.write(f'line {i}\\n')\n"
    finished = _run(code, tmp_path, max_output=4096)
    assert finished.output_bytes > 2_000_000
    assert len(finished.output) < 4096 + 100
    assert finished.output.startswith("line 0\n")
    assert finished.output.rstrip().endswith("line 199999")
    assert "bytes left out" in finished.output


def test_a_child_that_closes_its_output_is_still_bound_by_the_clock(tmp_path: Path):
    code = "import os, time\nos.close(1); os.close(2)\nwhile True: time.sleep(1)\n"
    started = time.monotonic()
    finished = _run(code, tmp_path, timeout=1.0)
    assert finished.timed_out and time.monotonic() - started < 6


def test_output_buffer_keeps_head_and_tail():
    buffer = OutputBuffer(100)
    for _ in range(100):
        buffer.add(b"0123456789")
    assert buffer.total == 1000 and len(buffer.head) == 25 and len(buffer.tail) == 75
    assert buffer.dropped == 900


def test_the_bundle_holds_the_suite_and_what_it_imports_and_nothing_of_site(tmp_path):
    """A private copy: the child, the suite, its three packages, pytest, Hypothesis."""
    files = manifest()
    inside = {relative for _, relative in files.files}
    suite, _packages = suite_folders()
    assert CHILD_SCRIPT in inside
    assert "suite/conftest.py" in inside and "judge/target.py" in inside
    assert "worker/serve.py" in inside and "strategies/draw.py" in inside
    assert {
        f"suite/invariants/{p.name}" for p in (suite / "invariants").glob("*.py")
    } <= inside
    tops = {
        relative.split("/")[1]
        for relative in inside
        if relative.startswith(f"{THIRD_PARTY}/")
    }
    assert {
        "pytest",
        "_pytest",
        "hypothesis",
        "pluggy",
        "_hypothesis_pytestplugin.py",
    } <= tops
    if sys.version_info < (3, 11):
        assert {"exceptiongroup", "tomli"} <= tops
    assert not any(
        relative.startswith(f"{THIRD_PARTY}/day7_verify") for relative in inside
    )
    assert not any("bundled" in relative for relative in inside)
    files.copy_into(tmp_path / "bundle")
    assert (tmp_path / "bundle" / "suite" / "pytest.ini").is_file()
    assert (tmp_path / "bundle" / THIRD_PARTY / "pytest" / "__init__.py").is_file()


def test_hypothesis_takes_none_of_the_bundles_third_party_code_for_the_users(tmp_path):
    """Hypothesis reads no constants out of the bundle's pytest or itself: it
    would parse them in every part of every learner's suite (about a second
    a part) to bias its examples towards code that is not under test."""
    constants = pytest.importorskip(
        "hypothesis.internal.constants_ast",
        reason="this Hypothesis reads no constants from local modules",
    )
    local = getattr(constants, "is_local_module_file", None)
    if local is None:
        pytest.skip("this Hypothesis has no is_local_module_file")
    manifest().copy_into(tmp_path / "bundle")
    third_party = tmp_path / "bundle" / THIRD_PARTY
    for module in ("pytest/__init__.py", "_pytest/main.py", "pluggy/__init__.py"):
        assert not local(str(third_party / module)), module
    assert local(str(tmp_path / "bundle" / "judge" / "build.py"))


def test_the_warm_up_leaves_hypothesis_no_module_of_the_judge_to_read():
    """After the child's warm-up (before the parts fork) Hypothesis has read
    the constants of every judge module, so no part reads them again: each
    part did, about half a second of every learner's verdict."""
    constants = pytest.importorskip(
        "hypothesis.internal.constants_ast",
        reason="this Hypothesis reads no constants from local modules",
    )
    if not hasattr(constants, "constants_from_module"):
        pytest.skip("this Hypothesis reads constants some other way")
    code = (
        "import hypothesis.internal.conjecture.providers as providers\n"
        "from day7_verify.cohort import _child\n"
        "_child._warm_up()\n"
        "read = []\n"
        "original = providers.constants_from_module\n"
        "providers.constants_from_module = lambda m: read.append(m) or original(m)\n"
        "providers._get_local_constants()\n"
        "print(len(read), sorted(m.__name__ for m in read)[:5])\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("0 "), done.stdout
