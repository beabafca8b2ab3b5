"""A learner's scratch on a tmpfs of its own (day7_verify._space), and its option."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from day7_verify._judge import Settings
from day7_verify._space import bounded, why_unbounded

ROOT = Path(__file__).resolve().parents[2]


def test_a_bounded_command_fills_its_own_tmpfs_and_keeps_its_places(
    tmp_path: Path,
) -> None:
    """Under `bounded`, the places keep their files and modes, writing past the
    size is ENOSPC, and nothing of it is left at the places afterwards."""
    if why_unbounded() is not None:
        pytest.skip(f"no bound here: {why_unbounded()}")
    space, place = tmp_path / "space", tmp_path / "cwd"
    space.mkdir()
    place.mkdir(mode=0o750)
    place.chmod(0o750)
    (place / "decoy").write_text("decoy", encoding="ascii")
    code = (
        "import errno, os\n"
        "assert open('decoy').read() == 'decoy'\n"
        "assert os.stat('.').st_mode & 0o777 == 0o750\n"
        "try:\n"
        "    with open('big', 'wb') as f:\n"
        "        f.write(b'x' * (8 << 20))\n"
        "except OSError as e:\n"
        "    assert e.errno == errno.ENOSPC, e\n"
        "    print('ENOSPC')\n"
    )
    done = subprocess.run(
        bounded(
            [sys.executable, "-S", "-c", code],
            size=4 << 20,
            space=space,
            places=[place],
            cwd=place,
        ),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ENOSPC\n"
    assert sorted(p.name for p in place.iterdir()) == ["decoy"]
    assert list(space.iterdir()) == []


def test_a_scratch_too_small_is_a_usage_error() -> None:
    """--scratch-size below 64 MiB exits 2 with one line naming it, no traceback."""
    with pytest.raises(ValueError, match="scratch below 64 MiB"):
        Settings(space=1 << 20)
    done = subprocess.run(
        [sys.executable, "-m", "day7_verify", "--scratch-size", "1M", "evaluator"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    said = done.stderr.splitlines()
    assert said[-1].startswith("day7-verify: a scratch below 64 MiB")
    assert "Traceback" not in done.stderr
