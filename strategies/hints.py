"""How each kind of fact reads in a lesson, and the usual mistake behind it.

`strategies.facts` decides what a world makes true; this module only words
it: `*_WORDS` describe a fact of each kind, `*_HINTS` name the mistake that
most often makes an evaluator get that kind wrong. The end-of-run summary
prints them beside the failed check.
"""

from __future__ import annotations

__all__ = [
    "FILE_HINTS",
    "FILE_WORDS",
    "FINAL_HINTS",
    "FINAL_WORDS",
    "LOG_UNAVAILABLE_HINT",
    "LOOKUP_HINT",
    "READ_BYTES",
    "RECEIPT_HINTS",
    "RECEIPT_WORDS",
    "RESULT_HINTS",
    "RESULT_WORDS",
    "TAMPER_WORDS",
]

FINAL_WORDS = {
    "embedded": "a completed run whose final holds the substring among other words",
    "exact": "a completed run whose final is exactly the substring",
    "padded_edges": "a completed run whose final is exactly the substring, which"
    " starts with a space and ends with a newline",
    "absent": "a completed run whose final does not hold the substring",
    "case_changed": "a completed run whose final holds the substring only in"
    " lower case",
    "padded_absent": "a completed run whose final holds the substring's letters"
    " but not its surrounding spaces",
    "incomplete": "an incomplete run whose final text nevertheless holds the substring",
    "incomplete_without_final": "an incomplete run with final=None",
}

FINAL_HINTS = {
    "embedded": "final_contains is a substring test (`in`), not equality",
    "exact": "the final check passes when run.completed and the substring is in"
    " run.final",
    "padded_edges": "compare run.final and final_contains as they are; do not"
    " strip either",
    "absent": "the substring must occur in run.final",
    "case_changed": "the substring test is case-sensitive: no lower() or casefold()",
    "padded_absent": "do not strip final_contains: its spaces are part of what"
    " must occur",
    "incomplete": "an incomplete run never passes the final check, whatever its"
    " text: test run.completed first",
    "incomplete_without_final": "an incomplete run has final=None: test"
    " run.completed (and that final is a string) before searching it",
}

READ_BYTES = (
    "resolve the path with workspace.resolve_path, read its bytes and decode them"
    " as strict UTF-8"
)

FILE_HINTS = {
    "exact": f"{READ_BYTES}, then compare with ==",
    "exact_empty": "an empty file equals empty expected content",
    "exact_crlf": "CRLF is content: read bytes (text mode, read_text() or"
    " open() without newline='', turns CRLF into LF)",
    "exact_cr": "a lone CR is content: read bytes (text mode turns CR into LF)",
    "exact_mixed": "line endings are content: read bytes, not text",
    "exact_bom": "decode with 'utf-8', not 'utf-8-sig': a BOM is part of the content",
    "exact_no_final_newline": "compare exactly: do not add or strip a final newline",
    "exact_padded": "compare exactly: do not strip() the file's content",
    "exact_large": "read the whole file directly; workspace.read_file refuses"
    " files over 64 KiB (and is a stateful tool evaluation must not call)",
    "wrong_byte": "compare the whole content with ==",
    "crlf_twin": "CRLF is not LF: read bytes, not text (text mode turns CRLF into LF)",
    "cr_twin": "CR is not LF: read bytes, not text (text mode turns CR into LF)",
    "lf_twin": "LF is not CRLF: compare the bytes' text exactly, no newline"
    " normalisation",
    "bom_added": "a BOM is content: decode with 'utf-8', not 'utf-8-sig'",
    "bom_removed": "a BOM is content: decode with 'utf-8', not 'utf-8-sig'",
    "newline_added": "compare exactly: do not strip a trailing newline",
    "newline_removed": "compare exactly: do not strip a trailing newline",
    "padded": "compare exactly: do not strip() either side",
    "longer": "compare with ==, not startswith()",
    "shorter": "compare with ==, not startswith() or `in`",
    "embedded": "compare with ==, not `in`",
    "emptied": "compare with ==, not `in`: an empty file does not hold the content",
    "filled": "compare with ==, not `in`: empty expected content is in every string",
    "large_tail": "compare the whole file, not a bounded prefix",
    "missing": "a missing file is unavailable evidence: catch the boundary's"
    " error and fail the check with 'evidence unavailable: ...'",
    "directory": "a directory is unavailable evidence: catch the OSError and fail"
    " the check with 'evidence unavailable: ...'",
    "symlink_inside": "resolve the path through workspace.resolve_path, which"
    " refuses symlinks (AgentError), and report that as 'evidence unavailable:"
    " ...'",
    "symlink_outside": "resolve the path through workspace.resolve_path, which"
    " refuses symlinks (AgentError), and report that as 'evidence unavailable:"
    " ...'",
    "symlinked_parent": "resolve the path through workspace.resolve_path, which"
    " refuses a symlink at any component, and report that as 'evidence"
    " unavailable: ...'",
    "protected": "resolve the path through workspace.resolve_path, which refuses"
    " protected names (AgentError), and report that as 'evidence unavailable:"
    " ...'",
    "invalid_utf8": "decode strictly and report UnicodeDecodeError as 'evidence"
    " unavailable: ...'; errors='ignore' invents content",
    "invalid_utf8_replaced": "decode strictly and report UnicodeDecodeError as"
    " 'evidence unavailable: ...'; errors='replace' invents U+FFFD",
    "invalid_utf8_truncated": "decode strictly and report UnicodeDecodeError as"
    " 'evidence unavailable: ...'",
    "fifo": "check the path is a regular file before opening it: opening a FIFO"
    " for reading blocks",
}

FILE_WORDS = {
    "exact": "holds exactly the expected text",
    "exact_empty": "is empty, and so is the expected text",
    "exact_crlf": "holds exactly the expected text, which has CRLF line endings",
    "exact_cr": "holds exactly the expected text, which has CR line endings",
    "exact_mixed": "holds exactly the expected text, which mixes CRLF, CR and LF",
    "exact_bom": "holds exactly the expected text, which starts with a BOM",
    "exact_no_final_newline": "holds exactly the expected text, which has no"
    " final newline",
    "exact_padded": "holds exactly the expected text, which starts and ends with"
    " whitespace",
    "exact_large": "holds exactly the expected text, over 64 KiB of it",
    "wrong_byte": "differs from the expected text in one character",
    "crlf_twin": "holds the expected text with CRLF where it has LF",
    "cr_twin": "holds the expected text with CR where it has LF",
    "lf_twin": "holds the expected text with LF where it has CRLF",
    "bom_added": "holds a BOM followed by the expected text",
    "bom_removed": "holds the expected text without its leading BOM",
    "newline_added": "holds the expected text plus a final newline",
    "newline_removed": "holds the expected text without its final newline",
    "padded": "holds the expected text with whitespace around it",
    "longer": "holds the expected text followed by more",
    "shorter": "holds the expected text minus its last character",
    "embedded": "holds the expected text with more on both sides",
    "emptied": "is empty, but the expected text is not",
    "filled": "holds some text, but the expected text is empty",
    "large_tail": "holds over 64 KiB equal to the expected text except near the end",
    "missing": "does not exist",
    "directory": "is a directory",
    "symlink_inside": "is a symlink to a file inside the root holding exactly the"
    " expected text",
    "symlink_outside": "is a symlink to a file outside the root holding exactly"
    " the expected text",
    "symlinked_parent": "is reached through a symlinked parent directory; the file"
    " holds exactly the expected text",
    "protected": "has a protected name and holds exactly the expected text",
    "invalid_utf8": "holds the expected text with an invalid UTF-8 byte inserted",
    "invalid_utf8_replaced": "holds invalid UTF-8 where the expected text has U+FFFD",
    "invalid_utf8_truncated": "holds the expected text plus half of a two-byte"
    " character",
    "fifo": "is a FIFO (named pipe)",
}

RESULT_WORDS = {
    "embedded": "one {tool} event whose result holds the substring among other text",
    "exact": "one {tool} event whose result is exactly the substring",
    "after_decoy": "a {tool} event without the substring, then a {tool} event"
    " whose result holds it",
    "before_decoy": "a {tool} event whose result holds the substring, then a"
    " {tool} event without it",
    "absent": "a {tool} event whose result does not hold the substring",
    "other_tool": "the substring only in the result of a {other} event",
    "tool_case_changed": "the substring only in the result of a {upper} event",
    "tool_prefix": "the substring only in the result of an event whose tool is"
    " {tool} without its last letter",
    "tool_extended": "the substring only in the result of a {tool}s event",
    "response_only": "a {tool} event with the substring in its response, not its"
    " result",
    "arguments_only": "a {tool} event with the substring in its arguments, not"
    " its result",
    "invalid_event": "the substring only in the 'error: ...' result of an invalid"
    " reply (action=None)",
    "case_changed": "a {tool} event whose result holds the substring only in"
    " lower case",
    "split": "a {tool} event without the substring, and the substring in a"
    " {other} event: tool and substring on different events",
}

RESULT_HINTS = {
    "embedded": "`contains` is a substring test on the result, not equality",
    "exact": "an event whose result equals the substring holds it",
    "after_decoy": "search every event with the tool, not only the first one",
    "before_decoy": "search every event, not only the last one",
    "absent": "the substring must occur in the result of an event with the tool",
    "other_tool": "the event must have exactly the expected tool",
    "tool_case_changed": "tool names are compared exactly, case included",
    "tool_prefix": "compare tool names with ==, not `in`",
    "tool_extended": "compare tool names with ==, not `in` or startswith",
    "response_only": "search event.result, not event.response",
    "arguments_only": "search event.result, not the action's arguments",
    "invalid_event": "only events whose action is a ToolAction with the tool count",
    "case_changed": "the substring test is case-sensitive",
    "split": "the tool and the substring must be facts of the same event",
}

RECEIPT_WORDS = {
    "match": "the expectation states the stored receipt's facts",
    "match_spelled": "the expectation states the stored receipt's facts, its"
    " changed artifacts spelled unnormalised (./a, a//b)",
    "tool": "the expectation names another tool",
    "tool_case": "the expectation names the tool in upper case",
    "tool_prefix": "the expectation names the receipt's tool without its last letter",
    "tool_extended": "the expectation names the receipt's tool with an 's' added",
    "exit_state": "the expectation has the other exit state",
    "result": "the expectation's result substring is not in the stored result",
    "result_case": "the expectation's result substring occurs only in another case",
    "artifacts_reversed": "the expectation lists the changed artifacts in"
    " reverse order",
    "artifacts_prefix": "the expectation lists the changed artifacts without"
    " the last one",
    "artifacts_suffix": "the expectation lists the changed artifacts without"
    " the first one",
    "artifacts_superset": "the expectation lists one changed artifact more",
    "artifacts_missing": "the expectation lists no changed artifacts; the"
    " receipt has some",
    "artifacts_unexpected": "the expectation lists a changed artifact; the"
    " receipt has none",
}

RECEIPT_HINTS = {
    "match": "compare tool, exit_state, the result substring and the exact"
    " changed_artifacts tuple",
    "match_spelled": "changed artifacts are stored normalised; compare the"
    " normalised tuple",
    "tool": "the receipt's tool must equal the expected tool",
    "tool_case": "the receipt's tool must equal the expected tool exactly",
    "tool_prefix": "compare the receipt's tool with ==, not `in`",
    "tool_extended": "compare the receipt's tool with ==, not `in` or startswith",
    "exit_state": "the receipt's exit_state must equal the expected one",
    "result": "result_contains must occur in the receipt's result",
    "result_case": "the result substring test is case-sensitive",
    "artifacts_reversed": "compare changed_artifacts as the exact tuple, order"
    " included: not as a set, not sorted",
    "artifacts_prefix": "compare changed_artifacts as the exact tuple, not a"
    " prefix or subset",
    "artifacts_suffix": "compare changed_artifacts as the exact tuple, not a subset",
    "artifacts_superset": "compare changed_artifacts as the exact tuple",
    "artifacts_missing": "an empty expected tuple must equal the receipt's tuple too",
    "artifacts_unexpected": "compare changed_artifacts: they are part of the"
    " receipt's facts",
}

TAMPER_WORDS = {
    "none": "untouched",
    "duplicate_identical": "one line repeated identically (still valid)",
    "non_json": "a line that is not JSON",
    "truncated": "one line cut short",
    "invalid_utf8": "an invalid UTF-8 byte in one line",
    "non_object": "a line holding a JSON value that is not an object",
    "missing_key": "one line missing a key",
    "extra_key": "one line with an extra key",
    "stale_digest": "one line with a field changed under its old receipt_id",
    "conflict": "a second, different, valid receipt under an existing call id",
    "directory": "a directory where the log file should be",
}

LOG_UNAVAILABLE_HINT = (
    "reload a path store through a fresh ReceiptStore(receipts.path) (the store"
    " you were handed still holds what it loaded before the log changed) and"
    " turn any load error into a failed check 'receipt evidence unavailable:"
    " ...' for every receipt"
)

LOOKUP_HINT = (
    "catch AgentError and OSError from receipts.get(call_id) and fail the check"
    " with 'receipt lookup failed: ...'"
)
