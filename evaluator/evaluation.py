"""Judge one finished agent run against the observable facts a case declares.

A case names what must be true after the run: a substring of the final
answer, exact file contents, tool results, and durable effect receipts.
``evaluate_run`` turns each declared fact into one named check, in a fixed
order, and never raises because of what the evidence contains: missing,
unreadable or untrustworthy evidence is a failed check whose detail says why.

Beyond the chapter's rules this evaluator is hardened:

* file evidence is read only from regular files, opened below the root
  without following any symlink and with a bounded read (see ``_evidence``);
* a receipt log is reloaded only when its path is itself a regular file (not
  a symlink, directory, FIFO, socket or device) of at most 64 MiB; otherwise
  every receipt check fails as unavailable evidence.  A missing log is an
  empty store, and it is never created;
* any exception from the workspace boundary, the log loader or a store's
  ``get`` becomes a failed check, as does a non-string final, a non-string
  result or an item of ``events`` that is not an event;
* result checks gather the run's results in one pass and search each tool's
  results with one substring search per expectation (see ``_result_found``).

Evaluation is read-only: it writes, creates and removes nothing, and calls no
model, tool, approval callback or subprocess.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ._evidence import EvidenceUnavailable, describe_kind, observe_text
from .loop import AgentEvent, AgentRun
from .protocol import ToolAction
from .receipts import EffectReceipt, ReceiptStore
from .workspace import Workspace

__all__ = [
    "EvaluationCase",
    "EvaluationCheck",
    "EvaluationReport",
    "FileExpectation",
    "ReceiptExpectation",
    "ResultExpectation",
    "evaluate_run",
]

#: A receipt log larger than this is not loaded (it would be read whole).
MAX_RECEIPT_LOG_BYTES = 64 * 1024 * 1024

_EXIT_STATES = ("ok", "error")

# What Path.exists() treats as "no such file": the log is then absent, as the
# course's loader sees it, rather than unreadable.
_ABSENT_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP})

# Joins one tool's results into a single string so each expected substring is
# found with one C-speed search.  See _result_found for why this is exact.
_SEPARATOR = "\x00"


# --- validating the declared facts -------------------------------------------


def _required_text(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{field} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{field} must not be blank, got {value!r}")
    return value


def _relative_path(value: object, field: str) -> str:
    """Return ``value`` as a normalised relative path, or reject it."""
    text = _required_text(value, field)
    if "\0" in text:
        raise ValueError(f"{field} must not contain NUL, got {text!r}")
    # Purely lexical: 'a//b', './a/b' and 'a/b/' all become 'a/b'.  The
    # filesystem is not consulted; the workspace boundary judges it later.
    path = PurePosixPath(text)
    if path.is_absolute():
        raise ValueError(f"{field} must be relative, got {text!r}")
    if ".." in path.parts:
        raise ValueError(f"{field} must not have a '..' component, got {text!r}")
    if not path.parts:
        raise ValueError(f"{field} must name a file, not '.', got {text!r}")
    return str(path)


def _require_group(values: object, kind: type, field: str) -> None:
    expected = f"{field} must be a tuple of {kind.__name__}"
    if not isinstance(values, tuple):
        raise ValueError(f"{expected}, got {type(values).__name__}")
    for index, value in enumerate(values):
        if not isinstance(value, kind):
            raise ValueError(f"{expected}, got {type(value).__name__} at index {index}")


def _require_unique(values: Iterable[str], rule: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"{rule}: {value!r} appears more than once")
        seen.add(value)


@dataclass(frozen=True)
class FileExpectation:
    """A file that must hold exactly ``content`` (UTF-8) after the run."""

    path: str
    content: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", _relative_path(self.path, "file path"))
        if not isinstance(self.content, str):
            raise ValueError(
                f"file content must be a string, got {type(self.content).__name__}"
            )


@dataclass(frozen=True)
class ResultExpectation:
    """Some result of ``tool`` in the run must contain ``contains``."""

    tool: str
    contains: str

    def __post_init__(self) -> None:
        _required_text(self.tool, "result tool")
        _required_text(self.contains, "result substring")


@dataclass(frozen=True)
class ReceiptExpectation:
    """The durable receipt recorded under ``tool_call_id`` and its facts."""

    tool_call_id: str
    tool: str
    exit_state: str
    result_contains: str
    changed_artifacts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _required_text(self.tool_call_id, "receipt call id")
        _required_text(self.tool, "receipt tool")
        if not isinstance(self.exit_state, str) or self.exit_state not in _EXIT_STATES:
            raise ValueError(
                f"receipt exit_state must be 'ok' or 'error', got {self.exit_state!r}"
            )
        _required_text(self.result_contains, "receipt result substring")
        artifacts = self.changed_artifacts
        if not isinstance(artifacts, tuple):
            raise ValueError(
                "receipt changed artifacts must be a tuple of paths, "
                f"got {type(artifacts).__name__}"
            )
        normalised = tuple(
            _relative_path(item, "changed artifact") for item in artifacts
        )
        object.__setattr__(self, "changed_artifacts", normalised)


@dataclass(frozen=True)
class EvaluationCase:
    """Every fact one evaluation requires; groups are checked in case order."""

    final_contains: str
    files: tuple[FileExpectation, ...] = ()
    results: tuple[ResultExpectation, ...] = ()
    receipts: tuple[ReceiptExpectation, ...] = ()

    def __post_init__(self) -> None:
        _validate_case(self)


def _validate_case(case: EvaluationCase) -> None:
    _required_text(case.final_contains, "final substring")
    _require_group(case.files, FileExpectation, "case files")
    _require_group(case.results, ResultExpectation, "case results")
    _require_group(case.receipts, ReceiptExpectation, "case receipts")
    _require_unique((item.path for item in case.files), "file paths must be unique")
    _require_unique(
        (item.tool_call_id for item in case.receipts),
        "receipt call ids must be unique",
    )


# --- the report --------------------------------------------------------------


@dataclass(frozen=True)
class EvaluationCheck:
    """One named verdict and the observed reason for it."""

    name: str
    passed: bool
    detail: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise ValueError(
                f"check name must be a string, got {type(self.name).__name__}"
            )
        if type(self.passed) is not bool:
            raise ValueError(
                f"check passed must be a bool, got {type(self.passed).__name__}"
            )
        if not isinstance(self.detail, str):
            raise ValueError(
                f"check detail must be a string, got {type(self.detail).__name__}"
            )


@dataclass(frozen=True)
class EvaluationReport:
    """The checks of one evaluation, in the case's order."""

    checks: tuple[EvaluationCheck, ...]

    def __post_init__(self) -> None:
        _require_group(self.checks, EvaluationCheck, "report checks")

    @property
    def passed(self) -> bool:
        """True only when there is at least one check and every check passed."""
        return bool(self.checks) and all(check.passed for check in self.checks)

    def render(self) -> str:
        """The summary: a verdict line, then one line per check."""
        lines = [f"evaluation: {_verdict(self.passed)}"]
        lines.extend(
            f"- {check.name}: {_verdict(check.passed)} ({check.detail})"
            for check in self.checks
        )
        return "\n".join(lines)


def _verdict(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def _explain(error: BaseException) -> str:
    """One line describing ``error``, for a check detail."""
    text = " ".join(str(error).split())
    return text or type(error).__name__


# --- one helper per kind of check --------------------------------------------


def _final_check(run: AgentRun, case: EvaluationCase) -> EvaluationCheck:
    final = run.final
    observed = (
        run.completed is True
        and isinstance(final, str)
        and case.final_contains in final
    )
    detail = "required final observed" if observed else "required final not observed"
    return EvaluationCheck("final", observed, detail)


def _file_check(workspace: Workspace, expected: FileExpectation) -> EvaluationCheck:
    name = f"file:{expected.path}"
    try:
        # The boundary decides first; whatever it raises means "unavailable".
        resolved = Path(workspace.resolve_path(expected.path))
        root = Path(workspace.policy.root)
    except Exception as error:
        return EvaluationCheck(name, False, f"evidence unavailable: {_explain(error)}")
    # 'surrogatepass' so content with a lone surrogate still has a length; no
    # strictly decoded file can equal such content anyway.
    expected_bytes = len(expected.content.encode("utf-8", "surrogatepass"))
    try:
        observed = observe_text(root, resolved, expected_bytes)
    except (EvidenceUnavailable, OSError) as error:
        return EvaluationCheck(name, False, f"evidence unavailable: {_explain(error)}")
    if observed is not None and observed == expected.content:
        return EvaluationCheck(name, True, "content matches")
    return EvaluationCheck(name, False, "content does not match")


def _gather_results(events: object, tools: set[str]) -> dict[str, list[str]]:
    """The string results of each expected tool, in one pass over ``events``."""
    gathered: dict[str, list[str]] = {tool: [] for tool in tools}
    if not isinstance(events, (tuple, list)):
        return gathered
    for event in events:
        if not isinstance(event, AgentEvent):
            continue
        action, result = event.action, event.result
        if not isinstance(action, ToolAction) or not isinstance(result, str):
            continue
        tool = action.tool
        if isinstance(tool, str) and tool in gathered:
            gathered[tool].append(result)
    return gathered


def _result_found(results: list[str], joined: str, contains: str) -> bool:
    """Whether one single result contains ``contains``.

    ``joined`` is the results joined by NUL.  When ``contains`` has no NUL,
    any occurrence of it in ``joined`` lies inside one NUL-free stretch, and
    every such stretch lies inside one result (results may hold NULs
    themselves; that only splits them further).  So one search of ``joined``
    answers exactly, without ever matching across two results.  A substring
    with a NUL falls back to searching the results one by one.
    """
    if _SEPARATOR in contains:
        return any(contains in result for result in results)
    return contains in joined


def _result_check(
    gathered: dict[str, list[str]],
    joined: dict[str, str],
    expected: ResultExpectation,
) -> EvaluationCheck:
    found = _result_found(
        gathered[expected.tool], joined[expected.tool], expected.contains
    )
    detail = "required result observed" if found else "required result not observed"
    return EvaluationCheck(f"result:{expected.tool}", found, detail)


_Lookup = Callable[[str], object]


def _absent(_call_id: str) -> None:
    return None


def _receipt_source(receipts: ReceiptStore) -> _Lookup | str:
    """How to look receipts up, or the reason every receipt is unavailable."""
    path = receipts.path
    if path is None:
        return receipts.get
    try:
        info = os.lstat(path)
    except OSError as error:
        if error.errno in _ABSENT_ERRNOS:
            # A missing log is an empty store; not calling the loader at all
            # guarantees that the log is not created.
            return _absent
        return f"receipt evidence unavailable: {_explain(error)}"
    except Exception as error:
        return f"receipt evidence unavailable: {_explain(error)}"
    if not stat.S_ISREG(info.st_mode):
        kind = describe_kind(info.st_mode)
        return f"receipt evidence unavailable: the log is {kind}, not a regular file"
    if info.st_size > MAX_RECEIPT_LOG_BYTES:
        return (
            "receipt evidence unavailable: the log exceeds "
            f"{MAX_RECEIPT_LOG_BYTES} bytes"
        )
    try:
        return ReceiptStore(path).get
    except Exception as error:
        return f"receipt evidence unavailable: {_explain(error)}"


def _receipt_matches(receipt: EffectReceipt, expected: ReceiptExpectation) -> bool:
    result, artifacts = receipt.result, receipt.changed_artifacts
    return (
        receipt.tool == expected.tool
        and receipt.exit_state == expected.exit_state
        and isinstance(result, str)
        and expected.result_contains in result
        and isinstance(artifacts, tuple)
        and artifacts == expected.changed_artifacts
    )


def _receipt_check(
    source: _Lookup | str, expected: ReceiptExpectation
) -> EvaluationCheck:
    name = f"receipt:{expected.tool_call_id}"
    if isinstance(source, str):
        return EvaluationCheck(name, False, source)
    try:
        receipt = source(expected.tool_call_id)
    except Exception as error:
        return EvaluationCheck(name, False, f"receipt lookup failed: {_explain(error)}")
    if receipt is None:
        return EvaluationCheck(name, False, "receipt is absent")
    if not isinstance(receipt, EffectReceipt):
        found = type(receipt).__name__
        return EvaluationCheck(
            name, False, f"receipt lookup failed: got {found}, not an EffectReceipt"
        )
    if _receipt_matches(receipt, expected):
        return EvaluationCheck(name, True, "receipt facts match")
    return EvaluationCheck(name, False, "receipt facts do not match")


# --- the public function -----------------------------------------------------


def _require_argument(value: object, kind: type, name: str) -> None:
    if not isinstance(value, kind):
        raise ValueError(
            f"{name} must be an instance of {kind.__name__}, got {type(value).__name__}"
        )


def evaluate_run(
    run: AgentRun,
    workspace: Workspace,
    receipts: ReceiptStore,
    case: EvaluationCase,
) -> EvaluationReport:
    """Check ``run`` against ``case``: final, files, results, receipts, in order."""
    _require_argument(run, AgentRun, "run")
    _require_argument(workspace, Workspace, "workspace")
    _require_argument(receipts, ReceiptStore, "receipts")
    _require_argument(case, EvaluationCase, "case")
    _validate_case(case)  # again: a frozen case can still be altered by force

    checks = [_final_check(run, case)]
    checks.extend(_file_check(workspace, expected) for expected in case.files)
    gathered = _gather_results(run.events, {expected.tool for expected in case.results})
    joined = {tool: _SEPARATOR.join(results) for tool, results in gathered.items()}
    checks.extend(
        _result_check(gathered, joined, expected) for expected in case.results
    )
    if case.receipts:  # the log is read only when some receipt is declared
        source = _receipt_source(receipts)
        checks.extend(_receipt_check(source, expected) for expected in case.receipts)
    return EvaluationReport(tuple(checks))
