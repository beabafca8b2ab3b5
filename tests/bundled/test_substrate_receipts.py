"""The bundled receipts: their digest, their JSON form, and the JSON Lines log.

The expected bytes and digests below were computed once and checked against
the course's own receipt log implementation, so a log written by either loads
in the other; here they are fixed facts.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from evaluator import AgentError, EffectReceipt, ReceiptStore
from evaluator import receipts as receipts_module

EDIT = EffectReceipt(
    "call-1",
    "edit_file",
    {"path": "app.py", "old": "1", "new": "2"},
    "ok",
    "edited app.py",
    ("app.py",),
)
COMMAND = EffectReceipt(
    "call-2",
    "run_command",
    {"argv": ["python3", "-c", "print('é')"]},
    "error",
    "status: 1\noutput:\né\n",
)
EDIT_CANONICAL = (
    b'{"arguments":{"new":"2","old":"1","path":"app.py"},'
    b'"changed_artifacts":["app.py"],"exit_state":"ok","result":"edited app.py",'
    b'"tool":"edit_file","tool_call_id":"call-1"}'
)
EDIT_ID = "2193b010609484db44b95222229fead9cfca83b34e791b6fe51f27c4bb82bf7e"
COMMAND_ID = "ca9ff2f51811d660d41073350357269a04fca50c8754abdb4aba9a52981c3579"
EDIT_LINE = (
    b'{"arguments": {"new": "2", "old": "1", "path": "app.py"}, '
    b'"changed_artifacts": ["app.py"], "exit_state": "ok", '
    b'"receipt_id": "' + EDIT_ID.encode() + b'", "result": "edited app.py", '
    b'"tool": "edit_file", "tool_call_id": "call-1"}\n'
)
COMMAND_LINE = (
    b'{"arguments": {"argv": ["python3", "-c", "print(\'\\u00e9\')"]}, '
    b'"changed_artifacts": [], "exit_state": "error", '
    b'"receipt_id": "' + COMMAND_ID.encode() + b'", '
    b'"result": "status: 1\\noutput:\\n\\u00e9\\n", '
    b'"tool": "run_command", "tool_call_id": "call-2"}\n'
)


# --- the receipt ---------------------------------------------------------------


def test_the_receipt_id_is_the_sha256_of_the_canonical_payload() -> None:
    assert hashlib.sha256(EDIT_CANONICAL).hexdigest() == EDIT_ID
    assert EDIT.receipt_id == EDIT_ID
    assert COMMAND.receipt_id == COMMAND_ID  # non-ASCII is escaped, as json does


def test_to_dict_is_the_payload_plus_its_id() -> None:
    assert EDIT.to_dict() == {
        "receipt_id": EDIT_ID,
        "tool_call_id": "call-1",
        "tool": "edit_file",
        "arguments": {"path": "app.py", "old": "1", "new": "2"},
        "exit_state": "ok",
        "result": "edited app.py",
        "changed_artifacts": ["app.py"],
    }


def test_from_dict_gives_back_the_same_receipt() -> None:
    assert EffectReceipt.from_dict(EDIT.to_dict()) == EDIT
    assert EffectReceipt.from_dict(json.loads(json.dumps(COMMAND.to_dict()))) == COMMAND


def _edited(**changes: Any) -> dict[str, Any]:
    payload = EDIT.to_dict()
    payload.update(changes)
    return payload


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ([], "must be a JSON object"),
        ({k: v for k, v in EDIT.to_dict().items() if k != "tool"}, "missing tool"),
        (_edited(extra=1), "unexpected extra"),
        (_edited(exit_state="maybe"), "exit_state"),
        (_edited(result=None), "result must be a string"),
        (_edited(changed_artifacts="app.py"), "changed_artifacts"),
        (_edited(result="edited other.py"), "digest does not match"),
        (_edited(receipt_id=None), "digest does not match"),
    ],
)
def test_from_dict_refuses_anything_but_an_exact_receipt(
    payload: Any, message: str
) -> None:
    with pytest.raises(AgentError, match=message):
        EffectReceipt.from_dict(payload)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"tool_call_id": ""}, "tool_call_id must be a non-empty string"),
        ({"tool": None}, "tool must be a non-empty string"),
        ({"exit_state": "OK"}, "exit_state"),
        ({"result": b"bytes"}, "result must be a string"),
        ({"arguments": [("path", "a")]}, "dict with string keys"),
        ({"arguments": {1: "a"}}, "dict with string keys"),
        ({"arguments": {"argv": ("a",)}}, "JSON data"),  # would reload as a list
        ({"arguments": {"x": float("nan")}}, "JSON data"),  # never equal to itself
        ({"arguments": {"x": object()}}, "JSON data"),
        ({"changed_artifacts": "app.py"}, "tuple of strings"),
        ({"changed_artifacts": (1,)}, "tuple of strings"),
    ],
)
def test_a_receipt_checks_its_fields(changes: dict[str, Any], message: str) -> None:
    fields = {
        "tool_call_id": "c",
        "tool": "write_file",
        "arguments": {},
        "exit_state": "ok",
        "result": "wrote a",
    }
    fields.update(changes)
    with pytest.raises(ValueError, match=message):
        EffectReceipt(**fields)


def test_a_receipt_keeps_its_own_copy_of_its_data() -> None:
    arguments = {"argv": ["make"]}
    receipt = EffectReceipt("c", "run_command", arguments, "ok", "status: 0\n", ["x"])
    arguments["argv"].append("clean")
    assert receipt.arguments == {"argv": ["make"]}
    assert receipt.changed_artifacts == ("x",)


# --- the store in memory -------------------------------------------------------


def test_an_in_memory_store_puts_and_gets_by_call_id() -> None:
    store = ReceiptStore()
    assert store.path is None
    assert store.get("call-1") is None
    assert store.put(EDIT) is EDIT
    assert store.get("call-1") is EDIT


def test_put_is_idempotent_for_the_same_receipt_only() -> None:
    store = ReceiptStore()
    store.put(EDIT)
    twin = EffectReceipt.from_dict(EDIT.to_dict())
    assert store.put(twin) is EDIT
    other = EffectReceipt("call-1", "edit_file", {}, "ok", "edited other.py")
    with pytest.raises(AgentError, match="call-1 already has a different receipt"):
        store.put(other)
    assert store.get("call-1") is EDIT


def test_put_refuses_something_that_is_not_a_receipt() -> None:
    with pytest.raises(ValueError, match="put needs an EffectReceipt, not dict"):
        ReceiptStore().put(EDIT.to_dict())  # type: ignore[arg-type]


@pytest.mark.parametrize(("raw", "message"), [(3, "must be a path"), ("a\0b", "NUL")])
def test_a_store_refuses_a_path_that_is_not_one(raw: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ReceiptStore(raw)


# --- the log -------------------------------------------------------------------


def test_each_put_appends_one_line_in_the_shared_format(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    store = ReceiptStore(str(log))
    assert store.path == log
    store.put(EDIT)
    store.put(COMMAND)
    store.put(EDIT)  # identical repeat: nothing appended
    assert log.read_bytes() == EDIT_LINE + COMMAND_LINE


def test_a_log_in_the_shared_format_loads(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    log.write_bytes(EDIT_LINE + COMMAND_LINE + EDIT_LINE)  # identical repeats are fine
    store = ReceiptStore(log)
    assert store.get("call-1") == EDIT
    assert store.get("call-2") == COMMAND


def test_a_log_with_crlf_line_ends_loads(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    log.write_bytes(EDIT_LINE.replace(b"\n", b"\r\n") + COMMAND_LINE)
    assert ReceiptStore(log).get("call-2") == COMMAND


def test_a_missing_log_is_an_empty_store_and_is_not_created(tmp_path: Path) -> None:
    for log in (tmp_path / "receipts.jsonl", tmp_path / "no" / "dir" / "r.jsonl"):
        assert ReceiptStore(log).get("call-1") is None
        assert not log.exists()
    assert list(tmp_path.iterdir()) == []


def test_a_log_below_a_file_or_behind_a_symlink_loop_is_absent(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    assert ReceiptStore(tmp_path / "file" / "r.jsonl").get("call-1") is None
    assert ReceiptStore(tmp_path / "loop").get("call-1") is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json\n", "line 1 is not valid JSON"),
        (EDIT_LINE + b"\n" + COMMAND_LINE, "line 2 is not valid JSON"),
        (b"[" * 100_000 + b"\n", "line 1 is not valid JSON"),
        (
            EDIT_LINE.replace(b"edited app.py", b"edited any.py"),
            "line 1: receipt digest",
        ),
        (b'{"tool_call_id": "call-1"}\n', "line 1: receipt is malformed: missing"),
        (b"\xef\xbb\xbf" + EDIT_LINE, "line 1 is not valid JSON"),  # BOM kept
    ],
)
def test_a_bad_line_makes_the_whole_log_unloadable(
    tmp_path: Path, content: bytes, message: str
) -> None:
    log = tmp_path / "receipts.jsonl"
    log.write_bytes(content)
    with pytest.raises(AgentError, match=f"could not load receipt log: {message}"):
        ReceiptStore(log)


def test_two_different_receipts_under_one_call_id_conflict(tmp_path: Path) -> None:
    other = EffectReceipt("call-1", "write_file", {}, "ok", "wrote app.py")
    log = tmp_path / "receipts.jsonl"
    ReceiptStore(log).put(EDIT)
    log.write_text(log.read_text() + json.dumps(other.to_dict(), sort_keys=True) + "\n")
    with pytest.raises(AgentError, match="line 2: conflicting receipts for tool call"):
        ReceiptStore(log)


def test_invalid_utf8_in_the_log_surfaces_as_a_decode_error(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    log.write_bytes(b"not json\n\xff\n")  # the bad byte wins over the bad line
    with pytest.raises(UnicodeDecodeError):
        ReceiptStore(log)


def test_a_log_that_is_not_a_regular_file_is_refused_without_blocking(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "link").symlink_to(fifo)
    for log in (tmp_path, fifo, tmp_path / "link"):
        with pytest.raises(AgentError, match="not a regular file"):
            ReceiptStore(log)


def test_a_log_over_the_bound_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(receipts_module, "_MAX_LOG_BYTES", len(EDIT_LINE) - 1)
    log = tmp_path / "receipts.jsonl"
    log.write_bytes(EDIT_LINE)
    with pytest.raises(AgentError, match=f"exceeds {len(EDIT_LINE) - 1} bytes"):
        ReceiptStore(log)


def test_a_log_that_cannot_be_opened_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match="could not load receipt log: File name"):
        ReceiptStore(tmp_path / ("x" * 300))  # ENAMETOOLONG


def test_a_log_that_cannot_be_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "receipts.jsonl"
    log.write_bytes(EDIT_LINE)

    def failing_read(descriptor: int, size: int) -> bytes:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(receipts_module.os, "read", failing_read)
    with pytest.raises(AgentError, match="could not load receipt log: Input/output"):
        ReceiptStore(log)


def test_appending_to_something_that_is_not_a_regular_file_fails(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for log in (tmp_path / "dir", fifo):  # a directory; a FIFO with no reader
        store = ReceiptStore()
        store.path = log
        (tmp_path / "dir").mkdir(exist_ok=True)
        with pytest.raises(AgentError, match="could not append receipt log"):
            store.put(EDIT)
        assert store.get("call-1") is None
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # now the open succeeds
    try:
        store = ReceiptStore()
        store.path = fifo
        with pytest.raises(AgentError, match="it is not a regular file"):
            store.put(EDIT)
    finally:
        os.close(reader)


def test_short_writes_are_completed_and_failed_writes_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = os.write

    def one_byte_at_a_time(descriptor: int, data: bytes) -> int:
        return real_write(descriptor, data[:1])

    log = tmp_path / "receipts.jsonl"
    monkeypatch.setattr(receipts_module.os, "write", one_byte_at_a_time)
    ReceiptStore(log).put(EDIT)
    assert log.read_bytes() == EDIT_LINE

    def failing_write(descriptor: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(receipts_module.os, "write", failing_write)
    store = ReceiptStore(tmp_path / "other.jsonl")
    with pytest.raises(AgentError, match="could not append receipt log: No space"):
        store.put(EDIT)
    assert store.get("call-1") is None


# --- loading judges every line exactly as from_dict does -----------------------
#
# Loading a log takes a quicker path than from_dict for lines that are plainly
# good; these pin that both give the same receipt, or the same refusal.


def _line_for(payload: dict[str, Any], *, digest: str | None = None) -> bytes:
    """A log line for ``payload``, signed with its digest unless one is given."""
    if digest is None:
        canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(canonical.encode()).hexdigest()
    return (json.dumps({"receipt_id": digest, **payload}) + "\n").encode()


def _payload(**changes: Any) -> dict[str, Any]:
    payload = {k: v for k, v in EDIT.to_dict().items() if k != "receipt_id"}
    payload.update(changes)
    return payload


def _loaded(tmp_path: Path, line: bytes) -> EffectReceipt | None:
    log = tmp_path / "receipts.jsonl"
    log.write_bytes(line)
    receipts = list(ReceiptStore(log)._receipts.values())
    assert len(receipts) == 1
    return receipts[0]


@pytest.mark.parametrize(
    "payload",
    [
        _payload(tool_call_id=""),
        _payload(tool=7),
        _payload(exit_state="maybe"),
        _payload(exit_state=["ok"]),  # unhashable: once a TypeError escaped here
        _payload(result=None),
        _payload(arguments=[["path", "a"]]),
        _payload(changed_artifacts="app.py"),
        _payload(changed_artifacts=["app.py", 1]),
    ],
    ids=[
        "empty-call-id",
        "tool-not-string",
        "exit-state-unknown",
        "exit-state-list",
        "result-none",
        "arguments-list",
        "artifacts-string",
        "artifacts-not-strings",
    ],
)
def test_a_signed_but_malformed_line_is_refused_as_from_dict_refuses_it(
    tmp_path: Path, payload: dict[str, Any]
) -> None:
    line = _line_for(payload)
    with pytest.raises(AgentError) as expected:
        EffectReceipt.from_dict(json.loads(line))
    log = tmp_path / "receipts.jsonl"
    log.write_bytes(line)
    with pytest.raises(AgentError) as observed:
        ReceiptStore(log)
    assert (
        str(observed.value) == f"could not load receipt log: line 1: {expected.value}"
    )


def test_a_line_with_a_wrong_digest_is_refused_as_from_dict_refuses_it(
    tmp_path: Path,
) -> None:
    log = tmp_path / "receipts.jsonl"
    log.write_bytes(_line_for(_payload(), digest="0" * 64))
    with pytest.raises(AgentError, match="^could not load receipt log: line 1: "):
        ReceiptStore(log)


@pytest.mark.parametrize(
    "arguments",
    [
        {"path": "app.py", "content": "x"},  # top-level keys out of order
        {"a": {"z": 1, "b": 2}},  # a nested object out of order
        {"a": [{"y": 1, "x": 2}]},  # an object in a list out of order
        {"a": [{"x": [1, {"p": None, "q": True}]}], "b": {"c": "{"}},  # all sorted
        {"content": "{ not an object }", "path": "app.py"},  # "{" in a string
        {"n": [1.5, -0.0, 10**30, float("inf"), "NaN-free"]},
        {"text": "é \ud800 \u2028", "argv": ["python3", "-c", "print(1)"]},
        # json.loads gives one shared NaN object, so from_dict's copy equals it.
        {"x": float("nan")},
    ],
    ids=[
        "top-unsorted",
        "nested-unsorted",
        "in-list-unsorted",
        "nested-sorted",
        "brace-in-string",
        "numbers",
        "escapes",
        "nan",
    ],
)
def test_a_good_line_loads_as_the_same_receipt_from_dict_gives(
    tmp_path: Path, arguments: dict[str, Any]
) -> None:
    """Same fields, same types, same key order (from_dict's copy sorts keys)."""
    payload = _payload(arguments=arguments)
    line = _line_for(payload)
    expected = EffectReceipt.from_dict(json.loads(line))
    loaded = _loaded(tmp_path, line)
    assert loaded == expected
    assert repr(loaded) == repr(expected)
    assert json.dumps(loaded.to_dict()) == json.dumps(expected.to_dict())
    assert loaded.receipt_id == expected.receipt_id


def test_a_line_the_quick_path_cannot_encode_still_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nesting near the recursion limit can stop an encoder; from_dict decides."""

    def too_deep(value: object) -> str:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(receipts_module, "_canonical_parsed", too_deep)
    assert _loaded(tmp_path, EDIT_LINE) == EDIT


@pytest.mark.parametrize(
    "line",
    [b"  " + EDIT_LINE, EDIT_LINE.replace(b"\n", b" \t\n")],
    ids=["leading-space", "trailing-space"],
)
def test_whitespace_around_a_line_is_json_whitespace(
    tmp_path: Path, line: bytes
) -> None:
    assert _loaded(tmp_path, line) == EDIT


def test_loaded_arguments_belong_to_the_receipt_alone(tmp_path: Path) -> None:
    log = tmp_path / "receipts.jsonl"
    log.write_bytes(COMMAND_LINE)
    first, second = ReceiptStore(log).get("call-2"), ReceiptStore(log).get("call-2")
    assert first is not None and second is not None
    first.arguments["argv"].append("--changed")
    assert second.arguments == COMMAND.arguments


@pytest.mark.parametrize(
    "line",
    [EDIT_LINE.rstrip() + b" x\n", EDIT_LINE.rstrip() + EDIT_LINE],
    ids=["trailing-text", "two-objects"],
)
def test_text_after_a_line_s_object_is_not_json(tmp_path: Path, line: bytes) -> None:
    log = tmp_path / "receipts.jsonl"
    log.write_bytes(line)
    with pytest.raises(AgentError, match="line 1 is not valid JSON"):
        ReceiptStore(log)
