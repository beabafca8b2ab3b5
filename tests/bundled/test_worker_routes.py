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
from hypothesis import given, settings

from judge import judged, load_target
from judge.target import Target
from strategies import EXAMPLE_WORLDS, worlds


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
    from judge.remote import Ref, Step, run_steps

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
