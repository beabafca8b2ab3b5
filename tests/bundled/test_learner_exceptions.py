"""Every exception a learner's code raises is named, worded and placed as raised.

The worker sends an exception as data (worker/serve.py `_error_data`: its
type's name, builtin base, str() and repr() computed there under a guard,
plain args, notes, frames, a group's own exceptions); the judge makes an
object of it without calling anything of the learner's type
(judge/remote.py `rebuilt`). Before, the judge called the type with one
message argument, and a learner whose file check let `UnicodeDecodeError`
escape was told their code "raised TypeError: function takes exactly 5
arguments (1 given)".

The learner here is a folder whose `evaluate_run(spec)` makes and raises the
exception `spec` describes (a builtin, or the learner's own subclass of one,
with the constructor, arguments and `__str__`/`__repr__` the spec draws).
The same source run in this process is the oracle: what Python raises for it.
"""

from __future__ import annotations

import builtins
import sys
import types
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge import InvariantFailure, call_target, load_target
from judge.lessons import CallAborted

HAS_GROUPS = sys.version_info >= (3, 11)
#: ExceptionGroup's base, new in Python 3.11 (None before).
GROUP = getattr(builtins, "BaseExceptionGroup", None)
WHAT = "evaluate_run(run, workspace, receipts, case)"

#: The learner's evaluation.py: it raises what `spec` says, from `_file_check`.
LEARNER = """\
import builtins


def _made(spec):
    base = getattr(builtins, spec["base"])
    args = list(spec["args"])
    if not spec["own"]:
        return base(*args)
    space = {}
    if spec["init"] == "none":
        def __init__(self):
            pass
        space["__init__"] = __init__
    elif spec["init"] == "keywords":
        def __init__(self, *, values=()):
            base.__init__(self, *values)
        space["__init__"] = __init__
    if spec["str_raises"]:
        def __str__(self):
            raise RuntimeError("no str")
        space["__str__"] = __str__
    if spec["repr_raises"]:
        def __repr__(self):
            raise LookupError("no repr")
        space["__repr__"] = __repr__
    kind = type(spec["name"], (base,), space)
    if spec["init"] == "none":
        return kind()
    if spec["init"] == "keywords":
        return kind(values=tuple(args))
    return kind(*args)


def _file_check(spec):
    error = _made(spec)
    for message in spec["groups"]:
        error = BaseExceptionGroup(message, [error, ValueError(message)])
    for note in spec["notes"]:
        error.add_note(note)
    raise error


def evaluate_run(run, workspace=None, receipts=None, case=None):
    return _file_check(run)
"""


def _bases() -> list[str]:
    """Every builtin exception class, the whole hierarchy."""
    return sorted(
        name
        for name, value in vars(builtins).items()
        if isinstance(value, type) and issubclass(value, BaseException)
    )


_ARGUMENTS = st.lists(
    st.one_of(
        st.text(max_size=12),
        st.integers(-3, 300),
        st.binary(max_size=6),
        st.none(),
    ),
    max_size=5,
)


@st.composite
def specs(draw: Any) -> dict[str, Any]:
    """An exception to raise: its builtin base, whether it is the learner's
    own subclass, its constructor's signature, arguments, whether its
    __str__ or __repr__ raises, the groups it is nested in and its notes."""
    own = draw(st.booleans())
    return {
        "base": draw(st.sampled_from(_bases())),
        "own": own,
        "name": draw(st.from_regex(r"[A-Z][A-Za-z0-9_]{0,14}", fullmatch=True)),
        "init": draw(st.sampled_from(["inherited", "none", "keywords"])),
        "args": draw(_ARGUMENTS),
        "str_raises": own and draw(st.booleans()),
        "repr_raises": own and draw(st.booleans()),
        # ExceptionGroup is new in Python 3.11: on 3.10 nothing is nested.
        "groups": draw(st.lists(st.text(max_size=8), max_size=2 if HAS_GROUPS else 0)),
        "notes": draw(st.lists(st.text(max_size=8), max_size=2 if HAS_GROUPS else 0)),
    }


@pytest.fixture(scope="module")
def learner(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("raises") / "agent"
    folder.mkdir()
    source = LEARNER if HAS_GROUPS else LEARNER.replace("BaseExceptionGroup", "None")
    (folder / "evaluation.py").write_text(source, encoding="utf-8")
    oracle = types.ModuleType("oracle")
    path = str(folder / "evaluation.py")
    exec(compile(source, path, "exec"), oracle.__dict__)
    target = load_target(impl_path=folder)
    assert target.remote
    yield target, oracle, path
    target.client.stop()


def _raised_here(oracle: types.ModuleType, spec: dict[str, Any]) -> BaseException:
    try:
        oracle.evaluate_run(spec)
    except BaseException as error:  # whatever the spec makes: the oracle's
        return error
    raise AssertionError("the learner returned")


def _guarded(show: Any, error: BaseException, what: str) -> str:
    try:
        return show(error)
    except Exception as failed:
        return f"(its {what} raised {type(failed).__name__})"


def _said(error: BaseException) -> str:
    """How a lesson words an exception: its type's name, then its str() on one
    line ("(its str() raised X)" when that raises), or the name alone."""
    text = " ".join(_guarded(str, error, "str()").split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _frames(error: BaseException, path: str) -> list[tuple[int, str]]:
    """Where `error` was raised in the learner's file, innermost first."""
    frames = []
    trace = error.__traceback__
    while trace is not None:
        code = trace.tb_frame.f_code
        if code.co_filename == path:
            frames.append((trace.tb_lineno, code.co_name))
        trace = trace.tb_next
    return frames[::-1]


def _lesson(target: Any, spec: dict[str, Any]) -> InvariantFailure | CallAborted:
    with pytest.raises((InvariantFailure, CallAborted)) as raised:
        call_target(WHAT, target.evaluate_run, spec)
    return raised.value


def _judge_sees(target: Any, spec: dict[str, Any]) -> BaseException:
    with pytest.raises(Exception) as raised:
        target.evaluate_run(spec)
    return raised.value


def _holds(learner: Any, spec: dict[str, Any]) -> None:
    target, oracle, path = learner
    here = _raised_here(oracle, spec)
    lesson = _lesson(target, spec)
    said = _said(here)
    assert lesson.observed == f"{WHAT} raised {said}", (lesson.observed, said)
    seen = _judge_sees(target, spec)
    # Named: the type's name, and the builtin it derives from (except
    # ValueError still catches a learner's subclass of it).
    assert type(seen).__name__ == type(here).__name__
    builtin = next(k for k in type(here).__mro__ if k.__module__ == "builtins")
    if issubclass(builtin, Exception) or (HAS_GROUPS and builtin is GROUP):
        assert isinstance(seen, builtin), (type(seen).__mro__, builtin)
    # Worded: str() and repr() as the learner's code gave them.
    assert _guarded(str, seen, "str()") == _guarded(str, here, "str()")
    wanted = _guarded(repr, here, "repr()")
    if wanted.startswith("(its repr() raised"):
        wanted = (
            f"<{type(here).__name__} whose repr() raised {wanted.split()[-1][:-1]}>"
        )
    assert repr(seen) == wanted
    # Placed: the frames in the learner's file, innermost first.
    where = [(line, name) for file, line, name in seen.where if file == path]
    assert where == _frames(here, path)
    assert getattr(seen, "__notes__", []) == getattr(here, "__notes__", [])
    if HAS_GROUPS and isinstance(here, GROUP):
        assert isinstance(seen, GROUP)
        assert [_said(e) for e in seen.exceptions] == [
            _said(e) for e in here.exceptions
        ]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(spec=specs())
def test_a_lesson_names_and_words_every_exception_as_the_learner_raised_it(
    learner, spec
) -> None:
    """Whatever exception the learner's code raises (any builtin base, its own
    subclass, any constructor signature and arguments, a __str__ or __repr__
    that raises, nested in groups), the lesson's words are its type's name
    and str() as raised, and the judge's object has that name, builtin base,
    str(), repr(), frames, notes and group members. From Day 7's
    evaluate_run, whose commonest slip lets UnicodeDecodeError escape a file
    check: a learner told of an error the judge made up is sent to the wrong
    place."""
    _holds(learner, spec)


def _spec(base: str, args: list[Any], **changes: Any) -> dict[str, Any]:
    spec = {
        "base": base,
        "own": False,
        "name": "Mine",
        "init": "inherited",
        "args": args,
        "str_raises": False,
        "repr_raises": False,
        "groups": [],
        "notes": [],
    }
    spec.update(changes)
    return spec


@pytest.mark.parametrize(
    "spec",
    [
        _spec("UnicodeDecodeError", ["utf-8", b"\xff", 0, 1, "invalid start byte"]),
        _spec("UnicodeEncodeError", ["ascii", "\xe9", 0, 1, "ordinal not in range"]),
        _spec("OSError", [2, "No such file or directory", "src/a.txt"]),
        _spec("FileNotFoundError", [2, "No such file or directory", "src/a.txt"]),
        _spec("KeyError", ["call-1"]),
        _spec("SyntaxError", ["invalid syntax", ["f.py", 3, 4, "x y"]]),
        _spec("StopIteration", [5]),
        _spec("ValueError", [], own=True, init="none"),
        _spec("KeyError", ["k"], own=True, init="keywords"),
        _spec("ValueError", ["x"], own=True, str_raises=True, repr_raises=True),
        _spec("UnicodeDecodeError", ["utf-8", b"\xff", 0, 1, "bad"], own=True),
        _spec("SystemExit", [3]),
        _spec("KeyboardInterrupt", []),
    ],
    ids=lambda spec: f"{spec['base']}-{spec['own']}-{spec['init']}",
)
def test_the_exceptions_the_issue_names_are_said_as_raised(learner, spec) -> None:
    """The cases issue 36 names, each as raised (the property draws them too)."""
    _holds(learner, spec)


@pytest.mark.skipif(not HAS_GROUPS, reason="ExceptionGroup is new in Python 3.11")
def test_an_exception_group_keeps_its_members(learner) -> None:
    """An ExceptionGroup arrives with its members, each named and worded."""
    _holds(learner, _spec("KeyError", ["k"], groups=["outer", "inner"], notes=["n"]))


def test_the_learners_function_is_named_in_the_hint(learner) -> None:
    """A raise names the exception and the learner's function it escaped
    from (the innermost frame in the learner's file), never a guess about
    what the world held."""
    target, _, _ = learner
    spec = _spec("UnicodeDecodeError", ["utf-8", b"\xff", 0, 1, "bad"])
    lesson = _lesson(target, spec)
    assert "UnicodeDecodeError escaped from _file_check" in lesson.hint, lesson.hint
    assert lesson.hint.endswith("change _file_check in evaluation.py"), lesson.hint
    assert "unavailable evidence" not in lesson.hint
    assert lesson.cause == "raises:evaluate_run:_file_check"


#: A learner's evaluate_run that fills memory slowly (1 MiB a step, touched),
#: then holds it, or only sleeps: neither returns before its call limit.
_FILLS = """\
import time


def evaluate_run(run, workspace=None, receipts=None, case=None):
    kept = []
    while True:
        if run == "fills" and len(kept) < 700:
            kept.append(bytearray(1 << 20))
        else:
            time.sleep(0.01)
"""


@pytest.mark.parametrize(("how", "topic"), [("fills", "memory"), ("sleeps", "hang")])
def test_a_call_ended_by_its_clock_while_filling_memory_is_told_as_memory(
    tmp_path, how, topic
) -> None:
    """A call that is still allocating when its clock ends it, having used
    most of the worker's memory limit, is told in a MemoryError's words (which
    comes first is the machine's load: a folder judged again must say the
    same), its observation saying how much it had grown to; one that only
    loops is a hang (issue 36: a memory hog allocating in a loop was told it
    hung)."""
    from judge.limits import CallLimits, use_call_limits

    (tmp_path / "evaluation.py").write_text(_FILLS, encoding="utf-8")
    target = load_target(impl_path=tmp_path)
    target.client.settings = {**target.client.settings, "memory": 1 << 30}
    target.client.stop()  # the next request starts a worker under the limit
    previous = use_call_limits(CallLimits(seconds=4.0))
    try:
        with pytest.raises(CallAborted) as raised:
            call_target(WHAT, target.evaluate_run, how)
    finally:
        use_call_limits(previous)
        target.client.stop()
    lesson = raised.value
    assert lesson.topic == topic, lesson.headline
    if topic == "memory":
        assert lesson.cause == "memory:evaluate_run"
        assert lesson.headline == f"{WHAT} ran out of memory"
        assert "of its 1024 MiB limit and still allocating" in lesson.observed
    else:
        assert lesson.cause.startswith("hang:")
