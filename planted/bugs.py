"""The catalogue of planted bugs: plausible Day 7 mistakes, one substitution each.

Every bug is a small exact-text substitution in one module of the bundled
``evaluator`` package (``old`` must occur exactly once, so a bug cannot rot
silently when the source changes), named after the mistake a learner makes,
with the Day 7 task it belongs to and the invariants expected to catch it.
"""

from __future__ import annotations

from dataclasses import dataclass

# The seven tasks of the Day 7 chapter, in the chapter's order.
TASKS = {
    "case": "1 declare and validate the case",
    "final": "2 judge the final answer",
    "files": "3 judge file facts",
    "results": "4 judge tool results",
    "receipts": "5 judge effect receipts",
    "report": "6 a stable report",
    "read-only": "7 evaluation is read-only",
}


class PlantError(ValueError):
    """A bug's substitution does not apply to today's source exactly once."""


@dataclass(frozen=True)
class PlantedBug:
    """One named mistake: replace ``old`` by ``new`` once in ``module``."""

    name: str
    task: str
    mistake: str
    old: str
    new: str
    catches: tuple[str, ...]
    module: str = "evaluation.py"

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(
                f"planted bug {self.name}: task {self.task!r}"
                f" is not one of {sorted(TASKS)}"
            )
        if not self.catches:
            raise ValueError(
                f"planted bug {self.name}: name at least one invariant that catches it"
            )
        if self.old == self.new:
            raise ValueError(f"planted bug {self.name}: old and new text are equal")


def plant(bug: PlantedBug, source: str) -> str:
    """Return ``source`` with the bug planted; refuse unless ``old`` occurs once."""
    count = source.count(bug.old)
    if count != 1:
        raise PlantError(
            f"{bug.module}: the text to replace occurs {count} times,"
            f" expected once: {bug.old!r}"
        )
    return source.replace(bug.old, bug.new, 1)


# The bundled evaluator's result checks, as evaluate_run builds them.
_RESULT_CHECKS = (
    "_result_check(gathered, joined, expected) for expected in case.results"
)


def _result_bug(
    *, name: str, mistake: str, found: str, catches: tuple[str, ...]
) -> PlantedBug:
    """A bug that judges each result expectation by the expression ``found``."""
    return PlantedBug(
        name=name,
        task="results",
        mistake=mistake,
        old=_RESULT_CHECKS,
        new='EvaluationCheck(f"result:{expected.tool}", found, "required result'
        ' observed" if found else "required result not observed")'
        f" for expected in case.results for found in [{found}]",
        catches=catches,
    )


# Evidence cached across calls by what a stat shows of a file (issue 23,
# miss 4): where the bundled evaluator reads a file's text, and its log.
_OBSERVE_TEXT = "        observed = observe_text(root, resolved, expected_bytes)\n"
_OPEN_LOG = "        return ReceiptStore(path).get\n"
# Where the file check asks the boundary, and the final check searches.
_RESOLVE = "        resolved = Path(workspace.resolve_path(expected.path))\n"
_FINAL_IN = "        and case.final_contains in final\n"


def _cached(table: str, key: str, make: str, use: str) -> str:
    """Evaluator lines that make ``make`` once per ``key`` in the module-level
    dict ``table``, then ``use`` it (``{}`` in ``use`` stands for what was made)."""
    return (
        f"        key = {key}\n"
        f'        cache = globals().setdefault("{table}", {{}})\n'
        "        if key not in cache:\n"
        f"            cache[key] = {make}\n"
        f"        {use.format('cache[key]')}\n"
    )


def _text_cached_by(key: str) -> str:
    """The file check remembering each file's text by ``key``, an expression
    of ``resolved`` and ``info`` (its stat)."""
    return "        info = os.stat(resolved)\n" + _cached(
        "_TEXTS", key, "observe_text(root, resolved, expected_bytes)", "observed = {}"
    )


def _log_cached_by(key: str) -> str:
    """The receipt lookup parsing each log once per ``key``, an expression of
    ``path`` and ``info`` (the log's stat, already taken there)."""
    return _cached("_LOGS", key, "ReceiptStore(path)", "return {}.get")


# Invariant names, as the tests in tests/invariants mark them.
SPEC_REFUSED = "specification-refused"
SPEC_ACCEPTED = "specification-accepted"
ARGUMENT_TYPES = "argument-types"
NORMALISATION = "path-normalisation"
TRUTH = "truth"
STORE_KINDS = "store-kinds"
ORDER = "order-insensitivity"
INDEPENDENCE = "independence"
UNAVAILABLE = "unavailable-evidence"
HOSTILE = "hostile-worlds"
CONFINEMENT = "confinement"
TAMPERED = "tampered-log"
SHAPE = "report-shape"
VERDICT = "report-verdict"
RENDER = "render-grammar"
READ_ONLY = "read-only"
STATELESS = "stateless"
DETERMINISM = "determinism"
READ_ONLY_RUNS = "read-only-real-runs"
READ_STATE = "read-state-kept"
END_TO_END = "end-to-end"
WRONG_FACT = "wrong-fact-fails-alone"
INCOMPLETE = "incomplete-fails-final-only"


BUGS: tuple[PlantedBug, ...] = (
    # --- 1 declare and validate the case ---------------------------------------
    PlantedBug(
        name="blank-only-empty",
        task="case",
        mistake="rejects an empty string but accepts one of only spaces",
        old="if not value.strip():",
        new="if not value:",
        catches=(SPEC_REFUSED,),
    ),
    PlantedBug(
        name="path-kept-raw",
        task="case",
        mistake="validates the file path but stores it as written, so a//b and"
        " ./a/b are two different files and the check name is not normalised",
        old='object.__setattr__(self, "path", _relative_path(self.path, "file path"))',
        new='_relative_path(self.path, "file path")',
        catches=(NORMALISATION,),
    ),
    PlantedBug(
        name="artifacts-kept-raw",
        task="case",
        mistake="validates changed artifacts but keeps them as written (./a stays ./a)",
        old='object.__setattr__(self, "changed_artifacts", normalised)',
        new="del normalised",
        catches=(NORMALISATION,),
    ),
    PlantedBug(
        name="absolute-path-accepted",
        task="case",
        mistake="forgets to reject absolute paths",
        old="if path.is_absolute():",
        new="if text.startswith('//'):",
        catches=(SPEC_REFUSED,),
    ),
    PlantedBug(
        name="dotdot-only-whole",
        task="case",
        mistake="rejects the path '..' itself but not a path with a '..' component",
        old='if ".." in path.parts:',
        new='if text == "..":',
        catches=(SPEC_REFUSED,),
    ),
    PlantedBug(
        name="dot-only-literal",
        task="case",
        mistake="rejects the path '.' only when written exactly so ('./' passes)",
        old="if not path.parts:",
        new='if text == ".":',
        catches=(SPEC_REFUSED,),
    ),
    PlantedBug(
        name="nul-accepted",
        task="case",
        mistake="forgets that a path may not contain NUL",
        old='if "\\0" in text:',
        new='if text.endswith("\\0"):',
        catches=(SPEC_REFUSED,),
    ),
    PlantedBug(
        name="exit-state-unchecked",
        task="case",
        mistake="accepts any string as a receipt's exit state",
        old="if not isinstance(self.exit_state, str)"
        " or self.exit_state not in _EXIT_STATES:",
        new="if not isinstance(self.exit_state, str):",
        catches=(SPEC_REFUSED,),
    ),
    PlantedBug(
        name="lists-as-groups",
        task="case",
        mistake="accepts a list where the case needs a tuple of expectations",
        old="if not isinstance(values, tuple):",
        new="if not isinstance(values, (tuple, list)):",
        catches=(SPEC_REFUSED,),
    ),
    PlantedBug(
        name="group-items-unchecked",
        task="case",
        mistake="checks that a group is a tuple but not what it holds",
        old="        if not isinstance(value, kind):\n"
        '            raise ValueError(f"{expected}',
        new='        if value is None:\n            raise ValueError(f"{expected}',
        catches=(SPEC_REFUSED,),
    ),
    PlantedBug(
        name="duplicate-call-ids",
        task="case",
        mistake="accepts two receipt expectations for the same call id",
        old="\n    _require_unique(case.receipts, _call_id_of,"
        ' "receipt call ids must be unique")',
        new="",
        catches=(SPEC_REFUSED,),
    ),
    PlantedBug(
        name="unique-among-neighbours",
        task="case",
        mistake="checks uniqueness by comparing each item with the next one, so"
        " (a, b, a) passes where (a, a, b) is refused",
        old="    if len(set(values)) == len(values):\n        return\n",
        new="    if all(a != b for a, b in zip(values, values[1:])):\n        return\n",
        catches=(SPEC_REFUSED,),
    ),
    PlantedBug(
        name="content-type-unchecked",
        task="case",
        mistake="accepts file content that is not a string (None, bytes)",
        old="        if not isinstance(self.content, str):\n",
        new="        if False:\n",
        catches=(SPEC_REFUSED,),
    ),
    PlantedBug(
        name="artifact-list-accepted",
        task="case",
        mistake="accepts changed artifacts given as a list and quietly makes a tuple",
        old="        if not isinstance(artifacts, tuple):\n",
        new="        if not isinstance(artifacts, (tuple, list)):\n",
        catches=(SPEC_REFUSED,),
    ),
    PlantedBug(
        name="path-unicode-normalised",
        task="case",
        mistake="stores paths in Unicode NFC, renaming a decomposed 'e' + accent",
        old="    return str(path)\n",
        new='    return __import__("unicodedata").normalize("NFC", str(path))\n',
        catches=(SPEC_ACCEPTED,),
    ),
    PlantedBug(
        name="results-unique",
        task="case",
        mistake="requires result expectations to name different tools",
        old='    _require_unique(case.files, _path_of, "file paths must be unique")',
        new='    _require_unique(case.files, _path_of, "file paths must be unique")\n'
        '    _require_unique(case.results, attrgetter("tool"), "tools must be unique")',
        catches=(SPEC_ACCEPTED,),
    ),
    PlantedBug(
        name="message-without-field",
        task="case",
        mistake="says 'must not be blank' without naming which field",
        old='raise ValueError(f"{field} must not be blank, got {value!r}")',
        new='raise ValueError(f"value must not be blank, got {value!r}")',
        catches=(SPEC_REFUSED,),
    ),
    # --- 2 judge the final answer ------------------------------------------------
    PlantedBug(
        name="final-ignores-completed",
        task="final",
        mistake="passes the final check for a run that stopped at a limit",
        old="run.completed is True",
        new="final is not None",
        catches=(TRUTH, INCOMPLETE),
    ),
    PlantedBug(
        name="final-reads-reason",
        task="final",
        mistake="judges completion by run.reason == 'completed' instead of"
        " run.completed (the two fields may disagree)",
        old="run.completed is True",
        new='run.reason == "completed"',
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="final-needs-closing-event",
        task="final",
        mistake="takes a run as completed only when its last event is a"
        " FinalAction, not when run.completed says so",
        old="run.completed is True",
        new="run.completed is True and bool(run.events)"
        ' and type(run.events[-1].action).__name__ == "FinalAction"',
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="final-equality",
        task="final",
        mistake="requires the final answer to equal the substring",
        old="and case.final_contains in final",
        new="and case.final_contains == final",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="final-case-insensitive",
        task="final",
        mistake="compares the final answer ignoring case",
        old="and case.final_contains in final",
        new="and case.final_contains.lower() in final.lower()",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="final-stripped",
        task="final",
        mistake="strips whitespace from the substring and the final answer",
        old="and case.final_contains in final",
        new="and case.final_contains.strip() in final.strip()",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="final-none-crashes",
        task="final",
        mistake="looks for the substring before asking whether the run completed,"
        " so a run without a final answer crashes",
        old="run.completed is True\n        and isinstance(final, str)\n"
        "        and case.final_contains in final",
        new="case.final_contains in final and run.completed is True",
        catches=(TRUTH, INCOMPLETE),
    ),
    PlantedBug(
        name="final-substring-once",
        task="final",
        mistake="wants the substring in the final exactly once, so an answer"
        " that repeats it fails",
        old="        and case.final_contains in final\n",
        new="        and final.count(case.final_contains) == 1\n",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="final-first-80",
        task="final",
        mistake="searches only the first 80 characters of the final answer",
        old="        and case.final_contains in final\n",
        new="        and case.final_contains in final[:80]\n",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="final-first-line",
        task="final",
        mistake="searches only the first line of the final answer",
        old="        and case.final_contains in final\n",
        new='        and case.final_contains in final.split("\\n")[0]\n',
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="run-duck-typed",
        task="case",
        mistake="accepts any object with completed, final and events as the run"
        " (duck typing) instead of refusing what is not an AgentRun",
        old="        isinstance(run, AgentRun)\n"
        "        and isinstance(workspace, Workspace)",
        new='        all(hasattr(run, f) for f in ("completed", "final", "events"))\n'
        "        and isinstance(workspace, Workspace)",
        catches=(ARGUMENT_TYPES,),
    ),
    PlantedBug(
        name="run-exact-type",
        task="case",
        mistake="refuses a run that is an instance of a subclass of AgentRun"
        " (type(run) is AgentRun instead of isinstance)",
        old="        isinstance(run, AgentRun)\n"
        "        and isinstance(workspace, Workspace)",
        new="        type(run) is AgentRun\n"
        "        and isinstance(workspace, Workspace)",
        catches=(ARGUMENT_TYPES,),
    ),
    PlantedBug(
        name="case-items-exact-type",
        task="case",
        mistake="refuses a group's item that is an instance of a subclass of its"
        " expectation type (type(item) is not kind instead of isinstance)",
        old="    for index, value in enumerate(values):\n"
        "        if not isinstance(value, kind):\n",
        new="    for index, value in enumerate(values):\n"
        "        if type(value) is not kind:\n",
        catches=(SPEC_ACCEPTED,),
    ),
    PlantedBug(
        name="bare-expectation-wrapped",
        task="case",
        mistake="wraps a group given as one bare expectation"
        " (files=FileExpectation(...)) into a tuple instead of refusing it",
        old="    def __post_init__(self) -> None:\n        _validate_case(self)\n",
        new="    def __post_init__(self) -> None:\n"
        '        for name in ("files", "results", "receipts"):\n'
        "            value = getattr(self, name)\n"
        "            if isinstance(value, (FileExpectation, ResultExpectation,"
        " ReceiptExpectation)):\n"
        "                object.__setattr__(self, name, (value,))\n"
        "        _validate_case(self)\n",
        catches=(SPEC_REFUSED,),
    ),
    PlantedBug(
        name="case-items-duck-typed",
        task="case",
        mistake="accepts a group's item that has the expectation's fields (a"
        " namespace, a same-named class, a dict of them) instead of refusing"
        " anything that is not the expectation type",
        old="    for index, value in enumerate(values):\n"
        "        if not isinstance(value, kind):\n",
        new="    for index, value in enumerate(values):\n"
        '        fields = getattr(kind, "__dataclass_fields__", ())\n'
        "        if isinstance(value, dict):\n"
        '            value = __import__("types").SimpleNamespace(**value)\n'
        "        if not all(hasattr(value, name) for name in fields):\n",
        catches=(SPEC_REFUSED,),
    ),
    # --- 3 judge file facts ------------------------------------------------------
    PlantedBug(
        name="file-universal-newlines",
        task="files",
        mistake="reads the file as text with universal newlines (read_text), so"
        " CRLF and CR become LF",
        old="observed = observe_text(root, resolved, expected_bytes)",
        new="observed = observe_text(root, resolved, expected_bytes)\n"
        "        if observed is not None:\n"
        '            observed = observed.replace("\\r\\n", "\\n")'
        '.replace("\\r", "\\n")',
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="file-decode-replace",
        task="files",
        mistake="decodes with errors='replace', so invalid UTF-8 is compared"
        " instead of being unavailable evidence",
        old='return data.decode("utf-8")',
        new='return data.decode("utf-8", errors="replace")',
        catches=(UNAVAILABLE, TRUTH),
        module="_evidence.py",
    ),
    PlantedBug(
        name="file-decode-surrogateescape",
        task="files",
        mistake="decodes with errors='surrogateescape' (to keep every byte), so"
        " invalid UTF-8 becomes lone surrogates that can equal the content",
        old='return data.decode("utf-8")',
        new='return data.decode("utf-8", errors="surrogateescape")',
        catches=(UNAVAILABLE, TRUTH),
        module="_evidence.py",
    ),
    PlantedBug(
        name="file-decode-ignore",
        task="files",
        mistake="decodes with errors='ignore', so the invalid bytes are left out"
        " and what remains is compared",
        old='return data.decode("utf-8")',
        new='return data.decode("utf-8", errors="ignore")',
        catches=(UNAVAILABLE, TRUTH),
        module="_evidence.py",
    ),
    PlantedBug(
        name="path-backslash-as-separator",
        task="files",
        mistake="turns backslashes into slashes before resolving (as on"
        " Windows), so the file `w\\a` is judged at `w/a`",
        old="        resolved = Path(workspace.resolve_path(expected.path))\n",
        new="        resolved = Path(workspace.resolve_path("
        'expected.path.replace("\\\\", "/")))\n',
        catches=(TRUTH, UNAVAILABLE),
    ),
    PlantedBug(
        name="path-drive-dropped",
        task="files",
        mistake="reads the path as a Windows path and drops its drive, so"
        " `C:a` and `C:/a` are judged at `a`",
        old="        resolved = Path(workspace.resolve_path(expected.path))\n",
        new="        windows = __import__('pathlib').PureWindowsPath(expected.path)\n"
        "        resolved = Path(workspace.resolve_path("
        "windows.relative_to(windows.anchor).as_posix()"
        " if windows.drive else expected.path))\n",
        catches=(TRUTH, UNAVAILABLE),
    ),
    PlantedBug(
        name="file-decode-bom",
        task="files",
        mistake="decodes with utf-8-sig, which silently drops a byte order mark",
        old='return data.decode("utf-8")',
        new='return data.decode("utf-8-sig")',
        catches=(TRUTH,),
        module="_evidence.py",
    ),
    PlantedBug(
        name="file-trailing-newline",
        task="files",
        mistake="ignores a missing or extra newline at the end of the file",
        old="observed is not None and observed == expected.content",
        new='observed is not None and observed.rstrip("\\n")'
        ' == expected.content.rstrip("\\n")',
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="file-trailing-blanks",
        task="files",
        mistake="ignores spaces and tabs at the end of the file (as an editor"
        " trims them), so a file with a trailing space passes",
        old="observed is not None and observed == expected.content",
        new='observed is not None and observed.rstrip(" \\t")'
        ' == expected.content.rstrip(" \\t")',
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="file-prefix",
        task="files",
        mistake="accepts a file that merely starts with the expected content",
        old="observed is not None and observed == expected.content",
        new="observed is not None and observed.startswith(expected.content)",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="file-bypasses-boundary",
        task="files",
        mistake="joins the path onto the root instead of asking resolve_path, so a"
        " protected file (.env, id_rsa, x.pem) counts as evidence",
        old="resolved = Path(workspace.resolve_path(expected.path))",
        new="resolved = Path(workspace.policy.root) / expected.path",
        catches=(UNAVAILABLE, TRUTH),
    ),
    PlantedBug(
        name="file-catches-oserror-only",
        task="files",
        mistake="catches OSError around resolve_path, so its AgentError escapes",
        old="        root = Path(workspace.policy.root)\n"
        "    except Exception as error:",
        new="        root = Path(workspace.policy.root)\n    except OSError as error:",
        catches=(UNAVAILABLE, TRUTH),
    ),
    PlantedBug(
        name="file-opens-anything",
        task="files",
        mistake="opens whatever is at the path (no regular-file check, blocking"
        " open), so a FIFO or a device there hangs or floods the evaluator",
        old="    if not stat.S_ISREG(inspected.st_mode):\n"
        "        kind = describe_kind(inspected.st_mode)\n"
        '        raise EvidenceUnavailable(f"{_shown(parts)} is {kind},'
        ' not a regular file")\n'
        "    try:\n"
        "        descriptor = os.open(name, _FILE_FLAGS, dir_fd=directory)",
        new="    try:\n"
        "        descriptor = os.open(name, os.O_RDONLY, dir_fd=directory)",
        catches=(UNAVAILABLE, HOSTILE),
        module="_evidence.py",
    ),
    PlantedBug(
        name="file-read-directly",
        task="files",
        mistake="never asks resolve_path: reads root/path directly, following"
        " symlinks out of the root, into protected files and FIFOs",
        old="        resolved = Path(workspace.resolve_path(expected.path))\n"
        "        root = Path(workspace.policy.root)\n"
        "    except Exception as error:\n"
        "        return EvaluationCheck(name, False,"
        ' f"evidence unavailable: {_explain(error)}")\n'
        "    # 'surrogatepass' so content with a lone surrogate"
        " still has a length; no\n"
        "    # strictly decoded file can equal such content anyway.\n"
        '    expected_bytes = len(expected.content.encode("utf-8", "surrogatepass"))\n'
        "    try:\n"
        "        observed = observe_text(root, resolved, expected_bytes)",
        new="        resolved = Path(workspace.policy.root) / expected.path\n"
        "    except Exception as error:\n"
        "        return EvaluationCheck(name, False,"
        ' f"evidence unavailable: {_explain(error)}")\n'
        "    try:\n"
        '        observed = resolved.read_bytes().decode("utf-8")',
        catches=(CONFINEMENT, UNAVAILABLE, TRUTH),
    ),
    # --- 4 judge tool results ----------------------------------------------------
    # Each replaces the bundled result check with a learner's own one-line
    # check that has one flaw; all share one anchor in evaluate_run, so they
    # do not depend on how the bundled evaluator gathers results internally.
    _result_bug(
        name="result-split-events",
        mistake="finds the tool on one event and the substring on another",
        found="any(isinstance(e.action, ToolAction) and e.action.tool == expected.tool"
        " for e in run.events) and any(isinstance(e.result, str)"
        " and expected.contains in e.result for e in run.events)",
        catches=(TRUTH, INDEPENDENCE),
    ),
    _result_bug(
        name="result-last-event-only",
        mistake="looks only at the run's last event",
        found="bool(run.events) and isinstance(run.events[-1].action, ToolAction)"
        " and run.events[-1].action.tool == expected.tool"
        " and isinstance(run.events[-1].result, str)"
        " and expected.contains in run.events[-1].result",
        catches=(ORDER, TRUTH),
    ),
    _result_bug(
        name="result-first-of-tool-only",
        mistake="stops at the first event of the tool instead of trying them all",
        found="next((isinstance(e.result, str) and expected.contains in e.result"
        " for e in run.events if isinstance(e.action, ToolAction)"
        " and e.action.tool == expected.tool), False)",
        catches=(ORDER, TRUTH),
    ),
    _result_bug(
        name="result-exactly-once",
        mistake="wants exactly one event of the tool whose result holds the"
        " substring, so a substring found in two results fails",
        found="sum(isinstance(e.action, ToolAction) and e.action.tool =="
        " expected.tool and isinstance(e.result, str) and expected.contains in"
        " e.result for e in run.events) == 1",
        catches=(TRUTH,),
    ),
    _result_bug(
        name="result-ignores-tool",
        mistake="accepts the substring in the result of any tool",
        found="any(isinstance(e.action, ToolAction) and isinstance(e.result, str)"
        " and expected.contains in e.result for e in run.events)",
        catches=(TRUTH, INDEPENDENCE),
    ),
    _result_bug(
        name="result-tool-in",
        mistake="compares the event's tool with `in`: 'read_fil' counts as read_file",
        found="any(isinstance(e.action, ToolAction) and e.action.tool in expected.tool"
        " and isinstance(e.result, str) and expected.contains in e.result"
        " for e in run.events)",
        catches=(TRUTH,),
    ),
    _result_bug(
        name="result-equality",
        mistake="requires a result to equal the substring",
        found="any(isinstance(e.action, ToolAction) and e.action.tool == expected.tool"
        " and e.result == expected.contains for e in run.events)",
        catches=(TRUTH,),
    ),
    _result_bug(
        name="result-case-insensitive",
        mistake="matches the result substring ignoring case",
        found="any(isinstance(e.action, ToolAction) and e.action.tool == expected.tool"
        " and isinstance(e.result, str)"
        " and expected.contains.lower() in e.result.lower() for e in run.events)",
        catches=(TRUTH,),
    ),
    _result_bug(
        name="result-from-response",
        mistake="searches the model's raw response instead of the tool's result",
        found="any(isinstance(e.action, ToolAction) and e.action.tool == expected.tool"
        " and expected.contains in e.response for e in run.events)",
        catches=(TRUTH,),
    ),
    _result_bug(
        name="result-invalid-reply-crashes",
        mistake="reads event.action.tool without checking there is a tool action,"
        " so an invalid reply (action None) crashes",
        found="any(e.action.tool == expected.tool and expected.contains in e.result"
        " for e in run.events if e.result is not None)",
        catches=(TRUTH,),
    ),
    _result_bug(
        name="result-matches-arguments",
        mistake="searches the tool call's arguments as well as its result",
        found="any(isinstance(e.action, ToolAction) and e.action.tool == expected.tool"
        " and isinstance(e.result, str)"
        ' and expected.contains in f"{e.action.arguments} {e.result}"'
        " for e in run.events)",
        catches=(TRUTH,),
    ),
    # --- 5 judge effect receipts -------------------------------------------------
    PlantedBug(
        name="receipts-not-reloaded",
        task="receipts",
        mistake="asks the in-memory store and never reloads the log, so a"
        " tampered log still passes",
        old="return ReceiptStore(path).get",
        new="return receipts.get",
        catches=(TAMPERED,),
    ),
    PlantedBug(
        name="memory-store-empty",
        task="receipts",
        mistake="takes a store with no path for one with no receipts, so every"
        " receipt of an in-memory store is absent",
        old="    if path is None:\n        return receipts.get\n",
        new="    if path is None:\n        return _absent\n",
        catches=(STORE_KINDS, TRUTH),
    ),
    PlantedBug(
        name="receipt-artifacts-ignored",
        task="receipts",
        mistake="never compares the changed artifacts",
        old="        and isinstance(artifacts, tuple)\n"
        "        and artifacts == expected.changed_artifacts",
        new="        and isinstance(artifacts, tuple)",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="receipt-artifacts-as-set",
        task="receipts",
        mistake="compares changed artifacts as sets, ignoring order and repeats",
        old="and artifacts == expected.changed_artifacts",
        new="and set(artifacts) == set(expected.changed_artifacts)",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="receipt-artifacts-prefix",
        task="receipts",
        mistake="accepts a receipt whose artifacts merely start with the expected ones",
        old="and artifacts == expected.changed_artifacts",
        new="and artifacts[: len(expected.changed_artifacts)]"
        " == expected.changed_artifacts",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="receipt-result-equality",
        task="receipts",
        mistake="requires the receipt's result to equal the substring",
        old="expected.result_contains in result",
        new="expected.result_contains == result",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="receipt-result-once",
        task="receipts",
        mistake="wants the substring in the receipt's result exactly once, so a"
        " result that repeats it fails",
        old="expected.result_contains in result",
        new="result.count(expected.result_contains) == 1",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="receipt-result-first-line",
        task="receipts",
        mistake="searches only the first line of the receipt's result (a command's"
        " output starts on its third)",
        old="expected.result_contains in result",
        new='expected.result_contains in result.partition("\\n")[0]',
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="receipt-exit-state-ignored",
        task="receipts",
        mistake="never compares the receipt's exit state",
        old="        and receipt.exit_state == expected.exit_state\n",
        new="",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="receipt-tool-ignored",
        task="receipts",
        mistake="never compares the receipt's tool",
        old="receipt.tool == expected.tool",
        new="receipt.tool is not None",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="receipt-tool-in",
        task="receipts",
        mistake="compares the receipt's tool with `in`, so edit_files holds edit_file",
        old="receipt.tool == expected.tool",
        new="receipt.tool in expected.tool",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="receipt-load-error-escapes",
        task="receipts",
        mistake="lets the error from reloading a tampered log escape",
        old="    try:\n        return ReceiptStore(path).get\n"
        "    except Exception as error:\n"
        '        return f"receipt evidence unavailable: {_explain(error)}"',
        new="    return ReceiptStore(path).get",
        catches=(TAMPERED, UNAVAILABLE),
    ),
    PlantedBug(
        name="receipt-lookup-error-escapes",
        task="receipts",
        mistake="lets an exception from the store's get escape",
        old="    try:\n        receipt = source(expected.tool_call_id)\n"
        "    except Exception as error:\n"
        "        return EvaluationCheck(name, False,"
        ' f"receipt lookup failed: {_explain(error)}")',
        new="    receipt = source(expected.tool_call_id)",
        catches=(UNAVAILABLE,),
    ),
    PlantedBug(
        name="receipt-bad-line-skipped",
        task="receipts",
        mistake="reloads the log line by line and skips a bad line, so one"
        " tampered line fails only its own receipt",
        old="    try:\n        return ReceiptStore(path).get\n"
        "    except Exception as error:\n"
        '        return f"receipt evidence unavailable: {_explain(error)}"',
        new="    import json\n\n"
        "    found = {}\n"
        '    with open(path, encoding="utf-8", errors="replace") as log:\n'
        "        for line in log:\n"
        "            try:\n"
        "                receipt = EffectReceipt.from_dict(json.loads(line))\n"
        "            except Exception:\n"
        "                continue\n"
        "            found.setdefault(receipt.tool_call_id, receipt)\n"
        "    return found.get",
        catches=(TAMPERED,),
    ),
    PlantedBug(
        name="receipt-absent-crashes",
        task="receipts",
        mistake="reads the receipt's fields before checking it exists",
        old="    if receipt is None:\n"
        '        return EvaluationCheck(name, False, "receipt is absent")',
        new="    if receipt.tool is None:\n"
        '        return EvaluationCheck(name, False, "receipt is absent")',
        catches=(TRUTH, UNAVAILABLE),
    ),
    # --- 6 a stable report -------------------------------------------------------
    PlantedBug(
        name="report-passes-empty",
        task="report",
        mistake="says a report with no checks passed",
        old="return bool(self.checks) and all(check.passed for check in self.checks)",
        new="return all(check.passed for check in self.checks)",
        catches=(VERDICT,),
    ),
    PlantedBug(
        name="report-ignores-final",
        task="report",
        mistake="computes the verdict from the evidence checks only,"
        " not the final check",
        old="return bool(self.checks) and all(check.passed for check in self.checks)",
        new="return bool(self.checks)"
        " and all(check.passed for check in self.checks[1:])",
        catches=(VERDICT,),
    ),
    PlantedBug(
        name="render-no-parentheses",
        task="report",
        mistake="renders '- name: PASS detail' without the parentheses",
        old='f"- {check.name}: {_verdict(check.passed)} ({check.detail})"',
        new='f"- {check.name}: {_verdict(check.passed)} {check.detail}"',
        catches=(RENDER,),
    ),
    PlantedBug(
        name="render-no-header",
        task="report",
        mistake="leaves out the 'evaluation: PASS' first line",
        old='lines = [f"evaluation: {_verdict(self.passed)}"]',
        new="lines = []",
        catches=(RENDER,),
    ),
    PlantedBug(
        name="render-trailing-newline",
        task="report",
        mistake="ends the rendering with a newline after the last check",
        old='return "\\n".join(lines)',
        new='return "\\n".join(lines) + "\\n"',
        catches=(RENDER,),
    ),
    PlantedBug(
        name="render-words",
        task="report",
        mistake="writes 'passed'/'failed' instead of PASS/FAIL",
        old='return "PASS" if passed else "FAIL"',
        new='return "passed" if passed else "failed"',
        catches=(RENDER,),
    ),
    PlantedBug(
        name="checks-sorted",
        task="report",
        mistake="sorts the checks by name instead of keeping the case's order",
        old="return EvaluationReport(tuple(checks))",
        new="return EvaluationReport("
        "tuple(sorted(checks, key=lambda check: check.name)))",
        catches=(SHAPE,),
    ),
    PlantedBug(
        name="receipts-before-results",
        task="report",
        mistake="puts the receipt checks before the result checks",
        old="return EvaluationReport(tuple(checks))",
        new="groups = ('final', 'file', 'receipt', 'result')\n"
        "    return EvaluationReport(\n"
        "        tuple(sorted(checks,"
        " key=lambda c: groups.index(c.name.split(':')[0])))\n"
        "    )",
        catches=(SHAPE,),
    ),
    PlantedBug(
        name="receipt-named-by-tool",
        task="report",
        mistake="names a receipt check after its tool instead of its call id",
        old='name = f"receipt:{expected.tool_call_id}"',
        new='name = f"receipt:{expected.tool}"',
        catches=(SHAPE,),
    ),
    # --- 7 evaluation is read-only -----------------------------------------------
    PlantedBug(
        name="log-created-when-missing",
        task="read-only",
        mistake="opens the receipt log in append mode, creating it when it is missing",
        old="            return _absent",
        new='            open(path, "a").close()\n            return _absent',
        catches=(READ_ONLY, READ_ONLY_RUNS),
    ),
    PlantedBug(
        name="file-read-through-tool",
        task="read-only",
        mistake="reads the expected file with workspace.read_file, which changes"
        " what edits the workspace allows afterwards",
        old="resolved = Path(workspace.resolve_path(expected.path))",
        new="workspace.read_file(expected.path)\n"
        "        resolved = Path(workspace.resolve_path(expected.path))",
        catches=(READ_ONLY, READ_STATE),
    ),
    PlantedBug(
        name="file-created-when-missing",
        task="read-only",
        mistake="opens the expected file in append mode to read it, creating it"
        " when it is missing",
        old="resolved = Path(workspace.resolve_path(expected.path))",
        new="resolved = Path(workspace.resolve_path(expected.path, must_exist=False))\n"
        '        open(resolved, "a").close()',
        catches=(READ_ONLY,),
    ),
    PlantedBug(
        name="tool-rerun",
        task="read-only",
        mistake="asks the workspace to run each expected tool again instead of"
        " reading the run's events",
        old="    gathered = _gather_results(",
        new="    for expected in case.results:\n"
        "        workspace.execute(ToolAction(expected.tool, {}))\n"
        "    gathered = _gather_results(",
        catches=(READ_ONLY, READ_ONLY_RUNS),
    ),
    # --- the blind spots of issue 11: state, Unicode, case and whitespace,
    # --- substrings in the wrong place, inputs changed, OSError on load
    PlantedBug(
        name="file-verdicts-cached",
        task="report",
        mistake="remembers each file's verdict by root and path in a module-level"
        " dict, so a file rewritten at the same path keeps its old verdict",
        old="def _file_check(workspace: Workspace, expected: FileExpectation)"
        " -> EvaluationCheck:\n",
        new="_VERDICTS: dict[tuple[str, str], EvaluationCheck] = {}\n\n\n"
        "def _file_check(workspace: Workspace, expected: FileExpectation)"
        " -> EvaluationCheck:\n"
        "    key = (str(workspace.policy.root), expected.path)\n"
        "    if key not in _VERDICTS:\n"
        "        _VERDICTS[key] = _fresh_file_check(workspace, expected)\n"
        "    return _VERDICTS[key]\n\n\n"
        "def _fresh_file_check(workspace: Workspace, expected: FileExpectation)"
        " -> EvaluationCheck:\n",
        catches=(STATELESS,),
    ),
    PlantedBug(
        name="receipt-stores-cached",
        task="receipts",
        mistake="keeps the first store loaded from each log path, so a log"
        " rewritten at the same path is never read again",
        old="        return ReceiptStore(path).get",
        new='        return globals().setdefault("_LOADED", {}).setdefault('
        "str(path), ReceiptStore(path)).get",
        catches=(STATELESS,),
    ),
    PlantedBug(
        name="final-sampled",
        task="report",
        mistake="lets chance into a verdict (a sampled or randomised check), so"
        " one world can get two reports",
        old="        and case.final_contains in final\n",
        new="        and case.final_contains in final\n"
        '        and __import__("random").random() > 0.05\n',
        catches=(STATELESS, DETERMINISM, TRUTH),
    ),
    PlantedBug(
        name="content-nfc-normalised",
        task="files",
        mistake="normalises both texts to NFC before comparing, so decomposed"
        " accents on disk pass for composed ones",
        old="if observed is not None and observed == expected.content:",
        new='if observed is not None and __import__("unicodedata").normalize("NFC",'
        ' observed) == __import__("unicodedata").normalize("NFC", expected.content):',
        catches=(TRUTH, INDEPENDENCE),
    ),
    PlantedBug(
        name="final-smart-case",
        task="final",
        mistake="matches a lower-case final substring case-insensitively ('smart"
        " case'), so '[a]' passes for a final holding '[A]'",
        old="        and case.final_contains in final\n",
        new="        and (case.final_contains in final if case.final_contains !="
        " case.final_contains.lower() else case.final_contains in final.lower())\n",
        catches=(TRUTH, INDEPENDENCE),
    ),
    PlantedBug(
        name="path-stripped",
        task="files",
        mistake="strips the expected path before resolving it, so ' a.txt ' is"
        " read from 'a.txt'",
        old="resolved = Path(workspace.resolve_path(expected.path))",
        new="resolved = Path(workspace.resolve_path(expected.path.strip()))",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="receipt-searched-whole",
        task="receipts",
        mistake="looks for the result substring in the whole receipt (its"
        " arguments, call id, artifacts) instead of its result",
        old="        and expected.result_contains in result\n",
        new="        and expected.result_contains in repr(receipt)\n",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="error-results-skipped",
        task="results",
        mistake="skips results that look like errors ('error: ...', a failed"
        " status), though they hold what was asked",
        old="                and isinstance(event.result, str)\n            ]",
        new="                and isinstance(event.result, str)\n"
        '                and not event.result.startswith(("error:", "status: 1"))\n'
        "            ]",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="events-sorted-in-place",
        task="read-only",
        mistake="sorts the run's events by step in place, changing the run it"
        " was handed when the events are a list",
        old="    gathered = _gather_results(run.events, case.results)",
        new="    if isinstance(run.events, list):\n"
        '        run.events.sort(key=lambda event: getattr(event, "step", 0))\n'
        "    gathered = _gather_results(run.events, case.results)",
        catches=(READ_ONLY,),
    ),
    PlantedBug(
        name="case-trimmed",
        task="read-only",
        mistake="trims the case's final substring in place, changing the case"
        " it was handed",
        old="    _validate_case(case)  # again: a frozen case can still be altered"
        " by force\n",
        new="    _validate_case(case)  # again: a frozen case can still be altered"
        " by force\n"
        '    object.__setattr__(case, "final_contains", case.final_contains.strip())\n',
        catches=(READ_ONLY,),
    ),
    PlantedBug(
        name="log-oserror-escapes",
        task="receipts",
        mistake="lets an OSError from reading the log escape (only the loader's"
        " own errors are caught)",
        old="            return _absent\n"
        '        return f"receipt evidence unavailable: {_explain(error)}"',
        new="            return _absent\n        raise",
        catches=(TRUTH, UNAVAILABLE),
    ),
    # --- the blind spots found by a second blind batch of learners: the
    # --- process's directory, invisible characters, a raw UTF-8 log, call ids
    # --- and paths looked up by case, evidence taken from the wrong source
    PlantedBug(
        name="directory-changed",
        task="read-only",
        mistake="changes the process's directory into the workspace root to"
        " read files, and never changes back",
        old="        root = Path(workspace.policy.root)\n",
        new="        root = Path(workspace.policy.root)\n        os.chdir(root)\n",
        catches=(READ_ONLY, READ_ONLY_RUNS),
    ),
    PlantedBug(
        name="final-zero-width-removed",
        task="final",
        mistake="removes zero-width spaces from the final before searching it,"
        " so a substring broken by an invisible character passes",
        old="        and case.final_contains in final\n",
        new='        and case.final_contains in final.replace("\\u200b", "")\n',
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="log-ascii-required",
        task="receipts",
        mistake="requires the receipt log to be ASCII (as put() writes it), so a"
        " valid UTF-8 log with raw accents is 'unavailable'",
        old="        return ReceiptStore(path).get\n",
        new='        Path(path).read_bytes().decode("ascii")\n'
        "        return ReceiptStore(path).get\n",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="call-id-case-folded",
        task="receipts",
        mistake="looks the call id up again in lower case when it is absent, so"
        " 'CALL-1' finds the receipt of 'call-1'",
        old="        receipt = source(expected.tool_call_id)\n",
        new="        receipt = source(expected.tool_call_id) or source("
        "expected.tool_call_id.lower())\n",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="path-case-fallback",
        task="files",
        mistake="when the expected file is missing, reads a file of the same"
        " name in another letter case (as a case-insensitive disk would)",
        old="        resolved = Path(workspace.resolve_path(expected.path))\n",
        new="        resolved = Path(workspace.resolve_path(expected.path,"
        " must_exist=False))\n"
        "        if not resolved.exists():\n"
        "            resolved = next((p for p in resolved.parent.iterdir()"
        " if p.name.lower() == resolved.name.lower()), resolved)\n",
        catches=(TRUTH, UNAVAILABLE),
    ),
    PlantedBug(
        name="invalid-replies-counted",
        task="results",
        mistake="counts an invalid reply as a result of the tool its JSON names,"
        " so a refused call's error message satisfies that tool",
        old="    gathered = _gather_results(run.events, case.results)\n",
        new="    gathered = _gather_results(run.events, case.results)\n"
        "    events = run.events if isinstance(run.events, (tuple, list)) else ()\n"
        "    for event in events:\n"
        "        try:\n"
        '            named = __import__("json").loads(event.response)["tool"]\n'
        "            if event.action is None and isinstance(event.result, str):\n"
        "                gathered[named].append(event.result)\n"
        "        except Exception:\n"
        "            pass\n",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="results-from-receipts",
        task="results",
        mistake="when no event shows a result, takes it from the stored receipts"
        " call-1 to call-N instead",
        old="    gathered = _gather_results(run.events, case.results)\n",
        new="    gathered = _gather_results(run.events, case.results)\n"
        "    try:\n"
        "        for number in range(1, len(run.events) + 1):\n"
        '            stored = receipts.get(f"call-{number}")\n'
        "            if stored is not None and isinstance(stored.result, str):\n"
        "                gathered[stored.tool].append(stored.result)\n"
        "    except Exception:\n"
        "        pass\n",
        catches=(TRUTH,),
    ),
    # --- issue 23, miss 4: evidence cached across calls by what a cache can
    # --- see of a file (path, size, times, inode), so one rewritten in place
    # --- or replaced with its size and timestamp put back is judged stale
    PlantedBug(
        name="file-bytes-cached-by-mtime",
        task="report",
        mistake="remembers each file's text by (path, size, mtime), so a file"
        " rewritten with the same size and its timestamp put back is judged"
        " by its old bytes",
        old=_OBSERVE_TEXT,
        new=_text_cached_by("(str(resolved), info.st_size, info.st_mtime_ns)"),
        catches=(STATELESS,),
    ),
    PlantedBug(
        name="file-bytes-cached-by-inode",
        task="report",
        mistake="remembers each file's text by (path, inode), so a file"
        " rewritten in place (the same inode) is judged by its old bytes",
        old=_OBSERVE_TEXT,
        new=_text_cached_by("(str(resolved), info.st_ino)"),
        catches=(STATELESS,),
    ),
    PlantedBug(
        name="receipt-log-cached-by-size",
        task="receipts",
        mistake="parses the receipt log once per (path, size), so a log changed"
        " in place with the same length is never read again",
        old=_OPEN_LOG,
        new=_log_cached_by("(str(path), info.st_size)"),
        catches=(STATELESS,),
    ),
    PlantedBug(
        name="receipt-log-cached-by-inode",
        task="receipts",
        mistake="parses the receipt log once per (path, inode), so a log damaged"
        " or changed in place is never read again",
        old=_OPEN_LOG,
        new=_log_cached_by("(str(path), info.st_ino)"),
        catches=(STATELESS, TAMPERED),
    ),
    PlantedBug(
        name="receipt-log-cached-by-mtime",
        task="receipts",
        mistake="parses the receipt log once per (size, mtime), so a log"
        " appended to and truncated back with its timestamp put back is never"
        " read again",
        old=_OPEN_LOG,
        new=_log_cached_by("(info.st_size, info.st_mtime_ns)"),
        catches=(STATELESS,),
    ),
    PlantedBug(
        name="content-encoded-strictly",
        task="files",
        mistake="encodes the expected content strictly to size the read, so"
        " content holding a lone surrogate raises UnicodeEncodeError",
        old="    expected_bytes = len(expected.content.encode("
        '"utf-8", "surrogatepass"))\n',
        new='    expected_bytes = len(expected.content.encode("utf-8"))\n',
        catches=(TRUTH, SHAPE),
    ),
    # --- issue 38: mistakes only worlds of the whole drawable space catch:
    # --- names that mean something to a shell, a format or a list, finals
    # --- with markup or escapes, long runs, shared and zero steps, a
    # --- character across a read's chunk, a receipt changed in place, an
    # --- absent file read as empty
    PlantedBug(
        name="path-expanduser",
        task="files",
        mistake="runs the expected path through os.path.expanduser, so a file"
        " named '~' (or '~x') in the workspace is looked for in a home directory",
        old=_RESOLVE,
        new="        resolved = Path(workspace.resolve_path("
        "os.path.expanduser(expected.path)))\n",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="path-expandvars",
        task="files",
        mistake="runs the expected path through os.path.expandvars, so a file"
        " named '$HOME' in the workspace is looked for elsewhere",
        old=_RESOLVE,
        new="        resolved = Path(workspace.resolve_path("
        "os.path.expandvars(expected.path)))\n",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="render-percent-format",
        task="report",
        mistake="builds each line as a %-format template with the check's name"
        " in it, so a name holding '%' breaks or changes the line",
        old='f"- {check.name}: {_verdict(check.passed)} ({check.detail})"',
        new='("- " + check.name + ": %s (%s)")'
        " % (_verdict(check.passed), check.detail)",
        catches=(RENDER,),
    ),
    PlantedBug(
        name="receipt-artifacts-joined",
        task="receipts",
        mistake="compares the changed artifacts as one string joined by ', ',"
        " so ('a, b',) equals ('a', 'b')",
        old="and artifacts == expected.changed_artifacts",
        new='and ", ".join(artifacts) == ", ".join(expected.changed_artifacts)',
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="final-think-stripped",
        task="final",
        mistake="strips the model's <think>...</think> reasoning from the final"
        " before searching it, so a substring inside markup is not found",
        old=_FINAL_IN,
        new="        and case.final_contains in __import__('re').sub("
        "r'<think>.*?</think>', '', final, flags=__import__('re').S)\n",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="final-unicode-escape",
        task="final",
        mistake="'undoes' escapes in a final holding a backslash with"
        " unicode_escape, which garbles non-ASCII text (or raises)",
        old=_FINAL_IN,
        new="        and case.final_contains in (final.encode().decode("
        "'unicode_escape') if '\\\\' in final else final)\n",
        catches=(TRUTH,),
    ),
    _result_bug(
        name="results-recursive-search",
        mistake="searches the events recursively, one call per event, so a run"
        " of thousands of events exceeds the recursion limit",
        found="(lambda search, events: search(search, events, 0))(lambda search,"
        " events, at: at < len(events) and ((isinstance(events[at].action,"
        " ToolAction) and events[at].action.tool == expected.tool and"
        " isinstance(events[at].result, str) and expected.contains in"
        " events[at].result) or search(search, events, at + 1)), run.events)",
        catches=(TRUTH,),
    ),
    _result_bug(
        name="results-keyed-by-step",
        mistake="keeps the events in a dict keyed by step, so events that share"
        " a step collapse into the last of them",
        found="any(isinstance(e.action, ToolAction) and e.action.tool =="
        " expected.tool and isinstance(e.result, str) and expected.contains in"
        " e.result for e in {e.step: e for e in run.events}.values())",
        catches=(TRUTH,),
    ),
    _result_bug(
        name="results-step-truthy",
        mistake="skips events with `if event.step:`, so an event at step 0 is"
        " never searched",
        found="any(isinstance(e.action, ToolAction) and e.action.tool =="
        " expected.tool and isinstance(e.result, str) and expected.contains in"
        " e.result for e in run.events if e.step)",
        catches=(TRUTH,),
    ),
    PlantedBug(
        name="file-chunked-decode",
        task="files",
        mistake="decodes the file in 4096-byte chunks, each on its own, so a"
        " multi-byte character across a chunk's end makes a valid file invalid",
        old='            return data.decode("utf-8")\n',
        new='            return "".join(data[at : at + 4096].decode("utf-8")'
        " for at in range(0, len(data), 4096))\n",
        catches=(TRUTH,),
        module="_evidence.py",
    ),
    PlantedBug(
        name="receipt-content-popped",
        task="read-only",
        mistake="drops a mismatching receipt's (large) 'content' argument with"
        " arguments.pop, in place, so the store's receipt is changed",
        old='    return EvaluationCheck(name, False, "receipt facts do not match")',
        new='    receipt.arguments.pop("content", None)  # not worth keeping\n'
        '    return EvaluationCheck(name, False, "receipt facts do not match")',
        catches=(READ_ONLY, DETERMINISM, STATELESS),
    ),
    PlantedBug(
        name="file-missing-as-empty",
        task="files",
        mistake="reads a file that does not exist as empty content, so an"
        " expected empty text passes for an absent file",
        old="        root = Path(workspace.policy.root)\n"
        "    except Exception as error:\n",
        new="        root = Path(workspace.policy.root)\n"
        "    except Exception as error:\n"
        '        if "does not exist" in str(error) and expected.content == "":\n'
        '            return EvaluationCheck(name, True, "content matches")\n',
        catches=(TRUTH, UNAVAILABLE),
    ),
)
