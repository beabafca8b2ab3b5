"""The bundled evaluator's exact wording, where the contract leaves it open.

The contract fixes what a refusal must name (the field, the expected type) and
the prefix of an unavailable-evidence detail. The bundled evaluator says more:
which argument was wrong, what it got instead, and why a receipt log could
not be used. Mutation testing found that extra wording unpinned (it could
turn into "got NoneType" or lose the loader's reason unnoticed), so these
examples pin it; docs/mutation.md records the run that found them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator import (
    AgentRun,
    EffectReceipt,
    EvaluationCase,
    EvaluationCheck,
    FileExpectation,
    ReceiptExpectation,
    ReceiptStore,
    ToolPolicy,
    Workspace,
    evaluate_run,
)
from evaluator.evaluation import MAX_RECEIPT_LOG_BYTES

ARGUMENTS = (
    ("run", "AgentRun"),
    ("workspace", "Workspace"),
    ("receipts", "ReceiptStore"),
    ("case", "EvaluationCase"),
)


def _valid_arguments(root: Path) -> list[object]:
    run = AgentRun(True, "completed", "done", ())
    return [run, Workspace(ToolPolicy(root)), ReceiptStore(), EvaluationCase("done")]


@pytest.mark.parametrize(("position", "named"), list(enumerate(ARGUMENTS)))
def test_a_wrong_argument_is_refused_by_its_name_and_what_it_got(
    tmp_path: Path, position: int, named: tuple[str, str]
) -> None:
    """A wrong argument of evaluate_run is refused by name, its type and what it got."""
    name, kind = named
    arguments = _valid_arguments(tmp_path)
    arguments[position] = 42
    with pytest.raises(
        ValueError, match=rf"^{name} must be an instance of {kind}, got int$"
    ):
        evaluate_run(*arguments)  # type: ignore[arg-type]


def test_a_non_string_field_names_the_type_it_got() -> None:
    """A required string that is not a string is refused by field and the type given."""
    with pytest.raises(ValueError, match=r"^file path must be a string, got int$"):
        FileExpectation(3, "content")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ((1, True, "d"), "check name must be a string, got int"),
        (("final", 1, "d"), "check passed must be a bool, got int"),
        (("final", True, b"d"), "check detail must be a string, got bytes"),
    ],
)
def test_a_malformed_check_names_the_type_it_got(
    fields: tuple[object, object, object], message: str
) -> None:
    """An EvaluationCheck built from wrong types says which field and what it got."""
    with pytest.raises(ValueError, match=f"^{message}$"):
        EvaluationCheck(*fields)  # type: ignore[arg-type]


def _receipt_case() -> EvaluationCase:
    expectation = ReceiptExpectation("call-1", "write_file", "ok", "wrote", ("a.txt",))
    return EvaluationCase("done", receipts=(expectation,))


def _receipt() -> EffectReceipt:
    arguments = {"path": "a.txt", "content": "x"}
    return EffectReceipt(
        "call-1", "write_file", arguments, "ok", "wrote a.txt", ("a.txt",)
    )


def _judge(root: Path, store: ReceiptStore) -> EvaluationCheck:
    run = AgentRun(True, "completed", "done", ())
    workspace = Workspace(ToolPolicy(root))
    return evaluate_run(run, workspace, store, _receipt_case()).checks[-1]


def test_an_unloadable_log_detail_keeps_the_loaders_reason(tmp_path: Path) -> None:
    """A log that fails to reload gives the loader's reason after the prefix."""
    root = tmp_path / "root"
    root.mkdir()
    log = tmp_path / "receipts.jsonl"
    store = ReceiptStore(log)
    store.put(_receipt())
    log.write_text("not json\n", encoding="utf-8")
    check = _judge(root, store)
    assert (check.passed, check.detail) == (
        False,
        "receipt evidence unavailable: could not load receipt log:"
        " line 1 is not valid JSON",
    )


def test_a_log_of_exactly_the_size_bound_is_still_loaded(tmp_path: Path) -> None:
    """The log size bound is inclusive: a valid log of exactly the bound loads.

    Spaces inside the one JSON line (JSON allows trailing whitespace) make a
    valid log of exactly MAX_RECEIPT_LOG_BYTES; one byte more is refused.
    """
    root = tmp_path / "root"
    root.mkdir()
    log = tmp_path / "receipts.jsonl"
    store = ReceiptStore(log)  # no log yet: an empty store over that path
    line = json.dumps(_receipt().to_dict(), sort_keys=True).encode("utf-8")
    padding = MAX_RECEIPT_LOG_BYTES - len(line) - 1
    log.write_bytes(line + b" " * padding + b"\n")
    assert log.stat().st_size == MAX_RECEIPT_LOG_BYTES
    loaded = _judge(root, store)
    assert (loaded.passed, loaded.detail) == (True, "receipt facts match")

    with log.open("ab") as grown:
        grown.write(b"\n")
    refused = _judge(root, store)
    assert refused.passed is False
    assert refused.detail.startswith("receipt evidence unavailable:")
