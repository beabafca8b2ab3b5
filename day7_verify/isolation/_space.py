"""Each learner's writable scratch, bounded on its own: one sized tmpfs per child.

The places a learner's code may write (its working directory, TMPDIR, HOME
and the worlds' folder) all live in the command's scratch, by default on
/dev/shm, shared with every learner judged at once: one learner filling it
would crash a classmate. So, as root on Linux, the child starts in a mount
namespace of its own (``unshare --mount``), where a tmpfs of `size` bytes is
mounted on the learner's `space` folder, each place copied into it (owner,
mode and the decoys kept) and bind-mounted back over its own path. The worker,
started by the child, inherits the namespace, and bubblewrap binds from it:
a full disk is then that learner's ENOSPC alone. The namespace, and so the
tmpfs, dies with the child's last process: nothing to unmount, even after a
kill.

Elsewhere (not root, no ``unshare``, mount namespaces refused) the scratch is
not bounded per learner, and `why_unbounded` says why in one line.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

__all__ = ["DEFAULT_SPACE", "INODES", "bounded", "default_space", "why_unbounded"]

#: Bytes of writable scratch per learner at most, by default. The course
#: reference passes with 64 MiB (the worlds, the two log assets each part
#: makes, temporary files); sixteen times that. The bundle and the copy of
#: the folder are not in it: the learner cannot write them.
DEFAULT_SPACE = 1 << 30

#: The default never goes below this, however little memory is free.
SMALLEST_DEFAULT = 256 << 20

#: Files and folders a learner's tmpfs may hold: its inodes are kernel memory
#: that `size` does not bound (millions of empty files). Measured at once in
#: the scratch (sampled every 0.1 s): 112 for the course reference, 71 for the
#: bundled evaluator at --level hardened; over 500 times that.
INODES = 65536

# Mounts the tmpfs, moves each place into it, then runs the child from the
# working directory's new self. Arguments: size, inodes, space, cwd, places...,
# --, argv.
_SCRIPT = r"""set -e
size=$1; inodes=$2; space=$3; cwd=$4; shift 4
mount -t tmpfs -o "size=$size,nr_inodes=$inodes,mode=0711,nosuid" tmpfs "$space"
while [ "$1" != "--" ]; do
  cp -a -- "$1" "$space/"
  mount --bind -- "$space/${1##*/}" "$1"
  shift
done
shift
cd -- "$cwd"
exec "$@"
"""


def bounded(
    argv: Sequence[str],
    *,
    size: int,
    space: Path,
    places: Sequence[Path],
    cwd: Path,
    inodes: int = INODES,
) -> list[str]:
    """`argv` run in a mount namespace of its own, `places` on one tmpfs of
    `size` bytes holding at most `inodes` files and folders.

    `space` is an empty folder the tmpfs is mounted on; each of `places`
    must have a distinct last name. Only where `why_unbounded()` is None.
    """
    names = [place.name for place in places]
    if len(set(names)) != len(names):
        raise ValueError(f"places must have distinct names: {names}")
    unshare = shutil.which("unshare") or "unshare"
    return [
        unshare,
        "--mount",
        "--propagation",
        "private",
        "--",
        "/bin/sh",
        "-c",
        _SCRIPT,
        "sh",
        str(size),
        str(inodes),
        str(space),
        str(cwd),
        *(str(place) for place in places),
        "--",
        *argv,
    ]


def default_space(jobs: int, available: int | None = None) -> int:
    """The scratch size of each learner when the teacher gave none: at most
    half the memory available shared by the `jobs` judged at once (a tmpfs is
    RAM), never above DEFAULT_SPACE, never below SMALLEST_DEFAULT.

    `available` is MemAvailable in bytes (read from /proc/meminfo if None;
    DEFAULT_SPACE where it cannot be read).
    """
    if available is None:
        available = _mem_available()
    if available is None:
        return DEFAULT_SPACE
    share = available // (2 * max(1, jobs))
    return max(SMALLEST_DEFAULT, min(DEFAULT_SPACE, share))


def _mem_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                name, _, value = line.partition(":")
                if name == "MemAvailable":
                    return int(value.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


@functools.cache
def why_unbounded() -> str | None:
    """None if a learner's scratch can be bounded here, else one line saying why not."""
    if not sys.platform.startswith("linux"):
        return f"{sys.platform} has no mount namespaces"
    if os.geteuid() != 0:
        return "the command is not root, so it cannot mount a tmpfs per learner"
    for tool in ("unshare", "mount", "cp"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (util-linux, coreutils)"
    with tempfile.TemporaryDirectory(prefix="day7-space-probe-") as probe:
        space, place = Path(probe) / "space", Path(probe) / "place"
        space.mkdir()
        place.mkdir()
        (place / "kept").write_text("kept", encoding="ascii")
        argv = [sys.executable, "-S", "-c", "open('kept').read()"]
        try:
            done = subprocess.run(
                bounded(argv, size=1 << 20, space=space, places=[place], cwd=place),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=30,
            )
        except (OSError, subprocess.SubprocessError) as error:
            return f"unshare cannot run: {error}"
    if done.returncode != 0:
        said = (done.stderr or done.stdout).decode("utf-8", "replace").strip()
        last = said.splitlines()[-1] if said else f"exit status {done.returncode}"
        return f"a tmpfs in a mount namespace of its own was refused ({last})"
    return None
