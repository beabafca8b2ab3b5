"""The words every part of the suite shares, written once.

Tool names, stop reasons, protected names, the label of the one call every
property makes, the log's file name and the limits of the file system: each
was once written in two to four modules; now they live here and nowhere else.
"""

from __future__ import annotations

__all__ = [
    "BOM",
    "EFFECT_TOOLS",
    "EVALUATE",
    "INCOMPLETE_REASONS",
    "LOG_NAME",
    "NAME_MAX",
    "PATH_MAX",
    "PROTECTED_NAMES",
    "TOOLS",
    "marker",
    "other",
]

#: The five tools of the Week 4 workspace, simplest first.
TOOLS = ("read_file", "run_command", "edit_file", "write_file", "list_files")
#: The tools whose calls leave an effect receipt.
EFFECT_TOOLS = ("edit_file", "write_file", "run_command")

#: Every reason a run stops without completing.
INCOMPLETE_REASONS = (
    "step_limit",
    "context_limit",
    "invalid_action_limit",
    "repeated_action_limit",
)

#: Names the workspace boundary refuses, in several spellings (it compares
#: case-insensitively, and refuses `.env.*`, `*.key` and `*.pem` too).
PROTECTED_NAMES = (
    ".env",
    ".git",
    ".ssh",
    ".aws",
    "credentials",
    "id_rsa",
    "id_ed25519",
    ".env.local",
    "server.key",
    "cert.pem",
    ".ENV",
    "Id_Rsa",
    "CREDENTIALS",
    ".Env.Prod",
    "deploy.KEY",
    "chain.Pem",
)

#: How a lesson names the call every property makes.
EVALUATE = "evaluate_run(run, workspace, receipts, case)"

#: The receipt log's file name, wherever a world puts it.
LOG_NAME = "receipts.jsonl"

BOM = "\ufeff"

PATH_MAX = 4096  # bytes, with the terminating NUL (Linux)
NAME_MAX = 255  # bytes per component


def marker(number: int) -> str:
    """The number-th marker: [A], [B], ..., [Z], [AA], ...; unique per number.

    Filler text never holds "[" or "]", so a marker occurs exactly where its
    fact put it: no substring search can match by accident.
    """
    letters = ""
    number += 1
    while number:
        number, rest = divmod(number - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return f"[{letters}]"


def other(values: tuple[str, ...], value: str) -> str:
    """The first of `values` that is not `value`."""
    return next(v for v in values if v != value)
