"""The judge's in-place rewrite: the same inode, new bytes, the old times,
and never through a link.

`stateless` changes evidence between two evaluations the ways a cache can
miss; these tests hold the tool it does that with to its word.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judge import safefs

#: Times far from now, so a write that forgot to put them back shows.
TIMES = (1_000_000_123_456_789, 1_100_000_987_654_321)


def _made(folder: Path, name: str, data: bytes) -> os.stat_result:
    (folder / name).write_bytes(data)
    os.utime(folder / name, ns=TIMES)
    return os.stat(folder / name)


@given(
    old=st.binary(max_size=64),
    new=st.binary(max_size=64),
    way=st.sampled_from(safefs.IN_PLACE_WAYS),
)
def test_a_rewrite_in_place_keeps_the_inode_and_the_times(
    old: bytes, new: bytes, way: str
) -> None:
    """After a rewrite in place the file holds the new bytes in the same inode,
    with the access and modification times it had before."""
    with tempfile.TemporaryDirectory() as top:
        before = _made(Path(top), "f", old)
        with safefs.opened(top) as folder:
            times = safefs.rewrite_in_place(folder, "f", old, new, way)
        after = os.stat(Path(top) / "f")
        assert (Path(top) / "f").read_bytes() == new
        assert after.st_ino == before.st_ino
        assert times == TIMES == (after.st_atime_ns, after.st_mtime_ns)


def test_a_replace_with_times_is_a_new_inode_with_the_old_times() -> None:
    """replace(times_ns=...) gives a new inode holding the data with those times."""
    with tempfile.TemporaryDirectory() as top:
        before = _made(Path(top), "f", b"old!")
        with safefs.opened(top) as folder:
            safefs.replace(folder, "f", b"new!", times_ns=TIMES)
        after = os.stat(Path(top) / "f")
        assert (Path(top) / "f").read_bytes() == b"new!"
        assert after.st_ino != before.st_ino
        assert (after.st_atime_ns, after.st_mtime_ns) == TIMES


@pytest.mark.parametrize("kind", ["symlink", "hardlink", "fifo", "directory"])
def test_a_rewrite_in_place_never_writes_through_what_is_not_a_file_of_its_own(
    kind: str,
) -> None:
    """A link, a second hard link, a FIFO or a folder at the name is Unexpected,
    and the file behind it keeps its bytes (a FIFO is never waited on)."""
    with (
        tempfile.TemporaryDirectory() as top,
        tempfile.TemporaryDirectory() as away,
    ):
        secret = Path(away) / "secret"
        secret.write_bytes(b"the teacher's secret")
        where = Path(top) / "f"
        if kind == "symlink":
            where.symlink_to(secret)
        elif kind == "hardlink":
            os.link(secret, where)
        elif kind == "fifo":
            os.mkfifo(where)
        else:
            where.mkdir()
        done = threading.Event()

        def rewrite() -> None:
            with safefs.opened(top) as folder, pytest.raises(safefs.Unexpected):
                safefs.rewrite_in_place(
                    folder,
                    "f",
                    b"the teacher's secret",
                    b"the learner's secret",
                    "overwritten",
                )
            done.set()

        worker = threading.Thread(target=rewrite, daemon=True)
        worker.start()
        worker.join(10)
        assert done.is_set(), "the rewrite blocked or did not refuse"
        assert secret.read_bytes() == b"the teacher's secret"
