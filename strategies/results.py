"""Result evidence: the events a run holds for each result expectation, and every kind.

A result fact is one expectation (a tool and a marker that must occur in a
result of that tool) and its kind, which says which events the run holds for
it: the marker in a result of that tool (among decoys, in an error-looking
result), or only somewhere a correct evaluator must not look (another tool's
result, the model's response, the arguments, an invalid reply, a result that
is None, or, at the hardened level, values that are not events at all).

Events are neutral `EventSpec`s until `judge.build` makes them the
target's own `AgentEvent`s. The kinds `observed` and `unobserved` put no
events in: they belong to real runs, whose events come from the target's own
loop (`strategies.plans`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from strategies.kinds import FAIL, PASS, Kind, Kinds

__all__ = [
    "RESULT_KINDS",
    "EventSpec",
    "ResultFact",
    "ResultKind",
    "noise_event",
    "result_asks",
    "result_events",
    "tool_event",
]


@dataclass(frozen=True)
class EventSpec:
    """One event, neutrally.

    `action` is "tool" (a ToolAction of `tool` with `arguments_json`),
    "final" (a FinalAction of `final`), "invalid" (no action), or, for the
    hardened kinds, "final_with_result" (a FinalAction and a result), "dict"
    or "lookalike" (an action that is not a ToolAction), or "item" (the run
    holds `item` itself, not an event). `result` is normally a string or
    None; hardened kinds put other values there.
    """

    step: int
    response: str
    action: str
    tool: str | None = None
    arguments_json: str = "{}"
    final: str | None = None
    result: object = None
    item: object = None


@dataclass(frozen=True)
class ResultFact:
    """One result expectation (tool, marker), and the events the run holds for it.

    `other_tool` is where a kind that moves the marker away puts it;
    `repeat` lists the expectation twice in the case; `note` words a real
    run's expectation (how it was made false).
    """

    tool: str = "read_file"
    kind: str = "embedded"
    marker: str = "[B]"
    other_tool: str = "run_command"
    repeat: bool = False
    note: str = ""

    def __post_init__(self) -> None:
        RESULT_KINDS[self.kind]  # an unknown kind is refused here, at once


def _arguments(tool: str, value: str) -> dict[str, object]:
    if tool == "run_command":
        return {"argv": ["python", "-c", value]}
    if tool == "write_file":
        return {"path": "notes.txt", "content": value}
    if tool == "edit_file":
        return {"path": "notes.txt", "old": value, "new": "n"}
    return {"path": value}


def tool_event(
    tool: str, result: object, *, argument: str = "a.txt", response: str = ""
) -> EventSpec:
    """An event calling `tool`, whose result is `result`."""
    arguments = _arguments(tool, argument)
    reply = response or json.dumps({"tool": tool, **arguments}, sort_keys=True)
    return EventSpec(
        step=0,
        response=reply,
        action="tool",
        tool=tool,
        arguments_json=json.dumps(arguments, sort_keys=True),
        result=result,
    )


def noise_event(kind: str, tool: str, words: str) -> EventSpec:
    """An event unrelated to every expectation: it holds no marker."""
    if kind == "invalid":
        return EventSpec(
            step=0,
            response=f"{{{words}",
            action="invalid",
            result="error: response is not valid JSON",
        )
    return tool_event(tool, words, argument=words or "a.txt")


Events = Callable[[ResultFact], "list[EventSpec]"]


@dataclass(frozen=True)
class ResultKind(Kind):
    """A kind of result fact: `events` gives the run's events for it, `asks`
    the substring the case looks for (the marker, unless the kind says)."""

    events: Events = lambda fact: [tool_event(fact.tool, f"ok {fact.marker} done")]
    asks: Callable[[ResultFact], str] = lambda fact: fact.marker


def result_events(fact: ResultFact) -> list[EventSpec]:
    """The events the run holds for `fact`, in canonical order."""
    return RESULT_KINDS[fact.kind].events(fact)


def result_asks(fact: ResultFact) -> str:
    """The substring the case's expectation for `fact` looks for."""
    return RESULT_KINDS[fact.kind].asks(fact)


_NFC = "caf\u00e9"
_NFD = "cafe\u0301"


def _holding(fact: ResultFact) -> str:
    return f"ok {fact.marker} done"


def _moved(tool: Callable[[ResultFact], str]) -> Events:
    return lambda fact: [tool_event(tool(fact), _holding(fact))]


def _odd(result: Callable[[ResultFact], object]) -> Events:
    """A tool event of the tool whose result is not a string."""
    return lambda fact: [tool_event(fact.tool, result(fact), response="ok")]


def _not_an_event(item: Callable[[ResultFact], object]) -> Events:
    return lambda fact: [EventSpec(step=0, response="", action="item", item=item(fact))]


def _odd_action(action: str) -> Events:
    return lambda fact: [
        EventSpec(
            step=0,
            response=json.dumps({"tool": fact.tool}),
            action=action,
            tool=fact.tool,
            final=fact.marker,
            result=fact.marker,
        )
    ]


_EVENTS_ONLY = (
    "a result counts only when the item is an event, its action a ToolAction of"
    " that tool and its result a string holding the substring"
)


def _hardened(name: str, words: str, events: Events) -> ResultKind:
    return ResultKind(
        name,
        FAIL,
        words,
        _EVENTS_ONLY,
        level="hardened",
        malformed=True,
        events=events,
    )


RESULT_KINDS: Kinds[ResultKind] = Kinds(
    "result",
    [
        ResultKind(
            "embedded",
            PASS,
            "one {tool} event whose result holds the substring among other text",
            "`contains` is a substring test on the result, not equality",
        ),
        ResultKind(
            "exact",
            PASS,
            "one {tool} event whose result is exactly the substring",
            "an event whose result equals the substring holds it",
            events=lambda fact: [tool_event(fact.tool, fact.marker)],
        ),
        ResultKind(
            "after_decoy",
            PASS,
            "a {tool} event without the substring, then a {tool} event whose"
            " result holds it",
            "search every event with the tool, not only the first one",
            events=lambda fact: [
                tool_event(fact.tool, "ok done"),
                tool_event(fact.tool, _holding(fact)),
            ],
        ),
        ResultKind(
            "before_decoy",
            PASS,
            "a {tool} event whose result holds the substring, then a {tool} event"
            " without it",
            "search every event, not only the last one",
            events=lambda fact: [
                tool_event(fact.tool, _holding(fact)),
                tool_event(fact.tool, "ok done"),
            ],
        ),
        ResultKind(
            "error_result",
            PASS,
            "one {tool} event whose result is an error message holding the substring",
            "an error result is still a result: do not skip results that start"
            " with 'error:'",
            events=lambda fact: [
                tool_event(fact.tool, f"error: could not finish near {fact.marker}")
            ],
        ),
        ResultKind(
            "failed_status",
            PASS,
            "one {tool} event whose result reports a non-zero status and holds"
            " the substring",
            "a failed command's output is still its result: do not skip results"
            " whose status is not 0",
            events=lambda fact: [
                tool_event(fact.tool, f"status: 1\noutput:\n{fact.marker} failed\n")
            ],
        ),
        ResultKind(
            "observed",
            PASS,
            "the run's {tool} results hold the substring",
            "search every event whose action is a ToolAction with the tool",
            events=lambda fact: [],
        ),
        ResultKind(
            "absent",
            FAIL,
            "a {tool} event whose result does not hold the substring",
            "the substring must occur in the result of an event with the tool",
            perturbation="substring removed from the event's result",
            events=lambda fact: [tool_event(fact.tool, "ok done")],
        ),
        ResultKind(
            "other_tool",
            FAIL,
            "the substring only in the result of a {other} event",
            "the event must have exactly the expected tool",
            perturbation="event's tool renamed",
            events=_moved(lambda fact: fact.other_tool),
        ),
        ResultKind(
            "tool_case_changed",
            FAIL,
            "the substring only in the result of a {upper} event",
            "tool names are compared exactly, case included",
            events=_moved(lambda fact: fact.tool.upper()),
        ),
        ResultKind(
            "tool_prefix",
            FAIL,
            "the substring only in the result of an event whose tool is {tool}"
            " without its last letter",
            "compare tool names with ==, not `in`",
            events=_moved(lambda fact: fact.tool[:-1]),
        ),
        ResultKind(
            "tool_extended",
            FAIL,
            "the substring only in the result of a {tool}s event",
            "compare tool names with ==, not `in` or startswith",
            events=_moved(lambda fact: fact.tool + "s"),
        ),
        ResultKind(
            "response_only",
            FAIL,
            "a {tool} event with the substring in its response, not its result",
            "search event.result, not event.response",
            perturbation="substring moved from the result to the response",
            events=lambda fact: [
                tool_event(
                    fact.tool,
                    "ok done",
                    response=f"I call {fact.tool} for {fact.marker}",
                )
            ],
        ),
        ResultKind(
            "arguments_only",
            FAIL,
            "a {tool} event with the substring in its arguments, not its result",
            "search event.result, not the action's arguments",
            events=lambda fact: [
                tool_event(fact.tool, "ok done", argument=fact.marker)
            ],
        ),
        ResultKind(
            "invalid_event",
            FAIL,
            "the substring only in the 'error: ...' result of an invalid reply"
            " (action=None)",
            "only events whose action is a ToolAction with the tool count",
            perturbation="event replaced by an invalid reply holding the substring",
            events=lambda fact: [
                EventSpec(
                    step=0,
                    response=f"not json {fact.marker.lower()}",
                    action="invalid",
                    result=f"error: response is not valid JSON near {fact.marker}",
                )
            ],
        ),
        ResultKind(
            "case_changed",
            FAIL,
            "a {tool} event whose result holds the substring only in the other"
            " letter case",
            "the substring test is case-sensitive",
            perturbation="substring in the result changed to the other letter case",
            events=lambda fact: [
                tool_event(fact.tool, f"ok {fact.marker.swapcase()} done")
            ],
        ),
        ResultKind(
            "split",
            FAIL,
            "a {tool} event without the substring, and the substring in a {other}"
            " event: tool and substring on different events",
            "the tool and the substring must be facts of the same event",
            perturbation="substring moved to another tool's event",
            events=lambda fact: [
                tool_event(fact.tool, "ok done"),
                tool_event(fact.other_tool, _holding(fact)),
            ],
        ),
        ResultKind(
            "nfd_held_nfc_asked",
            FAIL,
            "a {tool} event whose result holds the substring with decomposed"
            " (NFD) accents; the case asks for them composed (NFC)",
            "NFC and NFD are different text: search the result as it is, no"
            " unicodedata.normalize",
            events=lambda fact: [tool_event(fact.tool, f"ok {fact.marker}{_NFD} done")],
            asks=lambda fact: f"{fact.marker}{_NFC}",
        ),
        ResultKind(
            "ligature_held_plain_asked",
            FAIL,
            "a {tool} event whose result holds the substring with a ligature (ﬁ);"
            " the case asks for the two letters (fi)",
            "a ligature is another character: search the result as it is, no NFKC"
            " or NFKD normalisation",
            events=lambda fact: [tool_event(fact.tool, f"ok {fact.marker}\ufb01 done")],
            asks=lambda fact: f"{fact.marker}fi",
        ),
        ResultKind(
            "zero_width_held",
            FAIL,
            "a {tool} event whose result holds the substring only with a"
            " zero-width space inside it",
            "an invisible character is still a character: search the result as"
            " it is, without removing zero-width characters",
            events=lambda fact: [
                tool_event(
                    fact.tool, f"ok {fact.marker[:1]}\u2060{fact.marker[1:]} done"
                )
            ],
        ),
        ResultKind(
            "invalid_reply_naming_tool",
            FAIL,
            "the substring only in the 'error: ...' result of an invalid reply"
            " (action=None) whose JSON names {tool}",
            "a reply the loop refused is no call of the tool, whatever its JSON"
            " names: only events whose action is a ToolAction with the tool count",
            events=lambda fact: [
                EventSpec(
                    step=0,
                    response=json.dumps(
                        {"tool": fact.tool, **_arguments(fact.tool, "a")}
                    ),
                    action="invalid",
                    result=f"error: tool is not enabled: {fact.tool} ({fact.marker})",
                )
            ],
        ),
        ResultKind(
            "none_asked_none",
            FAIL,
            "a {tool} event whose result is None; the case asks for the text 'None'",
            "a result of None holds no text, not even 'None': never search"
            " str(event.result)",
            events=lambda fact: [tool_event(fact.tool, None)],
            asks=lambda fact: "None",
        ),
        ResultKind(
            "among_many",
            PASS,
            "a {tool} event whose result holds the substring, in the middle of a"
            " hundred other {tool} events",
            "search every event, however many: a sample of a long run misses",
            events=lambda fact: [
                *(tool_event(fact.tool, f"ok {n} done") for n in range(50)),
                tool_event(fact.tool, f"ok {fact.marker} done"),
                *(tool_event(fact.tool, f"ok {n} done") for n in range(50, 100)),
            ],
        ),
        ResultKind(
            "tool_name_asked",
            FAIL,
            "a {tool} event whose result holds the substring; the case asks for"
            " the tool's name, a colon and the substring",
            "the tool name is not part of the result: search event.result alone,"
            " never a line built from the tool and the result",
            events=lambda fact: [tool_event(fact.tool, f"{fact.marker} done")],
            asks=lambda fact: f"{fact.tool}: {fact.marker}",
        ),
        ResultKind(
            "split_across_results",
            FAIL,
            "two {tool} events, the first result ending with the substring's"
            " start and the second starting with its end: no one result holds it",
            "search each result on its own: results joined into one text match"
            " across the join",
            events=lambda fact: [
                tool_event(fact.tool, f"ok {fact.marker[:-1]}"),
                tool_event(fact.tool, f"{fact.marker[-1]} done"),
            ],
        ),
        ResultKind(
            "split_across_lines",
            FAIL,
            "two {tool} events whose results, joined by a newline, would hold the"
            " substring (which has a newline in it): no one result holds it",
            "search each result on its own: results joined by newlines match"
            " across the join",
            events=lambda fact: [
                tool_event(fact.tool, f"ok {fact.marker[:-1]}"),
                tool_event(fact.tool, f"{fact.marker[-1]} done"),
            ],
            asks=lambda fact: f"{fact.marker[:-1]}\n{fact.marker[-1]}",
        ),
        ResultKind(
            "result_none",
            FAIL,
            "a {tool} event whose result is None (the types allow it); the"
            " substring only in its response",
            "event.result may be None: check it is a string before searching it;"
            " a failed check, never an exception",
            perturbation="the event's result replaced by None",
            events=lambda fact: [
                tool_event(fact.tool, None, response=f"calling {fact.marker}")
            ],
        ),
        ResultKind(
            "unobserved",
            FAIL,
            "no {tool} result of the run holds the substring ({note})",
            "the substring must occur in the result of an event with exactly that tool",
            changes="case",
            events=lambda fact: [],
        ),
        _hardened(
            "result_int", "a {tool} event whose result is the int 7", _odd(lambda f: 7)
        ),
        _hardened(
            "result_bytes",
            "a {tool} event whose result is bytes holding the substring",
            _odd(lambda fact: f"status: 0\n{fact.marker}".encode()),
        ),
        _hardened(
            "result_list",
            "a {tool} event whose result is a list holding the substring",
            _odd(lambda fact: [fact.marker]),
        ),
        _hardened(
            "result_dict",
            "a {tool} event whose result is a dict keyed by the substring",
            _odd(lambda fact: {fact.marker: "found"}),
        ),
        _hardened(
            "action_final",
            "an event whose action is a FinalAction holding the substring, with"
            " the substring as its result",
            _odd_action("final_with_result"),
        ),
        _hardened(
            "action_dict",
            "an event whose action is a dict naming {tool}, with the substring"
            " as its result",
            _odd_action("dict"),
        ),
        _hardened(
            "action_lookalike",
            "an event whose action only looks like a ToolAction of {tool}, with"
            " the substring as its result",
            _odd_action("lookalike"),
        ),
        _hardened(
            "item_none", "an item of events that is None", _not_an_event(lambda f: None)
        ),
        _hardened(
            "item_str",
            "an item of events that is a string naming {tool} and the substring",
            _not_an_event(lambda fact: f"{fact.tool}: {fact.marker}"),
        ),
        _hardened(
            "item_int",
            "an item of events that is the int 3",
            _not_an_event(lambda f: 3),
        ),
        _hardened(
            "item_dict",
            "an item of events that is a dict shaped like an event of {tool}",
            _not_an_event(
                lambda fact: {"action": {"tool": fact.tool}, "result": fact.marker}
            ),
        ),
        _hardened(
            "item_tuple",
            "an item of events that is a tuple ({tool}, substring)",
            _not_an_event(lambda fact: (fact.tool, fact.marker)),
        ),
    ],
)
