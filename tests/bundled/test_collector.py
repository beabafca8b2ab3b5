"""The garbage collector is paused while receipts are judged, and restored after.

Pausing is a speed measure (see evaluator/_collector.py); leaving the
collector off, or turning it on for a caller who had turned it off, would be
a side effect of evaluation on the whole process.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator import (
    AgentEvent,
    AgentRun,
    EffectReceipt,
    EvaluationCase,
    FinalAction,
    ReceiptExpectation,
    ReceiptStore,
    ToolPolicy,
    Workspace,
    evaluate_run,
)
from evaluator._collector import collector_paused

RECEIPT = EffectReceipt("call-1", "edit_file", {"path": "a.txt"}, "ok", "edited a.txt")
CASE = EvaluationCase(
    "done",
    receipts=(ReceiptExpectation("call-1", "edit_file", "ok", "edited", ()),),
)


@pytest.fixture
def collector_state() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:  # pragma: no cover - pytest runs with the collector on
        gc.disable()


def _evaluate(root: Path, store: ReceiptStore) -> bool:
    run = AgentRun(
        True, "completed", "done", (AgentEvent(1, "{}", FinalAction("done"), None),)
    )
    return evaluate_run(run, Workspace(ToolPolicy(root)), store, CASE).passed


@pytest.mark.usefixtures("collector_state")
@pytest.mark.parametrize("enabled", [True, False])
def test_evaluation_leaves_the_collector_as_it_found_it(
    tmp_path: Path, enabled: bool
) -> None:
    store = ReceiptStore(tmp_path / "receipts.jsonl")
    store.put(RECEIPT)
    (gc.enable if enabled else gc.disable)()
    seen: list[bool] = []
    original = ReceiptStore._load

    def watching_load(self: ReceiptStore, text: str) -> None:
        seen.append(gc.isenabled())
        original(self, text)

    ReceiptStore._load = watching_load  # type: ignore[method-assign]
    try:
        assert _evaluate(tmp_path, store)
    finally:
        ReceiptStore._load = original  # type: ignore[method-assign]
    assert seen == [False]  # paused while the log was loaded
    assert gc.isenabled() is enabled


@pytest.mark.usefixtures("collector_state")
def test_the_collector_comes_back_when_a_lookup_raises(tmp_path: Path) -> None:
    store = ReceiptStore()

    def broken_get(_call_id: str) -> None:
        raise OSError("disk gone")

    store.get = broken_get  # type: ignore[method-assign]
    gc.enable()
    assert not _evaluate(tmp_path, store)
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_state")
def test_an_error_inside_the_block_restores_the_collector() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), collector_paused():
        assert not gc.isenabled()
        raise RuntimeError("boom")
    assert gc.isenabled()
