"""The uid block: one id per learner judged at once, given back, never an account's.

The leases are tested on a private lock directory with the sweep turned off
(fast, any user); `end_processes` switches uids, so it runs as root only.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from day7_verify.isolation._uids import (
    COUNT,
    FIRST,
    UidError,
    Uids,
    accounts,
    end_processes,
)


def _uids(locks: Path, taken: frozenset[int] = frozenset(), count: int = 8) -> Uids:
    return Uids(
        FIRST, count, locks=locks, taken=lambda: set(taken), sweep=lambda _: None
    )


def test_leases_held_at_once_are_all_different(tmp_path: Path) -> None:
    uids = _uids(tmp_path / "locks")
    held: list[int] = []
    together = threading.Barrier(6)
    guard = threading.Lock()

    def job() -> None:
        with uids.lease() as uid:
            with guard:
                held.append(uid)
            together.wait(timeout=30)  # all six hold theirs here at once

    threads = [threading.Thread(target=job) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(held) == 6
    assert len(set(held)) == 6, held
    assert all(FIRST <= uid < FIRST + 8 for uid in held)


def test_two_commands_on_one_machine_never_share_an_id(tmp_path: Path) -> None:
    # Two allocators over one lock directory stand for two day7-verify runs.
    first, second = _uids(tmp_path / "locks"), _uids(tmp_path / "locks")
    with first.lease() as one, second.lease() as two, first.lease() as three:
        assert len({one, two, three}) == 3


def test_an_id_given_back_is_leased_again(tmp_path: Path) -> None:
    uids = _uids(tmp_path / "locks", count=2)
    with uids.lease() as one:
        pass
    with uids.lease() as again, uids.lease() as other:
        assert again == one
        assert other != one
    # Two ids, leased and given back over and over: never one short.
    for _ in range(5):
        with uids.lease(), uids.lease():
            pass


def test_ids_an_account_uses_are_skipped(tmp_path: Path) -> None:
    uids = _uids(tmp_path / "locks", taken=frozenset({FIRST, FIRST + 2}), count=4)
    with uids.lease() as one, uids.lease() as two:
        assert (one, two) == (FIRST + 1, FIRST + 3)


def test_too_few_free_ids_for_the_jobs_is_one_line(tmp_path: Path) -> None:
    uids = _uids(
        tmp_path / "locks", taken=frozenset({FIRST, FIRST + 1, FIRST + 2}), count=4
    )
    uids.check(1)
    with pytest.raises(UidError) as raised:
        uids.check(2)
    said = str(raised.value)
    assert "\n" not in said
    assert f"uids {FIRST}-{FIRST + 3}" in said and "1 free for --jobs 2" in said


def test_a_lock_directory_others_can_write_is_refused(tmp_path: Path) -> None:
    locks = tmp_path / "locks"
    locks.mkdir(mode=0o700)
    locks.chmod(0o777)
    with pytest.raises(UidError, match="others cannot write"):
        _uids(locks).check(1)


def test_the_documented_block_is_clear_of_this_machines_accounts() -> None:
    block = set(range(FIRST, FIRST + COUNT))
    assert 60000 < FIRST and FIRST + COUNT <= 61184  # past UID_MAX, before systemd's
    assert not block & accounts()
    assert Uids().free() == sorted(block)


@pytest.mark.children
@pytest.mark.skipif(os.geteuid() != 0, reason="only root can switch uids")
def test_ending_an_ids_processes_spares_every_other_id() -> None:
    victim, bystander = FIRST + COUNT - 1, FIRST + COUNT - 2
    started = [
        subprocess.Popen(
            ["sleep", "60"],
            user=uid,
            group=uid,
            extra_groups=[],
            start_new_session=True,  # out of reach of its parent's group
        )
        for uid in (victim, bystander)
    ]
    try:
        time.sleep(0.2)
        end_processes(victim)
        assert started[0].wait(timeout=10) == -9
        assert started[1].poll() is None
    finally:
        for process in started:
            process.kill()
            process.wait()


@pytest.mark.children
@pytest.mark.skipif(os.geteuid() != 0, reason="only root can switch uids")
def test_an_id_with_nothing_running_is_ended_without_a_shell_and_one_with_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ending an id's processes asks /proc first: an id with none costs no
    shell (each costs a switch of uid, and every learner's lease ends twice),
    an id with one costs one, not the twenty `kill -1`'s own status gave."""
    victim = FIRST + COUNT - 1
    shells = []
    real_run = subprocess.run

    def counted(*args, **kwargs):
        shells.append(args)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counted)
    end_processes(victim)
    assert shells == []
    left = subprocess.Popen(["sleep", "60"], user=victim, group=victim, extra_groups=[])
    try:
        time.sleep(0.2)
        end_processes(victim)
        assert left.wait(timeout=10) == -9
        assert len(shells) == 1
    finally:
        left.kill()
        left.wait()


@pytest.mark.children
@pytest.mark.skipif(os.geteuid() != 0, reason="only root can switch uids")
def test_a_lease_ends_what_the_previous_holder_left_running(tmp_path: Path) -> None:
    uids = Uids(FIRST + COUNT - 1, 1, locks=tmp_path / "locks", taken=set)
    with uids.lease() as uid:
        left = subprocess.Popen(
            ["sleep", "60"],
            user=uid,
            group=uid,
            extra_groups=[],
            start_new_session=True,
        )
    try:
        assert left.wait(timeout=10) == -9
    finally:
        left.kill()
        left.wait()
