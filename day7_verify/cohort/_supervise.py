"""Run one child process within a wall clock, and keep a bounded part of its output.

The child is started in a session of its own, so that when it ends, or when
its time is up, the whole process group it may have started is killed with
it. Its standard output and error are drained here through pipes, keeping
the first and the last bytes up to a limit: a learner printing without end
costs the command no memory. Nothing here decides a verdict; `Finished` says
only what happened to the process.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Finished", "OutputBuffer", "Stopped", "run_bounded", "stop_all"]

# After the child ends (or is killed), how long its pipes may stay open
# before the command stops reading them: a grandchild that left the process
# group may hold them for ever.
_GRACE_SECONDS = 2.0
_POLL_SECONDS = 0.2
_CHUNK = 1 << 16

# Children not yet reaped, so an interrupted command can end them all.
_running: set[int] = set()
_running_lock = threading.Lock()
_stopping = threading.Event()


class Stopped(Exception):
    """The command is ending: no new child is started."""


def stop_all() -> None:
    """Kill the process group of every child still running (the command is ending)."""
    _stopping.set()
    with _running_lock:
        for pid in _running:
            _kill_group(pid)


class OutputBuffer:
    """The first and the last bytes of a stream, and how many there were."""

    def __init__(self, limit: int) -> None:
        if limit < 2:
            raise ValueError(f"an output limit must be at least 2 bytes, got {limit}")
        self._head_limit = limit // 4
        self._tail_limit = limit - self._head_limit
        self.head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self._head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self._tail += data
        if len(self._tail) > 2 * self._tail_limit:
            del self._tail[: len(self._tail) - self._tail_limit]

    @property
    def tail(self) -> bytes:
        return bytes(self._tail[-self._tail_limit :])

    @property
    def dropped(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> str:
        """Everything kept, with a line saying how much was left out."""
        head = self.head.decode("utf-8", "replace")
        tail = self.tail.decode("utf-8", "replace")
        if self.dropped:
            return f"{head}\n[... {self.dropped} bytes left out ...]\n{tail}"
        return head + tail


@dataclass(frozen=True)
class Finished:
    """What happened to one child process."""

    returncode: int | None  # negative: killed by that signal
    timed_out: bool  # the command's clock ran out and it killed the group
    seconds: float
    peak_rss_kib: int
    output: str  # stdout and stderr, interleaved as read, capped
    output_bytes: int  # how many bytes it wrote in all

    @property
    def signal_name(self) -> str | None:
        if self.returncode is None or self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"


def run_bounded(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin_data: bytes,
    timeout: float,
    max_output: int,
    preexec: Callable[[], None] | None = None,
) -> Finished:
    """Run `argv` in its own session; kill its group after `timeout` seconds."""
    started = time.monotonic()
    with _running_lock:
        if _stopping.is_set():
            raise Stopped("the command is ending")
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=preexec,
    )
    with _running_lock:
        _running.add(process.pid)
    output = OutputBuffer(max_output)
    try:
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(stdin_data)
            process.stdin.close()
        except (BrokenPipeError, OSError):
            pass  # it died at once; what it printed tells why
        timed_out = _drain(process, output, started + timeout)
        status, peak = _reap(process)
    finally:
        if process.returncode is None:  # an error here: never leave it running
            _kill_group(process.pid)
            process.kill()
            process.wait()
            with _running_lock:
                _running.discard(process.pid)
        if process.stdout is not None:
            process.stdout.close()
    return Finished(
        returncode=status,
        timed_out=timed_out,
        seconds=time.monotonic() - started,
        peak_rss_kib=peak,
        output=output.text(),
        output_bytes=output.total,
    )


def _drain(
    process: subprocess.Popen[bytes], output: OutputBuffer, deadline: float
) -> bool:
    """Read its output until it ends; kill its group at the deadline. True if killed.

    Returns once the child has ended and its pipe is closed, or a grace
    period after it ended while something outside its group holds the pipe.
    The child is left unreaped, so its process group id stays its own.
    """
    assert process.stdout is not None
    fd = process.stdout.fileno()
    os.set_blocking(fd, False)
    timed_out = False
    pipe_open = True
    ended_at: float | None = None
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            if ended_at is None:
                if _exited(process.pid):
                    # Kill what it left behind while its pid (and so its
                    # group's id) is still held by the unreaped child.
                    _kill_group(process.pid)
                    ended_at = now
                elif now >= deadline:
                    _kill_group(process.pid)
                    timed_out = True
                    continue  # the next round sees it ended
            if ended_at is not None and (
                not pipe_open or now - ended_at > _GRACE_SECONDS
            ):
                return timed_out
            if not pipe_open:
                time.sleep(min(_POLL_SECONDS, max(0.0, deadline - now)))
                continue
            if selector.select(_POLL_SECONDS):
                try:
                    data = os.read(fd, _CHUNK)
                except BlockingIOError:
                    continue
                if data:
                    output.add(data)
                else:
                    selector.unregister(fd)
                    pipe_open = False


def _exited(pid: int) -> bool:
    """Whether the child has ended, without reaping it."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def _reap(process: subprocess.Popen[bytes]) -> tuple[int, int]:
    """Reap the ended child: its exit status (negative: signal) and peak RSS in KiB."""
    _, status, usage = os.wait4(process.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    process.returncode = code  # reaped here, so Popen must not wait again
    with _running_lock:
        _running.discard(process.pid)
    return code, int(usage.ru_maxrss)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
