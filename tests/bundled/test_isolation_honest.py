"""The isolation a report names is the one learners' code had, and a judge
that cannot run learners' code says so once, before any learner.

Run for real, not with a patched probe:

- as an ordinary user (a uid no account uses, through ``setpriv``), with a
  Python that user can read: ``--isolation user`` cannot switch uids, so it
  is refused in one line (``--cohort`` too) instead of judging learners as
  that user under the name `user`; the default's label matches what a
  learner's code measured from inside (its uid, its pid namespace);
- as root, with day7-verify in a venv under a mode-0700 folder (the first
  hour's ``/root/day7``): learners' code runs on the Python the venv was
  made from, and cannot import the judge's own evaluator from it; with the
  packages readable by every uid instead, every report says the verdicts
  are not for grading.

The interpreter is Debian's ``/usr/bin/python3`` (pyenv's lives under
``/root``, mode 0700), given copies of pytest, Hypothesis and this checkout;
the module skips, saying why, where it or root is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from _command_learners import QUICK, learner_folder
from _readable_python import site as copied_site
from _readable_python import venv, why_no_system_python

from day7_verify.isolation._sandbox import NOBODY, detect
from day7_verify.isolation._uids import accounts

_WHY_NOT = why_no_system_python()

pytestmark = [
    pytest.mark.children,
    pytest.mark.skipif(os.geteuid() != 0, reason="switching uids needs root"),
    pytest.mark.skipif(
        not sys.platform.startswith("linux"), reason="uids and namespaces: Linux"
    ),
    pytest.mark.skipif(shutil.which("setpriv") is None, reason="no setpriv"),
    pytest.mark.skipif(_WHY_NOT is not None, reason=str(_WHY_NOT)),
]

# Planted at the top of a learner's evaluation.py: it says what it got, in
# its worker, then fails to load (fast: no invariant runs).
PROBE = (
    "import os as _os\n"
    "print('GOT ' + ' '.join([str(_os.getuid()), _os.readlink('/proc/self/ns/pid'),"
    " _os.readlink('/proc/self/ns/net')]), flush=True)\n"
    "raise ImportError('probed')\n"
)


@pytest.fixture(scope="module")
def base() -> Iterator[Path]:
    """A folder every user can enter, outside pytest's mode-0700 tmp_path."""
    made = Path(tempfile.mkdtemp(prefix="day7-isolation-"))
    os.chmod(made, 0o755)
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


@pytest.fixture(scope="module")
def site(base: Path) -> Path:
    return copied_site(base)


@pytest.fixture(scope="module")
def ordinary(base: Path, site: Path) -> dict:
    """How to run the command as an ordinary user: a free uid, its HOME, its python."""
    taken = accounts()
    uid = next(number for number in range(1234, 30000) if number not in taken)
    home = base / "home"
    home.mkdir()
    os.chown(home, uid, uid)
    return {"uid": uid, "home": home, "python": venv(base / "venv", site)}


def _command(
    python: Path, args: list[str], cwd: Path, uid: int | None = None, umask: int = 0o022
):
    environment = {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": str(cwd),
    }
    argv = [str(python), "-m", "day7_verify", *QUICK, *args]
    if uid is not None:
        argv = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *argv]
    return subprocess.run(
        argv,
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=lambda: os.umask(umask),
    )


def _probe_class(where: Path, names: tuple[str, ...] = ("a-probe",)) -> Path:
    cohort = where / "class"
    cohort.mkdir(parents=True)
    for name in names:
        module = learner_folder(cohort, name) / "evaluation.py"
        future = "from __future__ import annotations\n"
        source = module.read_text(encoding="utf-8")
        module.write_text(source.replace(future, future + PROBE, 1), encoding="utf-8")
    for folder, _, files in os.walk(where):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    return cohort


def _measured(report: dict) -> list[list[str]]:
    """What each learner's code said it got: uid, pid and network namespaces."""
    said = []
    for learner in report["learners"]:
        for line in (learner.get("output_tail") or "").splitlines():
            if line.strip().startswith("GOT "):
                said.append(line.split()[1:])
    return said


def test_an_ordinary_user_asking_for_user_isolation_is_refused_in_one_line(
    ordinary: dict, base: Path
) -> None:
    """`user` cannot switch uids for an ordinary user: refused, nothing judged."""
    cohort = _probe_class(base / "refused")
    out = base / "refused" / "class.json"
    os.chown(out.parent, ordinary["uid"], ordinary["uid"])  # refused, not unwritable
    for target in (
        [str(cohort / "a-probe")],
        ["--cohort", str(cohort)],
    ):
        done = _command(
            ordinary["python"],
            [*target, "--isolation", "user", "--json", str(out)],
            ordinary["home"],
            ordinary["uid"],
        )
        assert done.returncode == 2, (done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith("day7-verify: --isolation user is not available")
        assert "needs root" in lines[0] and f"uid {ordinary['uid']}" in lines[0]
        assert not out.exists()


def test_an_ordinary_users_label_is_what_the_learners_code_measured(
    ordinary: dict, base: Path
) -> None:
    """By default, every report names the isolation a learner's code measured:
    `sandbox` (uid 65534, its own pid namespace) or `process` (the user)."""
    cohort = _probe_class(base / "default")
    reports = base / "default"
    os.chown(reports, ordinary["uid"], ordinary["uid"])
    done = _command(
        ordinary["python"],
        [str(cohort / "a-probe")]
        + ["--json", str(reports / "r.json"), "--junit", str(reports / "r.xml")]
        + ["--gradescope", str(reports / "g.json")],
        ordinary["home"],
        ordinary["uid"],
    )
    assert done.returncode == 1, done.stderr  # the probe fails to load
    report = json.loads((reports / "r.json").read_text(encoding="utf-8"))
    label = report["settings"]["isolation"]
    [[uid, pid_ns, net_ns]] = _measured(report)
    own = (os.readlink("/proc/self/ns/pid"), os.readlink("/proc/self/ns/net"))
    if label == "sandbox":
        assert int(uid) == NOBODY and pid_ns != own[0] and net_ns != own[1]
    else:
        assert label == "process", label
        assert int(uid) == ordinary["uid"] and pid_ns == own[0]
    assert f"\n  judged under {label} isolation\n" in done.stdout, done.stdout
    junit = (reports / "r.xml").read_text(encoding="utf-8")
    assert f'name="isolation" value="{label}"' in junit
    gradescope = json.loads((reports / "g.json").read_text(encoding="utf-8"))
    assert gradescope["extra_data"]["day7_verify"]["isolation"] == label


@pytest.mark.skipif(
    detect().isolation != "sandbox",
    reason=f"no bubblewrap sandbox here: {detect().why_not_stronger}",
)
def test_an_ordinary_users_sandbox_is_a_sandbox(ordinary: dict, base: Path) -> None:
    """Named, `sandbox` for an ordinary user is uid 65534 in namespaces of its own."""
    cohort = _probe_class(base / "sandboxed")
    reports = base / "sandboxed"
    os.chown(reports, ordinary["uid"], ordinary["uid"])
    done = _command(
        ordinary["python"],
        [str(cohort / "a-probe"), "--isolation", "sandbox"]
        + ["--json", str(reports / "r.json")],
        ordinary["home"],
        ordinary["uid"],
    )
    assert done.returncode == 1, done.stderr
    report = json.loads((reports / "r.json").read_text(encoding="utf-8"))
    assert report["settings"]["isolation"] == "sandbox"
    [[uid, pid_ns, _]] = _measured(report)
    assert int(uid) == NOBODY and pid_ns != os.readlink("/proc/self/ns/pid")


@pytest.fixture(scope="module")
def private_venv(base: Path) -> Path:
    """The first hour's venv as root makes it: under a folder of mode 0700,
    the judge's packages inside it too."""
    private = base / "root-home"
    private.mkdir(mode=0o700)
    os.chmod(private, 0o700)
    return venv(private / "day7", copied_site(private))


#: Appended to each module of the folder, guarded (a failed attempt leaves
#: the learner's own names): the judge's own evaluator's module of that name,
#: run from the venv's packages (the path as the teacher's install has it)
#: and re-exported over the learner's. Its source is read and run under a
#: name of the learner's (`_lent`, no file), as a learner could: a plain
#: import would show the module's file, refused as borrowed:evaluator in
#: every mode (test_not_for_grading.py); what this borrower gets is all a
#: readable install lends, and only a private one keeps from it.
BORROW = """\
try:
    import importlib as _i, importlib.abc as _abc, importlib.util as _u
    import os as _o, sys as _s

    class _Lender(_abc.MetaPathFinder, _abc.Loader):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] != "_lent":
                return None
            return _u.spec_from_loader(name, self, is_package=name == "_lent")

        def exec_module(self, module):
            stem = module.__name__.partition(".")[2] or "__init__"
            source = _o.path.join({site!r}, "evaluator", stem + ".py")
            with open(source, encoding="utf-8") as _f:
                code = compile(_f.read(), "<lent>", "exec")
            exec(code, module.__dict__)

    if not any(type(f).__name__ == "_Lender" for f in _s.meta_path):
        _s.meta_path.insert(0, _Lender())
    _e = _i.import_module("_lent.{module}")
    globals().update({{n: getattr(_e, n) for n in dir(_e) if not n.startswith("__")}})
    print("BORROWED", _e.__name__, flush=True)
except BaseException as _error:
    print("NOT BORROWED", type(_error).__name__, flush=True)
"""


def _borrower(where: Path, site: Path) -> Path:
    cohort = where / "class"
    cohort.mkdir(parents=True)
    folder = learner_folder(cohort, "borrower", "returns-none")
    for module in (m for m in folder.glob("*.py") if not m.name.startswith("_")):
        borrow = BORROW.format(site=str(site), module=module.stem)
        source = module.read_text(encoding="utf-8")
        module.write_text(source + borrow, encoding="utf-8")
    for folder, _, files in os.walk(where):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    return cohort / "borrower"


def test_a_private_install_lends_learners_nothing_under_user_isolation(
    private_venv: Path, base: Path
) -> None:
    """As root, --isolation user with the venv under a 0700 folder: learner
    code runs on the Python the venv was made from, cannot import the
    judge's evaluator from the venv's packages, and fails as it is; the
    report is for grading."""
    site = private_venv.parents[2] / "site"
    folder = _borrower(base / "private", site)
    out = base / "private" / "class.json"
    done = _command(
        private_venv,
        [str(folder), "--isolation", "user", "--json", str(out)],
        base / "private",
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["settings"]["isolation"] == "user"
    assert "not_for_grading" not in report["settings"], report["settings"]
    [learner] = report["learners"]
    assert learner["status"] == "fail", learner
    assert learner["invariants"]["truth"] != "pass"


def test_a_readable_install_is_said_not_for_grading_under_user_isolation(
    ordinary: dict, site: Path, base: Path
) -> None:
    """As root, --isolation user with the judge's packages readable by every
    uid (a venv under a folder anyone enters): the borrower passes (the
    private install above is what stops it), and every report says the
    verdict is not for grading, naming the evaluator."""
    folder = _borrower(base / "readable", site)
    out = base / "readable" / "class.json"
    done = _command(
        ordinary["python"],
        [str(folder), "--isolation", "user", "--json", str(out)],
        base / "readable",
    )
    assert done.returncode == 0, (done.stdout, done.stderr)
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["learners"][0]["status"] == "pass"
    why = report["settings"]["not_for_grading"]
    assert "evaluator" in why and str(site) in why, why
    assert f"not for grading: {why}" in done.stdout


@pytest.mark.skipif(
    detect().isolation != "sandbox",
    reason=f"no bubblewrap sandbox here: {detect().why_not_stronger}",
)
def test_the_sandbox_shows_a_python_under_a_private_folder(
    private_venv: Path, base: Path
) -> None:
    """bwrap binds the installation into folders of its own: the same venv
    judges under `sandbox`, as the uid it leases."""
    cohort = _probe_class(base / "private-sandbox")
    out = base / "private-sandbox" / "r.json"
    done = _command(
        private_venv,
        [str(cohort / "a-probe"), "--isolation", "sandbox", "--json", str(out)],
        base / "private-sandbox",
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    [learner] = report["learners"]
    assert "probed" in learner["detail"], learner["detail"]  # loaded, then raised
    [[uid, _, _]] = _measured(report)
    assert int(uid) not in (0, NOBODY)  # a leased uid


def test_a_scratch_the_learners_uids_cannot_enter_is_the_judges_error(
    ordinary: dict, base: Path
) -> None:
    """As root, --isolation user with --scratch in a 0700 folder: one line,
    exit 2, no learner judged (their workers could not reach the bundle)."""
    cohort = _probe_class(base / "scratch")
    private = base / "scratch" / "private"
    private.mkdir(mode=0o700)
    os.chmod(private, 0o700)
    (private / "inside").mkdir()
    done = _command(
        ordinary["python"],
        [str(cohort / "a-probe"), "--isolation", "user"]
        + ["--scratch", str(private / "inside")],
        base / "scratch",
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "cannot be entered by uid" in lines[0]
    assert f"{private} is mode 700" in lines[0] and "--scratch" in lines[0]


@pytest.mark.parametrize("isolation", ["user", "sandbox"])
def test_judges_files_the_learners_uids_cannot_read_are_the_judges_error(
    ordinary: dict, base: Path, isolation: str
) -> None:
    """As root under umask 027 the scratch is closed to other uids: one line
    naming the umask, exit 2, no learner judged."""
    if isolation == "sandbox" and detect().isolation != "sandbox":
        pytest.skip(f"no bubblewrap sandbox here: {detect().why_not_stronger}")
    cohort = _probe_class(base / f"umask-{isolation}")
    done = _command(
        ordinary["python"],
        [str(cohort / "a-probe"), "--isolation", isolation],
        base / f"umask-{isolation}",
        umask=0o027,
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "umask 027" in lines[0] and "umask 022" in lines[0], lines[0]
