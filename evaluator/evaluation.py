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
from operator import attrgetter
from pathlib import Path, PurePosixPath
from typing import Any, NoReturn

from ._collector import collector_paused
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

# Each expected tool's string results, as the result checks gather them.
_Found = dict[str, list[str]]

# The one field each of these reads from an expectation, read at C speed.
_tool_of = attrgetter("tool")
_path_of = attrgetter("path")
_call_id_of = attrgetter("tool_call_id")


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


def _require_group(values: object, kind: type, expected: str) -> None:
    """Reject ``values`` unless it is a tuple of ``kind``; ``expected`` says so."""
    if not isinstance(values, tuple):
        raise ValueError(f"{expected}, got {type(values).__name__}")
    for index, value in enumerate(values):
        if not isinstance(value, kind):
            raise ValueError(f"{expected}, got {type(value).__name__} at index {index}")


def _require_unique(
    group: tuple[Any, ...], key: Callable[[Any], str], rule: str
) -> None:
    """Reject ``group`` when two of its items have the same ``key``."""
    if len(group) < 2:
        return
    values = list(map(key, group))
    if len(set(values)) == len(values):
        return
    # The first value met a second time (there is one, so next() finds it):
    # setdefault answers an earlier index for a value already met.
    first: dict[str, int] = {}
    repeated = next(
        value
        for index, value in enumerate(values)
        if first.setdefault(value, index) != index
    )
    raise ValueError(f"{rule}: {repeated!r} appears more than once")


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


def _group_rule(field: str, kind: type) -> str:
    return f"{field} must be a tuple of {kind.__name__}"


# Built once: evaluate_run validates the case again on every call.
_FILES_RULE = _group_rule("case files", FileExpectation)
_RESULTS_RULE = _group_rule("case results", ResultExpectation)
_RECEIPTS_RULE = _group_rule("case receipts", ReceiptExpectation)


def _validate_case(case: EvaluationCase) -> None:
    _required_text(case.final_contains, "final substring")
    _require_group(case.files, FileExpectation, _FILES_RULE)
    _require_group(case.results, ResultExpectation, _RESULTS_RULE)
    _require_group(case.receipts, ReceiptExpectation, _RECEIPTS_RULE)
    _require_unique(case.files, _path_of, "file paths must be unique")
    _require_unique(case.receipts, _call_id_of, "receipt call ids must be unique")


# --- the report --------------------------------------------------------------


@dataclass(frozen=True, init=False)
class EvaluationCheck:
    """One named verdict and the observed reason for it."""

    name: str
    passed: bool
    detail: str

    # Written out rather than generated: one call instead of __init__ plus
    # __post_init__ and three object.__setattr__ calls, for the object a report
    # of 100,000 receipts builds 100,000 times.  The same checks, in order.
    def __init__(self, name: str, passed: bool, detail: str) -> None:
        if not isinstance(name, str):
            raise ValueError(f"check name must be a string, got {type(name).__name__}")
        if type(passed) is not bool:
            raise ValueError(
                f"check passed must be a bool, got {type(passed).__name__}"
            )
        if not isinstance(detail, str):
            raise ValueError(
                f"check detail must be a string, got {type(detail).__name__}"
            )
        self.__dict__.update(name=name, passed=passed, detail=detail)


@dataclass(frozen=True, init=False)
class EvaluationReport:
    """The checks of one evaluation, in the case's order."""

    checks: tuple[EvaluationCheck, ...]

    def __init__(self, checks: tuple[EvaluationCheck, ...]) -> None:
        _require_group(checks, EvaluationCheck, _CHECKS_RULE)
        self.__dict__["checks"] = checks  # as EvaluationCheck does, in one step

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


_CHECKS_RULE = _group_rule("report checks", EvaluationCheck)


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


def _gather_results(
    events: object, expectations: tuple[ResultExpectation, ...]
) -> _Found:
    """The string results of each expected tool, in one pass over ``events``.

    The pass is a quick one unless something in ``events`` is not what a run
    holds; then ``_careful_results`` judges item by item.  Both give the same
    lists: only an event with a ``ToolAction`` whose tool is an expected name,
    and a string result, counts.

    The quick pass costs per item what one expectation's scan costs: read the
    action, test its type, compare its tool.  The rest (is the item an event,
    is the tool a real string, is the result a string) is checked only for
    items whose tool is expected.  An item that is not an event may raise at
    the first read, and a tool name forced to an odd object may raise when it
    is compared or hashed: the careful pass then starts again.
    """
    if not expectations:
        return {}
    tools = set(map(_tool_of, expectations))
    if not isinstance(events, (tuple, list)):
        return {tool: [] for tool in tools}
    try:
        if len(tools) > 1:
            return _grouped_results(events, tools)
        # One expected tool, the usual case: a comprehension, no lookups.
        (tool,) = tools
        return {
            tool: [
                event.result
                for event in events
                if isinstance(action := event.action, ToolAction)
                and action.tool == tool
                and isinstance(event, AgentEvent)
                and isinstance(action.tool, str)
                and isinstance(event.result, str)
            ]
        }
    except Exception:
        return _careful_results(events, tools)


def _grouped_results(events: tuple[Any, ...] | list[Any], tools: set[str]) -> _Found:
    """The quick pass for several expected tools: one dict lookup per item."""
    gathered: _Found = {tool: [] for tool in tools}
    lookup = gathered.get
    for event in events:
        action = event.action
        if isinstance(action, ToolAction):
            found = lookup(action.tool)
            if (
                found is not None
                and isinstance(event, AgentEvent)
                and isinstance(action.tool, str)
                and isinstance(event.result, str)
            ):
                found.append(event.result)
    return gathered


def _careful_results(
    events: tuple[object, ...] | list[object], tools: Iterable[str]
) -> _Found:
    """The same lists as the quick pass, never touching a non-event."""
    gathered: _Found = {tool: [] for tool in tools}
    for item in events:
        if not isinstance(item, AgentEvent):
            continue
        action, result = item.action, item.result
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


def _reject_arguments(
    run: object, workspace: object, receipts: object, case: object
) -> NoReturn:
    """Raise for the first argument of the wrong type (there is one)."""
    for value, kind, name in (
        (run, AgentRun, "run"),
        (workspace, Workspace, "workspace"),
        (receipts, ReceiptStore, "receipts"),
    ):
        if not isinstance(value, kind):
            raise ValueError(_wrong_argument(name, kind, value))
    raise ValueError(_wrong_argument("case", EvaluationCase, case))


def _wrong_argument(name: str, kind: type, value: object) -> str:
    return f"{name} must be an instance of {kind.__name__}, got {type(value).__name__}"


def evaluate_run(
    run: AgentRun,
    workspace: Workspace,
    receipts: ReceiptStore,
    case: EvaluationCase,
) -> EvaluationReport:
    """Check ``run`` against ``case``: final, files, results, receipts, in order."""
    if not (
        isinstance(run, AgentRun)
        and isinstance(workspace, Workspace)
        and isinstance(receipts, ReceiptStore)
        and isinstance(case, EvaluationCase)
    ):
        _reject_arguments(run, workspace, receipts, case)
    _validate_case(case)  # again: a frozen case can still be altered by force

    checks = [_final_check(run, case)]
    if case.files:
        checks += [_file_check(workspace, expected) for expected in case.files]
    gathered = _gather_results(run.events, case.results)
    if gathered:
        joined = {}  # a loop: a comprehension costs a call, more than one join
        for tool, found in gathered.items():
            joined[tool] = _SEPARATOR.join(found)
        checks += [
            _result_check(gathered, joined, expected) for expected in case.results
        ]
    if case.receipts:  # the log is read only when some receipt is declared
        with collector_paused():  # see _collector: the receipts are acyclic
            source = _receipt_source(receipts)
            checks += [_receipt_check(source, expected) for expected in case.receipts]
    return EvaluationReport(tuple(checks))
