"""Both routes to a target give the same verdicts: here, and through a worker.

The bundled evaluator is trusted and judged in-process (coverage and
mutation testing need that); every other target is judged through a worker
process (worker/serve.py). Judging the bundled evaluator's own folder
through a worker must give, world by world, the rows the in-process route
gives: otherwise the protocol, not the learner, would be judged.
"""

from __future__ import annotations

import pytest
from _command_learners import EVALUATOR
from _written_worlds import EXAMPLE_WORLDS
from hypothesis import given, settings

from judge import judged, load_target
from judge.target import Target
from strategies import worlds


@pytest.fixture(scope="module")
def routes() -> tuple[Target, Target]:
    here = load_target()
    there = load_target(impl_path=EVALUATOR, level="hardened")
    assert not here.remote and there.remote
    yield here, there
    there.client.stop()


def _examples() -> list:
    return (
        list(EXAMPLE_WORLDS.values())
        if isinstance(EXAMPLE_WORLDS, dict)
        else list(EXAMPLE_WORLDS)
    )


def test_every_written_world_is_judged_alike_by_both_routes(routes) -> None:
    """Each written-out world: the same rows in-process and through a worker."""
    here, there = routes
    examples = _examples()
    assert examples
    for world in examples:
        assert judged(here, world) == judged(there, world), world


@settings(max_examples=60, deadline=None)
@given(world=worlds())
def test_drawn_worlds_are_judged_alike_by_both_routes(routes, world) -> None:
    """Any drawn world: the same rows in-process and through a worker."""
    here, there = routes
    assert judged(here, world) == judged(there, world)


def test_the_worker_route_can_tell_a_difference(routes, tmp_path) -> None:
    """A worker judging a different evaluator gives different rows: the
    comparison above is not between two copies of one route."""
    import shutil

    from _command_learners import learner_folder

    folder = learner_folder(tmp_path, "strict-final")
    source = (folder / "evaluation.py").read_text(encoding="utf-8")
    (folder / "evaluation.py").write_text(
        source.replace("def evaluate_run(", "def _evaluate_run(", 1)
        + "\n\ndef evaluate_run(run, workspace, receipts, case):\n"
        "    report = _evaluate_run(run, workspace, receipts, case)\n"
        "    checks = tuple(\n"
        "        EvaluationCheck(c.name, not c.passed, c.detail)\n"
        "        for c in report.checks\n"
        "    )\n"
        "    return EvaluationReport(checks)\n",
        encoding="utf-8",
    )
    here, _ = routes
    other = load_target(impl_path=folder, level="hardened")
    try:
        world = _examples()[0]
        assert judged(here, world) != judged(other, world)
    finally:
        other.client.stop()
        shutil.rmtree(folder)


def test_a_batch_sent_while_a_batch_waits_on_a_callback_keeps_its_results(
    tmp_path,
) -> None:
    """A batch the judge sends from a callback (the learner's code called a
    judge-side callable mid-batch) leaves the outer batch's earlier results
    where its later steps find them."""
    from judge.batches import Ref, Step, run_steps

    (tmp_path / "evaluation.py").write_text(
        "def evaluate_run(run, workspace=None, store=None, case=None):\n"
        "    return run() if callable(run) else run\n",
        encoding="utf-8",
    )
    target = load_target(impl_path=tmp_path)
    try:
        evaluate = target.names["evaluate_run"]

        def call(what, fn, *args, **kwargs):
            return fn(*args, **kwargs)

        def inner() -> int:
            return run_steps([Step("inner", evaluate, (5,))], call)[0]

        steps = [
            Step("kept", evaluate, (7,)),
            Step("calls back", evaluate, (inner,)),
            Step("reads the first", evaluate, (Ref(0),)),
        ]
        assert run_steps(steps, call) == [7, 5, 7]
    finally:
        target.client.stop()


def test_two_objects_recast_alike_compare_equal_in_the_worker(routes) -> None:
    """Recast alike (judge.recast: a subclass named the same of the same
    base), two equal expectations stay equal where they live, as they do
    in-process: a dataclass compares its class first."""
    from judge.remote import recast

    here, there = routes
    for target in (here, there):
        made = [
            recast(target.FileExpectation("a.txt", "x"), "FileExpectation", "Mine")
            for _ in range(2)
        ]
        if target.remote:
            same = there.client.ask("comparing", "special", made[0], "__eq__", made[1])
        else:
            same = made[0] == made[1]
        assert same is True, target


def _raised_through(client, error: Exception):
    """What the target's code sees when it calls a judge callable that raises
    `error`: the worker calls it back, and what it raises comes back as data."""
    from judge.remote import RemoteError

    def lookup(call_id: str) -> None:
        raise error

    call = {"op": "call", "fn": client.encode(lookup), "args": ["call-1"]}
    with pytest.raises(RemoteError) as raised:
        client.request(call, "calling a judge callable from the worker")
    return raised.value


@pytest.mark.parametrize(
    ("error", "kind", "builtin"),
    [
        # The target's own AgentError (a ValueError there), not a stranger of that name.
        (type("AgentError", (Exception,), {})("broke"), "AgentError", "ValueError"),
        (KeyError("call-1"), "KeyError", "KeyError"),
        (
            type("LookupFailure", (LookupError,), {})("gone"),
            "LookupFailure",
            "LookupError",
        ),
    ],
)
def test_a_judge_callback_that_raises_raises_in_the_worker_as_the_judge_says(
    routes, error, kind, builtin
) -> None:
    """A judge callable that raises is raised in the worker as the target's own
    class for a Day 7 name, the builtin for a builtin's name, else a class of
    that name deriving from the builtin: a failing store lookup reaches the
    learner's code as the error the world drew."""
    import builtins

    _, there = routes
    seen = _raised_through(there.client, error)
    assert type(seen).__name__ == kind
    assert isinstance(seen, getattr(builtins, builtin)), type(seen).__mro__
    assert error.args[0] in str(seen)


def test_a_reply_over_the_line_limit_is_a_crash_never_an_error_the_target_raised(
    routes,
) -> None:
    """A value too large for one line ends the call as a protocol breach (a
    crash lesson), never as an exception of the target's: a call that was
    expected to raise ValueError must not be credited for a reply too long."""
    from judge.remote import MAX_LINE, ProtocolError

    _, there = routes
    huge = {"op": "call", "fn": {"$bi": "bytes"}, "args": [MAX_LINE]}
    with pytest.raises(ProtocolError, match="line over"):
        there.client.request(huge, "returning a value too large")
    assert there.client.ask("still serving", "repr", 7) == "7"  # a new worker


def test_the_worker_runs_under_the_memory_limit_its_settings_name() -> None:
    """The judge starts its worker with the address-space limit its settings
    name (DAY7_WORKER's `memory`, set from outside, before the worker's first
    line runs), so a learner's call that eats memory is stopped, whatever the
    worker's own code has become."""
    import resource

    from _command_learners import EVALUATOR

    from judge.remote import Client

    memory = 1 << 30
    client = Client({"folder": str(EVALUATOR), "names": [], "modules": []}, "it")
    client.settings = {**client.settings, "memory": memory}
    steps = [
        {"fn": {"$bi": "__import__"}, "args": ["resource"]},
        {"fn": {"$r": 0}, "method": "getrlimit", "args": [resource.RLIMIT_AS]},
    ]
    try:
        said = client.request({"op": "batch", "steps": steps}, "reading the limit")
    finally:
        client.stop()
    assert said["results"][1] == (memory, memory)


def test_the_state_of_a_worker_whose_working_directory_was_removed_says_so(
    routes,
) -> None:
    """The worker's state names its working directory, or says it is unavailable
    when the target's code removed it (it never fails to be read): a call that
    deletes the directory it runs in is seen changing the process."""
    import os
    import tempfile

    from judge.build import materialise
    from judge.snapshot import object_state
    from strategies import PASSING_WORLD

    _, there = routes
    client = there.client
    try:
        with materialise(PASSING_WORLD, there) as built:
            before = object_state(built)
            gone = tempfile.mkdtemp(dir=built.tree)
            os.chmod(gone, 0o777)  # the worker may run as another uid
            steps = [
                {"fn": {"$bi": "__import__"}, "args": ["os"]},
                {"fn": {"$r": 0}, "method": "chdir", "args": [gone]},
            ]
            client.request({"op": "batch", "steps": steps}, "moving the worker")
            os.rmdir(gone)
            after = object_state(built)
    finally:
        client.stop()  # the shared worker's removed directory goes with it
    where = "the process's working directory"
    assert not before[where].startswith("<unavailable")
    assert after[where].startswith("<unavailable: ")
    assert {k: v for k, v in after.items() if k != where} == {
        k: v for k, v in before.items() if k != where
    }
