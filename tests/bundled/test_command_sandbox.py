"""The sandbox against learners that attack from inside it (``--isolation sandbox``).

Each learner is the bundled evaluator with an attack planted at the top of
evaluation.py: it runs at import, prints what it saw on one line (``ATTACK
{json}``, which the report keeps as the output's tail) and fails to load, so
each is judged in a second or two. The targets are made writable by every
user (mode 0777) where the test owns them, so only the sandbox's mounts, not
file modes, keep the learner out. One class is judged once; the tests read
the report, the attacked places, /proc and a loopback listener.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _command_learners import QUICK, ROOT, learner_folder

from day7_verify.cohort._bundle import manifest
from day7_verify.isolation._sandbox import detect
from day7_verify.isolation._uids import COUNT, FIRST

pytestmark = [
    pytest.mark.children,
    pytest.mark.skipif(
        detect().isolation != "sandbox",
        reason=f"no bubblewrap sandbox here: {detect().why_not_stronger}",
    ),
]

TOKEN = f"day7-escape-{os.getpid()}-{time.monotonic_ns()}"

_REPORT = (
    "import json as _j\n"
    "def _say(seen):\n"
    "    print('ATTACK ' + _j.dumps(seen, sort_keys=True), flush=True)\n"
)
_FAIL = "raise ImportError('attacked, now failing to load')\n"

# Each: code run at import; `{...}` are filled in with the test's paths.
ATTACKS = {
    # A double-forked setsid daemon meant to outlive its judge: it writes after
    # 3 s, then stays a minute, its command line carrying the test's token.
    "daemon": (
        "import os\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        os.execv('/bin/sh', ['sh', '-c',"
        " 'sleep 3; echo owned > {marker}; sleep 60', '{token}'])\n"
        "    os._exit(0)\n"
        "_say({{'daemon': 'started'}})\n"
    ),
    # Files wherever it may find a place: HOME, /tmp, the package, the reports.
    "writes": (
        "import os\n"
        "seen = {{}}\n"
        "for place in {places!r}:\n"
        "    try:\n"
        "        with open(os.path.join(place, '{token}'), 'w') as f:\n"
        "            f.write('owned')\n"
        "        seen[place] = 'written'\n"
        "    except OSError as e:\n"
        "        seen[place] = type(e).__name__\n"
        "try:\n"
        "    with open(os.path.join(os.environ['TMPDIR'], 'big'), 'wb') as f:\n"
        "        f.seek(300 << 20)\n"
        "        f.write(b'x')\n"
        "    seen['big'] = 'written'\n"
        "except OSError as e:\n"
        "    seen['big'] = type(e).__name__\n"
        "_say(seen)\n"
    ),
    # The teacher's loopback (a port the test listens on).
    "connects": (
        "import socket\n"
        "s = socket.socket()\n"
        "s.settimeout(2)\n"
        "_say({{'connect': s.connect_ex(('127.0.0.1', {port}))}})\n"
    ),
    # A classmate: its path from /proc/PPID/cmdline, or as the test names it.
    "classmate": (
        "import os\n"
        "seen = {{}}\n"
        "try:\n"
        "    cmdline = open(f'/proc/{{os.getppid()}}/cmdline', 'rb').read()\n"
        "    seen['cmdline'] = cmdline.split(b'\\0')[0].decode(errors='replace')\n"
        "    seen['cohort'] = '{cohort}'.encode() in cmdline\n"
        "except OSError as e:\n"
        "    seen['cmdline'] = type(e).__name__\n"
        "try:\n"
        "    seen['read'] = len(open('{victim}/evaluation.py').read())\n"
        "except OSError as e:\n"
        "    seen['read'] = type(e).__name__\n"
        "try:\n"
        "    open('{victim}/evaluation.py', 'a').write('# owned')\n"
        "    seen['write'] = 'written'\n"
        "except OSError as e:\n"
        "    seen['write'] = type(e).__name__\n"
        "_say(seen)\n"
    ),
    # The command's memory (every nonce), the machine's processes, a fork bomb.
    "memory": (
        "import os\n"
        "pids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
        "seen = {{'pids': pids}}\n"
        "for pid in sorted({{os.getppid(), 1, {test_pid}}}):\n"
        "    try:\n"
        "        with open(f'/proc/{{pid}}/mem', 'rb') as f:\n"
        "            f.read(1)\n"
        "        seen[str(pid)] = 'read'\n"
        "    except OSError as e:\n"
        "        seen[str(pid)] = type(e).__name__\n"
        "forked = 0\n"
        "for _ in range(100):\n"
        "    try:\n"
        "        if os.fork() == 0:\n"
        "            import time\n"
        "            time.sleep(5)\n"
        "            os._exit(0)\n"
        "        forked += 1\n"
        "    except OSError:\n"
        "        break\n"
        "seen['forked'] = forked\n"
        "seen['uid'] = [os.getuid(), os.getgid(), os.getgroups()]\n"
        "_say(seen)\n"
    ),
}


def _digest(paths: list[Path]) -> dict[str, str]:
    found: dict[str, str] = {}
    for top in paths:
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*"))
        for path in files:
            if path.is_file() and "__pycache__" not in path.parts:
                found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _learners_running() -> list[int]:
    """Processes whose command line carries this test's token."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if TOKEN.encode() in cmdline:
                found.append(int(entry))
    return found


def _plant(folder: Path, code: str) -> None:
    module = folder / "evaluation.py"
    future = "from __future__ import annotations\n"
    source = module.read_text(encoding="utf-8")
    assert source.count(future) == 1, "evaluation.py's first import moved"
    module.write_text(
        source.replace(future, future + _REPORT + code + _FAIL), encoding="utf-8"
    )


@pytest.fixture(scope="module")
def attacked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    base = tmp_path_factory.mktemp("sandbox")
    checkout = base / "checkout"  # the command's own package, as run from a checkout
    checkout.mkdir()
    for name in (
        "day7_verify",
        "strategies",
        "judge",
        "worker",
        "tests/conftest.py",
        "tests/invariants",
    ):
        target = checkout / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name, target, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(ROOT / name, target)
    open_places = base / "open"  # writable by every user
    home, reports, outside = (open_places / n for n in ("home", "reports", "outside"))
    for place in (open_places, home, reports, outside):
        place.mkdir()
        place.chmod(0o777)
    cohort = base / "class"
    cohort.mkdir()
    victim = learner_folder(cohort, "a-classmate", "returns-none")  # fails fast
    victim.chmod(0o777)
    (victim / "evaluation.py").chmod(0o666)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.setblocking(False)
    site = Path(sysconfig.get_path("purelib"))
    places = [
        str(home),
        "/tmp",
        str(checkout / "day7_verify"),
        str(site),
        str(reports),
        str(Path.home()),
    ]
    values = {
        "marker": outside / "marker",
        "token": TOKEN,
        "places": places,
        "port": listener.getsockname()[1],
        "victim": victim,
        "cohort": cohort,
        "test_pid": os.getpid(),
    }
    for name, code in ATTACKS.items():
        _plant(learner_folder(cohort, f"z-{name}"), code.format(**values))
    watched = [checkout, cohort, *(source for source, _ in manifest().files)]
    before = _digest(watched)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    environment.pop("PYTHONPATH", None)
    environment["HOME"] = str(home)
    started = time.monotonic()
    finished = subprocess.run(
        [sys.executable, "-m", "day7_verify", *QUICK, "--cohort", str(cohort)]
        + ["--isolation", "sandbox", "--jobs", "2", "--timeout", "120"]
        + ["--json", str(reports / "class.json")],
        cwd=checkout,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    seconds = time.monotonic() - started
    running_at_end = _learners_running()
    time.sleep(5)  # the daemon's 3 s, and some
    try:
        connection, _ = listener.accept()
        connection.close()
        connected = True
    except BlockingIOError:
        connected = False
    listener.close()
    report = json.loads((reports / "class.json").read_text(encoding="utf-8"))
    seen = {}
    for learner in report["learners"]:
        for line in (learner.get("output_tail") or "").splitlines():
            if line.startswith("ATTACK "):
                seen[Path(learner["path"]).name.removeprefix("z-")] = json.loads(
                    line[len("ATTACK ") :]
                )
    after = _digest(watched)
    yield {
        "finished": finished,
        "seconds": seconds,
        "report": report,
        "seen": seen,
        "running_at_end": running_at_end,
        "running_later": _learners_running(),
        "marker": outside / "marker",
        "connected": connected,
        "changed": sorted(
            p for p in set(before) | set(after) if before.get(p) != after.get(p)
        ),
        "places": places,
        "cohort": cohort,
    }
    for place in places:
        if place != "/tmp":
            Path(place, TOKEN).unlink(missing_ok=True)
    Path("/tmp", TOKEN).unlink(missing_ok=True)


def test_every_attacker_is_judged_not_passed_and_the_report_says_sandbox(attacked):
    report = attacked["report"]
    assert attacked["finished"].returncode == 1, attacked["finished"].stderr
    assert report["settings"]["isolation"] == "sandbox"
    statuses = {Path(lr["path"]).name: lr["status"] for lr in report["learners"]}
    assert statuses.pop("a-classmate") == "fail"
    assert set(statuses.values()) == {"error"}, statuses
    assert set(attacked["seen"]) == set(ATTACKS), attacked["report"]


def test_a_setsid_daemon_dies_with_its_sandbox(attacked):
    assert attacked["seen"]["daemon"] == {"daemon": "started"}
    assert attacked["running_at_end"] == []
    assert attacked["running_later"] == []
    assert not attacked["marker"].exists()


def test_no_write_lands_outside_the_scratch_directory(attacked):
    seen = attacked["seen"]["writes"]
    for place in attacked["places"]:
        assert not Path(place, TOKEN).exists(), place
    # /tmp is its own scratch's tmp: the write succeeds there and nowhere else.
    assert seen["/tmp"] == "written"
    assert {seen[p] for p in attacked["places"] if p != "/tmp"} <= {
        "FileNotFoundError",
        "PermissionError",
        "OSError",
    }, seen
    assert seen["big"] == "OSError", seen  # EFBIG: RLIMIT_FSIZE
    assert attacked["changed"] == []


def test_no_connection_reaches_the_teachers_loopback(attacked):
    assert attacked["seen"]["connects"]["connect"] != 0
    assert not attacked["connected"]


def test_a_classmate_is_neither_seen_nor_read_nor_changed(attacked):
    seen = attacked["seen"]["classmate"]
    assert seen["cohort"] is False, seen  # its parent is bwrap's init, not the command
    assert seen["read"] == "FileNotFoundError", seen
    assert seen["write"] == "FileNotFoundError", seen
    assert attacked["changed"] == []


def test_the_commands_memory_and_processes_are_out_of_reach(attacked):
    seen = attacked["seen"]["memory"]
    uid, gid, groups = seen["uid"]
    if os.geteuid() == 0:
        # A uid of its own, leased for this learner: not nobody, not root.
        assert FIRST <= uid < FIRST + COUNT and gid == uid and groups == [], seen
    else:
        assert seen["uid"] == [65534, 65534, []]  # inside its user namespace
    # Its own pid namespace: bwrap's init, itself, nothing of the machine.
    assert max(seen["pids"]) < 10, seen["pids"]
    for pid, said in seen.items():
        if pid.isdigit():
            assert said != "read", (pid, seen)
    assert seen["forked"] < 64, seen
