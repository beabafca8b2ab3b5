"""The bundled reply protocol: which model replies become actions, which are refused."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from evaluator import AgentError, FinalAction, ToolAction, parse_action
from evaluator.protocol import _system_prompt, check_arguments

ALL_TOOLS = frozenset(
    {"list_files", "read_file", "write_file", "edit_file", "run_command"}
)


def test_agent_error_is_a_value_error() -> None:
    assert issubclass(AgentError, ValueError)


def test_a_final_reply_becomes_a_final_action() -> None:
    assert parse_action('{"final": "done"}') == FinalAction("done")


@pytest.mark.parametrize(
    ("reply", "arguments"),
    [
        ('{"tool": "list_files"}', {}),
        ('{"tool": "list_files", "path": "src"}', {"path": "src"}),
        ('{"tool": "read_file", "path": "a.txt"}', {"path": "a.txt"}),
        (
            '{"tool": "write_file", "path": "a.txt", "content": ""}',
            {"path": "a.txt", "content": ""},
        ),
        (
            '{"tool": "edit_file", "path": "a.txt", "old": "1", "new": ""}',
            {"path": "a.txt", "old": "1", "new": ""},
        ),
        (
            '{"tool": "run_command", "argv": ["make", "test"]}',
            {"argv": ["make", "test"]},
        ),
    ],
)
def test_each_tool_reply_with_its_fields_becomes_a_tool_action(
    reply: str, arguments: dict[str, object]
) -> None:
    tool = json.loads(reply)["tool"]
    assert parse_action(reply, ALL_TOOLS) == ToolAction(tool, arguments)


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("not json", "not valid JSON"),
        ("1" * 5000, "not valid JSON"),  # longer than int() converts
        ("[" * 100_000, "not valid JSON"),  # deeper than the parser recurses
        ("[]", "JSON object"),
        ('"final"', "JSON object"),
        ("null", "JSON object"),
        ('{"final": "  "}', "must not be empty"),
        ('{"final": 3}', "string"),
        ('{"final": "done", "tool": "read_file"}', "only"),
        ('{"path": "a.txt"}', '"tool" field'),
        ('{"tool": 1}', '"tool" field'),
        ('{"tool": "shell", "argv": ["rm"]}', "unknown tool: shell"),
        ('{"tool": "read_file"}', "missing fields for read_file: path"),
        (
            '{"tool": "edit_file", "path": "a"}',
            "missing fields for edit_file: new, old",
        ),
        ('{"tool": "read_file", "path": "a", "x": 1}', "unexpected fields"),
        ('{"tool": "list_files", "path": 1}', "path must be a string"),
        ('{"tool": "write_file", "path": "a", "content": null}', "content must"),
        ('{"tool": "edit_file", "path": "a", "old": 1, "new": ""}', "old must"),
        ('{"tool": "edit_file", "path": "a", "old": "", "new": []}', "new must"),
        ('{"tool": "run_command", "argv": "make"}', "argv must"),
        ('{"tool": "run_command", "argv": []}', "argv must"),
        ('{"tool": "run_command", "argv": ["make", ""]}', "argv must"),
        ('{"tool": "run_command", "argv": ["make", 1]}', "argv must"),
    ],
)
def test_a_malformed_reply_is_refused_with_a_reason(reply: str, message: str) -> None:
    with pytest.raises(AgentError, match=message):
        parse_action(reply)


def test_a_reply_that_is_not_text_is_refused() -> None:
    with pytest.raises(AgentError, match="response must be a string, not bytes"):
        parse_action(b'{"final": "done"}')  # type: ignore[arg-type]


def test_a_known_tool_outside_the_available_ones_is_not_enabled() -> None:
    reply = '{"tool": "write_file", "path": "a", "content": "b"}'
    with pytest.raises(AgentError, match="tool is not enabled: write_file"):
        parse_action(reply, frozenset({"list_files", "read_file"}))
    assert parse_action(reply).tool == "write_file"  # None: every known tool


def test_checking_arguments_of_an_unknown_tool_names_it() -> None:
    with pytest.raises(AgentError, match="unknown tool: deploy"):
        check_arguments("deploy", {})


def test_non_string_argument_names_are_reported_not_crashed_on() -> None:
    with pytest.raises(AgentError, match="unexpected fields for read_file: 1"):
        check_arguments("read_file", {"path": "a", 1: "b"})  # type: ignore[dict-item]


def test_actions_check_their_field_types() -> None:
    with pytest.raises(ValueError, match="final must be a string"):
        FinalAction(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tool must be a string"):
        ToolAction(1, {})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="arguments must be a dict"):
        ToolAction("read_file", [("path", "a")])  # type: ignore[arg-type]


def _workspace(tools: set[str], commands: tuple[tuple[str, ...], ...] = ()) -> object:
    return SimpleNamespace(
        available_tools=frozenset(tools),
        policy=SimpleNamespace(allowed_commands=commands),
    )


def test_the_prompt_shows_only_the_enabled_tools() -> None:
    prompt = _system_prompt(_workspace({"list_files", "read_file"}))  # type: ignore[arg-type]
    assert '"tool":"list_files"' in prompt
    assert '"tool":"read_file"' in prompt
    for absent in ("write_file", "edit_file", "run_command", "Read a file before"):
        assert absent not in prompt
    assert '{"final":' in prompt


def test_the_prompt_shows_writes_and_the_exact_allowed_commands() -> None:
    workspace = _workspace(
        {"list_files", "read_file", "write_file", "edit_file", "run_command"},
        (("python3", "-m", "pytest"),),
    )
    prompt = _system_prompt(workspace)  # type: ignore[arg-type]
    assert '"tool":"write_file"' in prompt
    assert '"tool":"edit_file"' in prompt
    assert "Read a file before" in prompt
    assert '["python3", "-m", "pytest"]' in prompt.splitlines()


def test_the_prompt_copes_with_a_workspace_without_a_policy() -> None:
    workspace = SimpleNamespace(available_tools=frozenset({"run_command"}))
    prompt = _system_prompt(workspace)
    assert '"tool":"run_command"' in prompt
    assert "exact argv" not in prompt


def test_the_prompt_lists_no_commands_when_none_are_allowed() -> None:
    prompt = _system_prompt(_workspace({"run_command"}))  # type: ignore[arg-type]
    assert "exact argv" not in prompt
