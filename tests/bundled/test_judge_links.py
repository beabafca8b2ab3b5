"""The judge never follows what learner code left in the worlds' trees.

Each test drives the judge's own code (judge.build, judge.snapshot,
judge.remote) with the bundled evaluator whose ReceiptStore.put, the
learner's code, plants a link to a file or folder outside the tree in the
place the judge touches next, as a racing worker would. Every time, the file
outside keeps its bytes, modification time and owner, nothing is created
outside, and the world fails as a lesson naming what the learner's code did
(or, where the judge's step replaces the link itself, goes on untouched).
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from _written_worlds import EXAMPLE_WORLDS, LOG_EXAMPLES

from judge import remote, safefs
from judge.build import materialise
from judge.built import scratch_parent
from judge.lessons import InvariantFailure
from judge.snapshot import tree_snapshot
from judge.target import load_target
from strategies.vocabulary import LOG_NAME

#: The puts of the receipt worlds' own stores (two receipts each): the
#: learner's code attacks after the last, as its own later writes would
#: otherwise go through its link (as the worker's uid, outside it cannot).
PUTS = 2
SECRET = b"the teacher's secret, mode 0600\n"


@dataclasses.dataclass(frozen=True)
class Outside:
    """A folder outside every tree, with one secret file, and how it was."""

    folder: Path
    secret: Path

    def state(self) -> dict[str, tuple[int, int, int, bytes]]:
        return {
            entry.name: (
                entry.stat(follow_symlinks=False).st_mtime_ns,
                entry.stat(follow_symlinks=False).st_uid,
                entry.stat(follow_symlinks=False).st_mode,
                Path(entry.path).read_bytes() if entry.is_file() else b"",
            )
            for entry in os.scandir(self.folder)
        }


@contextmanager
def outside() -> Iterator[Outside]:
    # Beside the worlds (one file system), so a hard link can reach it.
    with tempfile.TemporaryDirectory(prefix="outside-", dir=scratch_parent()) as folder:
        secret = Path(folder) / "secret.txt"
        secret.write_bytes(SECRET)
        secret.chmod(0o600)
        yield Outside(Path(folder), secret)


def _world(name: str, **log: Any) -> Any:
    world = EXAMPLE_WORLDS[name]
    return dataclasses.replace(world, log=dataclasses.replace(world.log, **log))


def _target(attack: Callable[[Path, int], None]) -> Any:
    """The bundled evaluator whose put writes its line, then attacks: called
    with the path of the log it wrote and the number of puts so far."""
    bundled = load_target()
    calls = [0]

    class Attacking(bundled.ReceiptStore):  # type: ignore[misc, name-defined]
        def put(self, receipt: Any) -> None:
            super().put(receipt)
            calls[0] += 1
            attack(Path(self.path), calls[0])

    return dataclasses.replace(
        bundled,
        names=types.MappingProxyType({**bundled.names, "ReceiptStore": Attacking}),
    )


def _swap_for_link(path: Path, target: Path) -> None:
    """What a racing worker does: the file goes, a link takes its name."""
    os.unlink(path)
    os.symlink(target, path)


def _world_log(scratch_log: Path) -> Path:
    """The world's log in the root, seen from the judge's scratch log."""
    tree = scratch_log.parent.parent
    (root,) = [p for p in tree.iterdir() if p.name.startswith("ws")]
    return root / LOG_NAME


def _judged(world: Any, target: Any, out: Outside) -> InvariantFailure | None:
    """Build the world; the lesson it fails with (or None), outside unchanged."""
    before = out.state()
    try:
        with materialise(world, target):
            pass
    except InvariantFailure as failure:
        lesson: InvariantFailure | None = failure
    else:
        lesson = None
    assert out.state() == before, "the judge changed a file outside the tree"
    if lesson is not None:
        said = f"{lesson.observed} {lesson.expected} {lesson.headline} {lesson.hint}"
        assert SECRET.decode().strip() not in said
    return lesson


def test_read_a_log_turned_into_a_link_fails_and_reads_nothing_outside() -> None:
    """Read: a log that learner code turned into a link to a file outside is
    a lesson naming the link, and the file outside is neither read nor changed."""
    with outside() as out:

        def attack(log: Path, calls: int) -> None:
            if log.name == LOG_NAME and calls == PUTS:
                _swap_for_link(log, out.secret)

        lesson = _judged(_world("receipt match"), _target(attack), out)
    assert lesson is not None
    assert "a symbolic link" in lesson.observed
    assert "learner code replaced it" in lesson.observed


def test_read_a_log_hard_linked_to_a_file_outside_is_refused() -> None:
    """Read: a log that is a hard link (another name of a file elsewhere) is a
    lesson, its bytes never read back."""
    with outside() as out:

        def attack(log: Path, calls: int) -> None:
            if log.name == LOG_NAME and calls == PUTS:
                os.unlink(log)
                os.link(out.secret, log)

        lesson = _judged(_world("receipt match"), _target(attack), out)
    assert lesson is not None
    assert "2 hard links" in lesson.observed


def test_append_to_a_log_swapped_for_a_link_writes_nothing_outside() -> None:
    """Append: the world's log turned into a link while the judge has the
    target write an appended receipt's line elsewhere is a lesson, and the
    file it points to is not appended to."""
    with outside() as out:

        def attack(log: Path, _: int) -> None:
            if log.name == "scratch.jsonl":
                _swap_for_link(_world_log(log), out.secret)

        world = _world("receipt appended after the store was built")
        lesson = _judged(world, _target(attack), out)
    assert lesson is not None
    assert "a symbolic link" in lesson.observed


def test_replace_a_log_swapped_for_a_link_replaces_the_link_only() -> None:
    """Replace: a damaged log (a conflicting line, which has the target write a
    line first) written where learner code left a link replaces the link
    itself; the file it pointed to is untouched."""
    with outside() as out:

        def attack(log: Path, _: int) -> None:
            if log.name == "scratch.jsonl":
                _swap_for_link(_world_log(log), out.secret)

        world = _world("receipt match", damage=LOG_EXAMPLES["conflict"])
        _judged(world, _target(attack), out)


@pytest.mark.parametrize("kind", ["directory", "fifo", "symlink_to_fifo", "sparse"])
def test_a_log_replaced_by_the_judge_never_reaches_outside(kind: str) -> None:
    """Replace: each thing the judge puts in the log's place is made in the
    log's directory, past the link learner code left at the log's name."""
    with outside() as out:

        def attack(log: Path, calls: int) -> None:
            pipe = log.with_name("pipe")
            if log.name == LOG_NAME and not os.path.lexists(pipe):
                # A link where the judge's FIFO goes.
                os.symlink(out.folder / "made-by-judge", pipe)

        world = _world("receipt match", trap=kind)
        _judged(world, _target(attack), out)
        assert not (out.folder / "made-by-judge").exists()


def test_a_log_directory_swapped_for_a_link_fails_and_reaches_nothing() -> None:
    """A directory swap: the log's directory beside the root replaced by a
    link to a folder outside is a lesson; nothing is read or made there."""
    with outside() as out:
        (out.folder / LOG_NAME).write_bytes(SECRET)

        def attack(log: Path, calls: int) -> None:
            if log.name == LOG_NAME and calls == PUTS:
                os.rename(log.parent, log.parent.with_name("moved"))
                os.symlink(out.folder, log.parent)

        world = _world("receipts beside the root")
        lesson = _judged(world, _target(attack), out)
    assert lesson is not None
    assert "logs is a symbolic link, not a directory" in lesson.observed


def test_a_scratch_directory_swapped_for_a_link_fails_and_reaches_nothing() -> None:
    """Copy: the judge's scratch directory for one line, swapped for a link to a
    folder outside holding a file of the scratch log's name, is a lesson;
    the file outside is neither copied into the log nor removed."""
    with outside() as out:
        (out.folder / "scratch.jsonl").write_bytes(SECRET)

        def attack(log: Path, _: int) -> None:
            if log.name == "scratch.jsonl":
                os.rename(log.parent, log.parent.with_name("moved"))
                os.symlink(out.folder, log.parent)

        world = _world("receipt appended after the store was built")
        lesson = _judged(world, _target(attack), out)
    assert lesson is not None
    assert "_scratch is a symbolic link" in lesson.observed


def test_a_snapshot_never_reads_a_file_swapped_in_while_it_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Snapshot: a file swapped for a link (to a file outside) between the
    snapshot's look at it and its read is recorded as swapped, never read."""
    real_open = os.open
    with outside() as out, tempfile.TemporaryDirectory(dir=scratch_parent()) as tree:
        (Path(tree) / "file.txt").write_bytes(b"inside")

        def racing_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if path == "file.txt" and kwargs.get("dir_fd") is not None:
                fd = kwargs["dir_fd"]
                os.unlink(path, dir_fd=fd)
                os.link(out.secret, path, dst_dir_fd=fd)
            return real_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", racing_open)
        snapshot = tree_snapshot(tree)
        monkeypatch.undo()
    assert snapshot["file.txt"][0] == "swapped while read"
    assert SECRET not in repr(snapshot).encode()


def test_give_to_worker_never_follows_a_link(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chown: giving a tree to the worker gives a link as itself, and a path
    swapped for a link to a folder outside gives nothing outside away."""
    if os.geteuid() != 0:
        pytest.skip("giving files to another uid needs root")
    monkeypatch.setattr(remote, "_settings", lambda: {"owner": 65534})
    monkeypatch.delenv("DAY7_SCRATCH", raising=False)
    with outside() as out, tempfile.TemporaryDirectory(dir=scratch_parent()) as tree:
        before = out.state()
        (Path(tree) / "link").symlink_to(out.secret)
        (Path(tree) / "dir-link").symlink_to(out.folder)
        (Path(tree) / "real").mkdir()
        (Path(tree) / "real" / "inner").symlink_to(out.folder)
        for name in ("link", "dir-link", "real"):
            remote.give_to_worker(Path(tree) / name)
        assert out.state() == before
        assert out.folder.stat().st_uid == 0
        assert (Path(tree) / "real").stat().st_uid == 65534


@pytest.mark.parametrize(
    "plant",
    ["symlink", "hardlink", "fifo", "directory"],
)
def test_safe_primitives_refuse_what_is_not_a_regular_file(plant: str) -> None:
    """Read, append and replace through a directory descriptor: a link, a hard
    link, a FIFO or a directory at the name is refused or replaced, never
    followed; the file outside keeps its bytes."""
    with outside() as out, tempfile.TemporaryDirectory(dir=scratch_parent()) as tree:
        name = "log.jsonl"
        at = Path(tree) / name
        if plant == "symlink":
            at.symlink_to(out.secret)
        elif plant == "hardlink":
            os.link(out.secret, at)
        elif plant == "fifo":
            os.mkfifo(at)
        else:
            at.mkdir()
        before = out.state()
        with safefs.opened(tree) as fd:
            with pytest.raises(safefs.Unexpected):
                safefs.read_regular(fd, name)
            with pytest.raises(safefs.Unexpected):
                safefs.append(fd, name, b"more\n")
            if plant == "directory":
                with pytest.raises(safefs.Unexpected):
                    safefs.replace(fd, name, b"new\n")
            else:
                safefs.replace(fd, name, b"new\n")
                assert safefs.read_regular(fd, name) == b"new\n"
        assert out.state() == before
        assert sorted(os.listdir(tree)) == [name]


def test_a_directory_chain_stops_at_a_link() -> None:
    """Opening a directory chain from the tree stops at a link in any component."""
    with outside() as out, tempfile.TemporaryDirectory(dir=scratch_parent()) as tree:
        (Path(tree) / "a").mkdir()
        (Path(tree) / "a" / "b").symlink_to(out.folder)
        with pytest.raises(safefs.Unexpected, match="b is a symbolic link"):
            with safefs.opened(tree, ("a", "b")):
                pass
        with pytest.raises(safefs.Unexpected):
            with safefs.opened(Path(tree) / "a" / "b"):
                pass


def test_the_childs_watch_never_follows_a_folder_swapped_for_a_link(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The child's record of the cwd, HOME and the learner's folder: a folder
    swapped for a link to a folder outside once it was listed is recorded as
    the link, and nothing outside is listed or read."""
    from day7_verify.cohort import _child

    real_scandir = os.scandir
    with outside() as out, tempfile.TemporaryDirectory() as watched:
        (Path(watched) / "sub").mkdir()

        def racing_scandir(path: Any = ".") -> Any:
            listed = list(real_scandir(path))
            sub = Path(watched) / "sub"
            if not sub.is_symlink():
                sub.rename(Path(watched) / "moved")
                sub.symlink_to(out.folder)
            return _Listing(listed)

        monkeypatch.setattr(os, "scandir", racing_scandir)
        state = _child._tree_state(Path(watched), True)
        monkeypatch.undo()
    assert not any("secret" in name for name in state), state
    assert SECRET not in repr(state).encode()


def test_removing_a_tree_removes_its_links_never_what_they_point_to() -> None:
    """remove_tree deletes a learner-made tree whole, its links as links: a
    folder and a file outside that links inside name keep every byte (and it
    works where shutil.rmtree takes no dir_fd, Python 3.10)."""
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as out:
        keep = Path(out, "keep")
        keep.write_bytes(b"the teacher's")
        tree = Path(home, "tree")
        (tree / "a" / "b").mkdir(parents=True)
        (tree / "a" / "b" / "f").write_bytes(b"x")
        (tree / "a" / "to-folder").symlink_to(out)
        (tree / "to-file").symlink_to(keep)
        fd = os.open(home, os.O_RDONLY | os.O_DIRECTORY)
        try:
            safefs.remove_tree(fd, "tree")
        finally:
            os.close(fd)
        assert os.listdir(home) == []
        assert os.listdir(out) == ["keep"]
        assert keep.read_bytes() == b"the teacher's"


def test_a_root_file_rewritten_after_a_run_is_never_written_through_a_link() -> None:
    """read-state-kept rewrites a file of the worker's root after the run
    (rewrite_in_root): a file swapped for a link to outside is replaced, the
    link itself; a folder on the way swapped for one fails the world as a
    lesson; nothing outside changes either way."""
    from judge import rewrite_in_root
    from strategies import PASSING_WORLD

    with outside() as out:
        for swap in ("file", "folder"):
            before = out.state()
            with materialise(PASSING_WORLD, load_target()) as built:
                (built.root / "sub").mkdir()
                (built.root / "sub" / "f.txt").write_bytes(b"run")
                if swap == "file":
                    _swap_for_link(built.root / "sub" / "f.txt", out.secret)
                else:
                    os.rename(built.root / "sub", built.root / "gone")
                    os.symlink(out.folder, built.root / "sub")
                if swap == "file":
                    # A rename replaces the link itself, never what it names.
                    rewrite_in_root(built, "sub/f.txt", b"judge")
                    assert not (built.root / "sub" / "f.txt").is_symlink()
                    assert (built.root / "sub" / "f.txt").read_bytes() == b"judge"
                else:
                    with pytest.raises(InvariantFailure) as lesson:
                        rewrite_in_root(built, "sub/f.txt", b"judge")
                    assert "symbolic link" in lesson.value.observed
            assert out.state() == before, swap


def test_a_world_is_cleared_for_the_next_without_following_a_link() -> None:
    """stateless clears a world before building the next at the same paths:
    a link inside it to a folder outside goes, what it points to stays; and
    a tree that cannot be removed fails the world instead of being built over."""
    import importlib

    determinism = importlib.import_module("tests.invariants.test_determinism")
    with outside() as out, tempfile.TemporaryDirectory() as top:
        before = out.state()
        (Path(top) / "w" / "a").mkdir(parents=True)
        (Path(top) / "w" / "a" / "to-outside").symlink_to(out.folder)
        (Path(top) / "w" / "secret").symlink_to(out.secret)
        determinism._clear(Path(top), "w")
        assert not os.path.lexists(Path(top) / "w")
        assert out.state() == before
        (Path(top) / "w").mkdir()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(safefs, "remove_tree", lambda folder, name: None)
            with pytest.raises(InvariantFailure) as lesson:
                determinism._clear(Path(top), "w")
        assert "kept writing" in lesson.value.observed


# --- a folder swapped, between its listing and its opening, for a FIFO or a
# link to a device: the walk of every tree the worker can write ---

#: How long a walk may take before it is deemed blocked on a FIFO.
BLOCKED = 5.0


class _Listing(list):  # type: ignore[type-arg]
    """What os.scandir returned, already read: a list that is also its own
    context manager (os.fwalk, shutil.rmtree and safefs.walk use both)."""

    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *_: object) -> None:
        pass

    def close(self) -> None:
        pass


def _racing_scandir(
    monkeypatch: pytest.MonkeyPatch, victim: str, swap: Callable[[int], None]
) -> None:
    """os.scandir that, once a listing names `victim` as a folder, lets the
    worker swap it (swap(dir_fd)) after the listing and its stats were taken:
    the race at its worst moment for the judge, made deterministic."""
    real = os.scandir
    done = [False]

    def scandir(path: Any = ".") -> Any:
        with real(path) as listing:
            entries = _Listing(listing)
        for entry in entries:
            entry.is_dir(follow_symlinks=False)
            entry.stat(follow_symlinks=False)  # cached, as the walkers cache it
        if not done[0] and any(e.name == victim and e.is_dir() for e in entries):
            done[0] = True
            fd = path if isinstance(path, int) else os.open(path, os.O_RDONLY)
            try:
                swap(fd)
            finally:
                if fd is not path:
                    os.close(fd)
        return entries

    monkeypatch.setattr(os, "scandir", scandir)


def _tree(top: Path) -> None:
    """A worker's tree: a file, a folder with a file, and the victim folder."""
    (top / "kept").mkdir(parents=True)
    (top / "kept" / "f").write_bytes(b"x")
    (top / "victim").mkdir()
    (top / "g").write_bytes(b"y")


def _remove_tree(top: Path) -> None:
    with safefs.opened(top.parent) as fd:
        safefs.remove_tree(fd, top.name)


def _chown_tree(top: Path) -> None:
    with safefs.opened(top.parent) as fd:
        safefs.chown_tree(fd, top.name, 60999, 60999)


def _tree_state(top: Path) -> None:
    from day7_verify.cohort import _child

    _child._tree_state(top, True)


#: Every walk of a tree the worker can write, by the judge's own code.
WALKERS: dict[str, Callable[[Path], object]] = {
    "remove_tree": _remove_tree,
    # The command's removal of a learner's scratch (day7_verify.cohort._judge).
    "remove_path": lambda top: safefs.remove_path(top),
    "chown_tree": _chown_tree,
    "tree_snapshot": tree_snapshot,
    "_tree_state": _tree_state,
}


def _unblock_fifo(path: Path) -> None:
    """Free a judge blocked reading the FIFO at `path` (the test's own cleanup)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


def _run_bounded(call: Callable[[], object], fifo: Path) -> bool:
    """Whether `call` finished within BLOCKED seconds (freed afterwards if not);
    what it raised is raised here."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as error:  # re-raised in the test's thread
            raised.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(BLOCKED)
    blocked = worker.is_alive()
    while worker.is_alive():
        _unblock_fifo(fifo)
        worker.join(0.1)
    if raised and not blocked:
        raise raised[0]
    return not blocked


@pytest.mark.parametrize("walker", sorted(WALKERS))
def test_a_folder_swapped_for_a_fifo_never_blocks_the_walk(
    walker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every walk of a worker's tree: a folder swapped for a FIFO after it was
    listed is never opened, so the judge (root) never waits on it."""
    with tempfile.TemporaryDirectory() as home:
        top = Path(home, "tree")
        _tree(top)

        def swap(dir_fd: int) -> None:
            os.rmdir("victim", dir_fd=dir_fd)
            os.mkfifo("victim", dir_fd=dir_fd)

        _racing_scandir(monkeypatch, "victim", swap)
        finished = _run_bounded(lambda: WALKERS[walker](top), top / "victim")
        monkeypatch.undo()
        assert finished, f"{walker} blocked opening a FIFO swapped for a folder"


@contextmanager
def _device() -> Iterator[tuple[Path, Callable[[], bool]]]:
    """A stand-in for a host device: a FIFO outside every tree, and whether
    anyone opened it for reading (a writer waits for exactly that)."""
    with tempfile.TemporaryDirectory(prefix="device-") as folder:
        device = Path(folder, "watchdog")
        os.mkfifo(device)
        opened = threading.Event()

        def wait_for_a_reader() -> None:
            try:
                os.close(os.open(device, os.O_WRONLY))
                opened.set()
            except OSError:
                pass

        writer = threading.Thread(target=wait_for_a_reader, daemon=True)
        writer.start()
        try:
            yield device, lambda: (writer.join(0.5), opened.is_set())[1]
        finally:
            if not opened.is_set():
                # Our own reader frees the writer; not counted (checked above).
                os.close(os.open(device, os.O_RDONLY | os.O_NONBLOCK))
                writer.join(5)


@pytest.mark.parametrize("walker", sorted(WALKERS))
def test_a_folder_swapped_for_a_link_to_a_device_is_never_opened(
    walker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every walk of a worker's tree: a folder swapped for a link to a device
    after it was listed is never opened (root opening /dev/watchdog arms a
    reboot); the link is left or removed as a link."""
    with tempfile.TemporaryDirectory() as home, _device() as (device, was_opened):
        top = Path(home, "tree")
        _tree(top)

        def swap(dir_fd: int) -> None:
            os.rmdir("victim", dir_fd=dir_fd)
            os.symlink(device, "victim", dir_fd=dir_fd)

        _racing_scandir(monkeypatch, "victim", swap)
        finished = _run_bounded(lambda: WALKERS[walker](top), top / "victim")
        monkeypatch.undo()
        assert finished
        assert not was_opened(), f"{walker} opened the device a folder became"
        assert device.exists()


def test_the_walk_lists_every_entry_and_enters_no_link() -> None:
    """safefs.walk, top-down and bottom-up: every folder once, links and
    FIFOs among the others, a link to a folder never entered."""
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as out:
        top = Path(home)
        (top / "a" / "b").mkdir(parents=True)
        (top / "a" / "f").write_bytes(b"")
        (top / "a" / "to-out").symlink_to(out)
        os.mkfifo(top / "fifo")
        Path(out, "secret").write_bytes(b"")
        down = [(h, sorted(f), sorted(o)) for h, f, o, _ in safefs.walk(top)]
        up = [
            (h, sorted(f), sorted(o)) for h, f, o, _ in safefs.walk(top, topdown=False)
        ]
    assert down == [
        ("", ["a"], ["fifo"]),
        ("a", ["b"], ["f", "to-out"]),
        ("a/b", [], []),
    ]
    assert up == down[::-1]


def test_materialise_removes_its_tree_through_the_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A world's tree is removed afterwards by safefs (never shutil.rmtree):
    a folder the worker left, swapped for a FIFO while the tree is removed,
    never blocks the judge, and nothing is left behind."""
    trees: list[Path] = []

    def build() -> None:
        with materialise(EXAMPLE_WORLDS["final exact"], load_target()) as built:
            top = built.tree
            trees.append(top.parent)
            (top / "left" / "victim").mkdir(parents=True)

            def swap(dir_fd: int) -> None:
                os.rmdir("victim", dir_fd=dir_fd)
                os.mkfifo("victim", dir_fd=dir_fd)

            _racing_scandir(monkeypatch, "victim", swap)

    worker = threading.Thread(target=build, daemon=True)
    worker.start()
    worker.join(BLOCKED * 3)
    blocked = worker.is_alive()
    while worker.is_alive() and trees:
        _unblock_fifo(trees[0] / "w" / "left" / "victim")
        worker.join(0.1)
    monkeypatch.undo()
    left = bool(trees) and trees[0].exists()
    if left:  # the old cleanup, freed, gave up on the FIFO: the test's own
        safefs.remove_path(trees[0])
    assert not blocked, "materialise's cleanup blocked on a FIFO"
    assert trees and not left


def test_a_log_the_judge_replaces_stays_the_folders_owners() -> None:
    """A log the judge (root) replaces or makes sparse in a worker's folder is
    the folder owner's afterwards, with the old file's mode: learner code can
    still repair it in place, so a read-only invariant is never passed because
    the judge took the file."""
    if os.geteuid() != 0:
        pytest.skip("only root can give a folder to another uid")
    with tempfile.TemporaryDirectory() as home:
        folder = Path(home, "logs")
        folder.mkdir()
        (folder / "log").write_bytes(b"a\n")
        (folder / "log").chmod(0o640)
        for path in (folder, folder / "log"):
            os.chown(path, 60999, 60998)
        with safefs.opened(folder) as fd:
            safefs.append(fd, "log", b"b\n")
            replaced = os.stat("log", dir_fd=fd)
            safefs.create_sparse(fd, "sparse", 1 << 20)
            sparse = os.stat("sparse", dir_fd=fd)
        assert (folder / "log").read_bytes() == b"a\nb\n"
        assert (replaced.st_uid, replaced.st_gid) == (60999, 60998)
        assert replaced.st_mode & 0o777 == 0o640
        assert (sparse.st_uid, sparse.st_gid) == (60999, 60998)
        assert sparse.st_mode & 0o777 == 0o644
