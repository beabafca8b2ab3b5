"""The reply protocol: one JSON object per model reply, checked before anything runs.

A reply either finishes the task (``{"final": "..."}``) or asks for exactly one
tool call.  Everything the model gets wrong here is an ``AgentError``: the loop
shows the message to the model and lets it try again, so every message is one
plain sentence about the reply, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Protocol


class AgentError(ValueError):
    """A recoverable mistake the model (or the operator's data) can be told about."""


@dataclass(frozen=True)
class FinalAction:
    """A reply that ends the run with a summary for the operator."""

    final: str

    def __post_init__(self) -> None:
        if not isinstance(self.final, str):
            raise ValueError(f"final must be a string, not {type(self.final).__name__}")


@dataclass(frozen=True)
class ToolAction:
    """A reply that asks for one tool call with its named arguments."""

    tool: str
    arguments: dict[str, Any]

    def __post_init__(self) -> None:
        if not isinstance(self.tool, str):
            raise ValueError(f"tool must be a string, not {type(self.tool).__name__}")
        if not isinstance(self.arguments, dict):
            raise ValueError(
                f"arguments must be a dict, not {type(self.arguments).__name__}"
            )


# For each tool: the fields a reply must carry, and the ones it may carry.
_TOOL_FIELDS: Mapping[str, tuple[frozenset[str], frozenset[str]]] = {
    "list_files": (frozenset(), frozenset({"path"})),
    "read_file": (frozenset({"path"}), frozenset()),
    "write_file": (frozenset({"path", "content"}), frozenset()),
    "edit_file": (frozenset({"path", "old", "new"}), frozenset()),
    "run_command": (frozenset({"argv"}), frozenset()),
}

_TEXT_FIELDS = ("path", "content", "old", "new")


def parse_action(
    response: str, available_tools: Collection[str] | None = None
) -> FinalAction | ToolAction:
    """Turn one model reply into an action, or raise ``AgentError`` saying why not.

    ``available_tools`` limits the tools a reply may name (``None``: every known
    tool); a known tool outside it is refused as "not enabled".
    """
    if not isinstance(response, str):
        raise AgentError(f"response must be a string, not {type(response).__name__}")
    try:
        raw = json.loads(response)
    except json.JSONDecodeError as error:
        raise AgentError(f"response is not valid JSON: {error.msg}") from error
    except (ValueError, RecursionError) as error:
        # Integers too long to convert, or nesting deeper than the parser's
        # stack: still just a reply the model must fix.
        raise AgentError("response is not valid JSON: it cannot be decoded") from error
    if not isinstance(raw, dict):
        raise AgentError("response must be a JSON object")

    if "final" in raw:
        if set(raw) != {"final"} or not isinstance(raw["final"], str):
            raise AgentError('a final reply must hold only a string "final" field')
        if not raw["final"].strip():
            raise AgentError("final response must not be empty")
        return FinalAction(raw["final"])

    tool = raw.get("tool")
    if not isinstance(tool, str):
        raise AgentError('a tool reply needs a string "tool" field')
    if tool not in _TOOL_FIELDS:
        raise AgentError(f"unknown tool: {tool}")
    if available_tools is not None and tool not in available_tools:
        raise AgentError(f"tool is not enabled: {tool}")
    arguments = {name: value for name, value in raw.items() if name != "tool"}
    check_arguments(tool, arguments)
    return ToolAction(tool, arguments)


def check_arguments(tool: str, arguments: Mapping[str, object]) -> None:
    """Raise ``AgentError`` unless ``arguments`` are exactly right for ``tool``."""
    if tool not in _TOOL_FIELDS:
        raise AgentError(f"unknown tool: {tool}")
    required, optional = _TOOL_FIELDS[tool]
    supplied = set(arguments)
    missing = required - supplied
    if missing:
        raise AgentError(f"missing fields for {tool}: {', '.join(sorted(missing))}")
    extra = supplied - required - optional
    if extra:
        # A hand-built action can have non-string names; show them, do not crash.
        names = ", ".join(sorted(map(str, extra)))
        raise AgentError(f"unexpected fields for {tool}: {names}")
    for name in _TEXT_FIELDS:
        if name in arguments and not isinstance(arguments[name], str):
            raise AgentError(f"{name} must be a string")
    if "argv" in arguments and not _is_argv(arguments["argv"]):
        raise AgentError("argv must be a non-empty list of non-empty strings")


def _is_argv(value: object) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(part, str) and part for part in value)
    )


class _Tools(Protocol):
    """What the prompt needs to know about a workspace."""

    @property
    def available_tools(self) -> Collection[str]: ...


# One example reply per tool, in the order the prompt lists them.
_EXAMPLES = (
    ("list_files", '{"tool":"list_files","path":"."}'),
    ("read_file", '{"tool":"read_file","path":"README.md"}'),
    ("write_file", '{"tool":"write_file","path":"notes.txt","content":"text"}'),
    ("edit_file", '{"tool":"edit_file","path":"app.py","old":"text","new":"text"}'),
    ("run_command", '{"tool":"run_command","argv":["program","argument"]}'),
)


def _system_prompt(workspace: _Tools) -> str:
    """Describe the protocol and only the tools this workspace enables."""
    tools = workspace.available_tools
    lines = [
        "You work on the files of one workspace through tools.",
        "Answer every message with a single JSON object, nothing else.",
        "To call a tool, reply with one of:",
    ]
    lines += [example for name, example in _EXAMPLES if name in tools]
    if "write_file" in tools or "edit_file" in tools:
        lines.append("Read a file before you replace or edit it.")
    if "run_command" in tools:
        # A duck-typed workspace may carry no policy; then no list is shown.
        policy = getattr(workspace, "policy", None)
        commands = getattr(policy, "allowed_commands", ())
        if commands:
            lines.append("run_command accepts only these exact argv lists:")
            lines += [json.dumps(list(command)) for command in commands]
    lines += [
        "Paths are relative to the workspace root.",
        'When the task is done, reply {"final":"what you did"}.',
    ]
    return "\n".join(lines)
