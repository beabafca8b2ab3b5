"""A learner's scratch on a tmpfs of its own, and its option.

(day7_verify.isolation._space)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from day7_verify.cohort._judge import Settings
from day7_verify.isolation._space import (
    DEFAULT_SPACE,
    INODES,
    SMALLEST_DEFAULT,
    bounded,
    default_space,
    why_unbounded,
)

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


def test_the_tmpfs_is_mounted_with_a_bound_on_its_files() -> None:
    """The mount options bound the files and folders (nr_inodes), not only the
    bytes: empty files are kernel memory the size does not count."""
    argv = bounded(["true"], size=1 << 26, space=Path("/s"), places=[], cwd=Path("/"))
    script = argv[argv.index("-c") + 1]
    assert "nr_inodes=$inodes" in script
    assert argv[argv.index("-c") + 2 :][:4] == [
        "sh",
        str(1 << 26),
        str(INODES),
        "/s",
    ]
    assert 4096 <= INODES <= 1 << 20


def test_creating_more_files_than_the_bound_is_enospc(tmp_path: Path) -> None:
    """Under `bounded` with inodes=64, the 100th empty file is ENOSPC, though
    the bytes are far from full."""
    if why_unbounded() is not None:
        pytest.skip(f"no bound here: {why_unbounded()}")
    space, place = tmp_path / "space", tmp_path / "cwd"
    space.mkdir()
    place.mkdir()
    code = (
        "import errno\n"
        "try:\n"
        "    for i in range(100):\n"
        "        open(f'f{i}', 'w').close()\n"
        "except OSError as e:\n"
        "    assert e.errno == errno.ENOSPC, e\n"
        "    print('ENOSPC')\n"
    )
    done = subprocess.run(
        bounded(
            [sys.executable, "-S", "-c", code],
            size=16 << 20,
            space=space,
            places=[place],
            cwd=place,
            inodes=64,
        ),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ENOSPC\n"


@pytest.mark.parametrize(
    ("jobs", "available", "expected"),
    [
        (1, 64 << 30, DEFAULT_SPACE),  # plenty: capped at 1 GiB
        (4, 4 << 30, 512 << 20),  # half of what is free, shared by four
        (8, 1 << 30, SMALLEST_DEFAULT),  # little: never below 256 MiB
        (0, 1 << 30, 512 << 20),  # no jobs counts as one
    ],
)
def test_the_default_scratch_fits_the_memory_free(
    jobs: int, available: int, expected: int
) -> None:
    """Without --scratch-size, each learner's tmpfs (RAM) is at most half the
    available memory shared by the learners judged at once, within 256 MiB
    to 1 GiB."""
    assert default_space(jobs, available) == expected


def test_the_default_scratch_reads_the_memory_free() -> None:
    """default_space reads MemAvailable itself when not told (Linux)."""
    assert SMALLEST_DEFAULT <= default_space(1) <= DEFAULT_SPACE


class _Judging(Exception):
    """Raised instead of judging: the settings the command would judge with."""


@pytest.mark.parametrize(
    ("given", "expected"),
    # 1 GiB free, one learner judged at once: half of it by default.
    [((), 512 << 20), (("--scratch-size", "2G"), 2 << 30)],
)
def test_the_command_sizes_the_scratch_by_memory_unless_told(
    monkeypatch: pytest.MonkeyPatch, given: tuple[str, ...], expected: int
) -> None:
    """Without --scratch-size the command gives each learner default_space of
    the learners judged at once; a size given is kept, even above 1 GiB."""
    if why_unbounded() is not None:
        pytest.skip(f"no bound here: {why_unbounded()}")
    from day7_verify import _cli
    from day7_verify.isolation import _space

    monkeypatch.setattr(_space, "_mem_available", lambda: 1 << 30)

    def judge_all(learners: Any, settings: Any, *_: Any, **__: Any) -> Any:
        raise _Judging(settings.space)

    monkeypatch.setattr(_cli, "judge_all", judge_all)
    monkeypatch.chdir(ROOT)
    with pytest.raises(_Judging) as judging:
        _cli.main(["--isolation", "process", "--jobs", "2", *given, "evaluator"])
    assert judging.value.args[0] == expected
