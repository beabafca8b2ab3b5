"""Result evidence, drawn from the space of event sequences, its truth by construction.

A result fact is one expectation (a tool, and the substring `asked_text`)
and the events the run holds for it: `filler` events (calls of any tool with
drawn results, invalid replies) and, `at` filler events in, each placement
of `placed`. A placement is the real thing ("it": a call of the tool whose
result holds the substring between the two texts of `around`) or a
look-alike: the substring changed (`finals.LOOKALIKES`, or split across two
results), the tool changed, the substring where a result check must not look
(the response, the arguments, an invalid reply, a result of None) or, at the
hardened level, a value that is no event, action or string at all.

The check passes exactly when the case asks for the substring itself and
one placement is "it" (or a look-alike that leaves this substring as it is):
`hits`, from the layout, never by searching the texts. Why that holds: the
substring is "[" + `inner` + the fact's marker letters + "]", filler and
`around` never hold "[", "]", "|" or "N", so it occurs only where a placement
put its brackets; every look-alike differs from it inside or at its
brackets; and what a case may ask instead ("<tool>: " before it, or "None")
nothing holds: `around` never ends with ": " and no text holds "N".

Events are neutral `EventSpec`s until `judge.build` makes them the target's
own `AgentEvent`s. A real run's fact (`played`) puts no events in: they come
from the target's own loop (`strategies.plans`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace

from strategies.finals import LOOKALIKES
from strategies.kinds import FAIL, PASS, Kind, Kinds, UnknownKindError

__all__ = [
    "ASKED",
    "FILLER_EXCLUDED",
    "HARDENED",
    "HINTS",
    "INNERS",
    "PLACEMENTS",
    "RESULT_EXAMPLES",
    "RESULT_KINDS",
    "EventSpec",
    "ResultFact",
    "asked_text",
    "hits",
    "noise_event",
    "result_asks",
    "result_cause",
    "result_changes",
    "result_events",
    "result_hint",
    "result_words",
    "tool_event",
]

#: What no filler or `around` text holds (see the module's docstring).
FILLER_EXCLUDED = "[]|N"
#: What may stand inside the marker's brackets, before its letters: nothing,
#: an accent that decomposes, letters with a ligature, a line break.
INNERS = ("", "\u00e9", "fi", "\n")


@dataclass(frozen=True)
class EventSpec:
    """One event, neutrally.

    `action` is "tool" (a ToolAction of `tool` with `arguments_json`),
    "final" (a FinalAction of `final`), "invalid" (no action), or, for the
    hardened placements, "final_with_result" (a FinalAction and a result),
    "dict" or "lookalike" (an action that is not a ToolAction), or "item"
    (the run holds `item` itself, not an event). `result` is normally a
    string or None; hardened placements put other values there.
    """

    step: int
    response: str
    action: str
    tool: str | None = None
    arguments_json: str = "{}"
    final: str | None = None
    result: object = None
    item: object = None


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
        0, reply, "tool", tool, json.dumps(arguments, sort_keys=True), result=result
    )


def noise_event(kind: str, tool: str, words: str) -> EventSpec:
    """An event unrelated to every expectation: it holds no marker."""
    if kind == "invalid":
        return EventSpec(
            0, f"{{{words}", "invalid", result="error: response is not valid JSON"
        )
    return tool_event(tool, words, argument=words or "a.txt")


@dataclass(frozen=True)
class ResultFact:
    """One result expectation and the events the run holds for it.

    `filler` are (tool or "invalid", text) events; placement i comes after
    `at[i]` of them. `asked` is what the case asks: "it" (the substring),
    "tool_named" ("<tool>: " and the substring) or "none" (the text "None").
    `other_tool` is where "other_tool" moves the substring; `repeat` lists
    the expectation twice in the case; `played` ("observed", "unobserved")
    marks a real run's expectation, `note` words how it was made false.
    """

    tool: str = "read_file"
    placed: tuple[str, ...] = ("it",)
    marker: str = "[B]"
    other_tool: str = "run_command"
    repeat: bool = False
    note: str = ""
    filler: tuple[tuple[str, str], ...] = ()
    at: tuple[int, ...] = ()
    around: tuple[str, str] = ("ok ", " done")
    inner: str = ""
    asked: str = "it"
    played: str = ""

    def __post_init__(self) -> None:
        for name, value, known in (
            ("played", self.played, ("", "observed", "unobserved")),
            ("asked", self.asked, ASKED),
            ("inner", self.inner, INNERS),
            *(("placement", p, tuple(PLACEMENTS)) for p in self.placed),
        ):
            if value not in known:
                raise UnknownKindError(
                    f"unknown result {name} kind {value!r}; the result {name}"
                    f" kinds are: {', '.join(map(repr, known))}"
                )
        texts = (*self.around, *(text for _, text in self.filler))
        if any(c in FILLER_EXCLUDED for c in "".join(texts)):
            raise ValueError(f"result: filler holds one of {FILLER_EXCLUDED!r}")
        if self.around[0].endswith(": "):
            raise ValueError("result: the text before the substring ends with ': '")
        if len(self.at) not in (0, len(self.placed)) or list(self.at) != sorted(
            self.at
        ):
            raise ValueError("result: `at` is one sorted position per placement")

    @property
    def kind(self) -> str:
        """The outcome of the result rule for this fact (a RESULT_KINDS name)."""
        if self.played:
            return self.played
        trapped = any(p in HARDENED for p in self.placed)
        if hits(self):
            return "found_among_traps" if trapped else "found"
        return "trap" if trapped else "absent"


def asked_text(fact: ResultFact) -> str:
    """The substring the fact's events are laid out around."""
    if fact.played:
        return fact.marker
    return f"[{fact.inner}{fact.marker[1:]}"


def result_asks(fact: ResultFact) -> str:
    """The substring the case's expectation for `fact` looks for."""
    if fact.asked == "tool_named":
        return f"{fact.tool}: {asked_text(fact)}"
    return "None" if fact.asked == "none" else asked_text(fact)


def _shown(fact: ResultFact, placed: str) -> str:
    """The text placement `placed` holds: the substring, or its look-alike."""
    text = asked_text(fact)
    changed = LOOKALIKES[placed][0](text) if placed in LOOKALIKES else None
    return text if changed is None else changed


def counts(fact: ResultFact, placed: str) -> bool:
    """Whether this placement is an occurrence of what the case asks."""
    return (
        fact.asked == "it"
        and (placed == "it" or placed in LOOKALIKES)
        and _shown(fact, placed) == asked_text(fact)
    )


def hits(fact: ResultFact) -> int:
    """How many events hold what the case asks, from the layout alone."""
    return sum(counts(fact, placed) for placed in fact.placed)


Events = Callable[[ResultFact, str], "list[EventSpec]"]


def _held(fact: ResultFact, text: str, tool: str | None = None) -> list[EventSpec]:
    return [tool_event(tool or fact.tool, fact.around[0] + text + fact.around[1])]


def _split(fact: ResultFact, text: str) -> list[EventSpec]:
    # At the line break, which a join by newlines would put back; else
    # before the closing bracket.
    cut = text.find("\n") if "\n" in text else len(text) - 1
    rest = text[cut + 1 :] if "\n" in text else text[cut:]
    return [
        tool_event(fact.tool, fact.around[0] + text[:cut]),
        tool_event(fact.tool, rest + fact.around[1]),
    ]


def _invalid(response: str, result: str) -> list[EventSpec]:
    return [EventSpec(0, response, "invalid", result=result)]


def _odd(result: Callable[[str], object]) -> Events:
    return lambda fact, text: [tool_event(fact.tool, result(text), response="ok")]


def _item(item: Callable[[ResultFact, str], object]) -> Events:
    return lambda fact, text: [EventSpec(0, "", "item", item=item(fact, text))]


def _action(action: str) -> Events:
    return lambda fact, text: [
        EventSpec(
            0,
            json.dumps({"tool": fact.tool}),
            action,
            fact.tool,
            final=text,
            result=text,
        )
    ]


def _renamed(rename: Callable[[ResultFact], str]) -> Events:
    return lambda fact, text: _held(fact, text, rename(fact))


_PLAIN = "ok done"
#: Each placement and the events it puts in. Truly a list: the ways an event
#: can look like a result of the tool and not be one.
PLACEMENTS: dict[str, Events] = {
    "it": _held,
    **dict.fromkeys(LOOKALIKES, _held),
    "split": _split,
    "other_tool": _renamed(lambda f: f.other_tool),
    "tool_upper": _renamed(lambda f: f.tool.upper()),
    "tool_prefix": _renamed(lambda f: f.tool[:-1]),
    "tool_extended": _renamed(lambda f: f.tool + "s"),
    "response": lambda f, x: [tool_event(f.tool, _PLAIN, response=f"call {x}")],
    "arguments": lambda f, x: [tool_event(f.tool, _PLAIN, argument=x)],
    "invalid": lambda f, x: _invalid(f"not json {x.lower()}", f"error: near {x}"),
    "invalid_naming": lambda f, x: _invalid(
        json.dumps({"tool": f.tool, **_arguments(f.tool, "a")}),
        f"error: tool is not enabled: {f.tool} ({x})",
    ),
    "none": lambda f, x: [tool_event(f.tool, None, response=f"calling {x}")],
    "result_int": _odd(lambda x: 7),
    "result_bytes": _odd(lambda x: f"status: 0\n{x}".encode()),
    "result_list": _odd(lambda x: [x]),
    "result_dict": _odd(lambda x: {x: "found"}),
    "action_final": _action("final_with_result"),
    "action_dict": _action("dict"),
    "action_lookalike": _action("lookalike"),
    "item_none": _item(lambda f, x: None),
    "item_str": _item(lambda f, x: f"{f.tool}: {x}"),
    "item_int": _item(lambda f, x: 3),
    "item_dict": _item(lambda f, x: {"action": {"tool": f.tool}, "result": x}),
    "item_tuple": _item(lambda f, x: (f.tool, x)),
}
#: The usual mistake of an evaluator that counts a placement (for "it": that
#: does not count it); the hardened placements are the rest.
HINTS: dict[str, str] = {
    "it": "`contains` is a substring test on the result of every event of the tool",
    **{k: h.replace("run.final", "the result") for k, (_, h) in LOOKALIKES.items()},
    "split": "search each result on its own: results joined into one text match"
    " across the join",
    "other_tool": "the event must have exactly the expected tool",
    "tool_upper": "tool names are compared exactly, case included",
    "tool_prefix": "compare tool names with ==, not `in`",
    "tool_extended": "compare tool names with ==, not `in` or startswith",
    "response": "search event.result, not event.response",
    "arguments": "search event.result, not the action's arguments",
    "invalid": "only events whose action is a ToolAction with the tool count",
    "invalid_naming": "a reply the loop refused is no call of the tool, whatever"
    " its JSON names",
    "none": "event.result may be None: check it is a string before searching it;"
    " a failed check, never an exception",
}
#: The placements only a hardened evaluator survives (the run breaks the types).
HARDENED = tuple(name for name in PLACEMENTS if name not in HINTS)
#: What a case may ask, and the mistake of an evaluator that finds it.
ASKED: dict[str, str] = {
    "it": "",
    "tool_named": "the tool name is not part of the result: search event.result alone,"
    " never a line built from the tool and the result",
    "none": "a result of None holds no text, not even 'None': never search"
    " str(event.result)",
}
_ONLY = (
    "a result counts only when the item is an event, its action a ToolAction of"
    " that tool and its result a string holding the substring"
)


def _laid(fact: ResultFact) -> list[tuple[str, list[EventSpec]]]:
    """The fact's events in order, each placement's (or filler's: "") together."""
    at = fact.at or (0,) * len(fact.placed)
    kinds = ("invalid" if t == "invalid" else "tool" for t, _ in fact.filler)
    fill = [noise_event(k, t, x) for k, (t, x) in zip(kinds, fact.filler, strict=True)]
    laid: list[tuple[str, list[EventSpec]]] = []
    for position in range(len(fill) + 1):
        for placed, where in zip(fact.placed, at, strict=True):
            if min(where, len(fill)) == position:
                laid.append((placed, PLACEMENTS[placed](fact, _shown(fact, placed))))
        laid += [("", [event]) for event in fill[position : position + 1]]
    return laid


def result_events(fact: ResultFact) -> list[EventSpec]:
    """The events the run holds for `fact`: filler, each placement at its place."""
    return [e for _, events in ([] if fact.played else _laid(fact)) for e in events]


def result_words(fact: ResultFact) -> str:
    """Where the substring and its look-alikes are among the fact's events."""
    if fact.played:
        return RESULT_KINDS[fact.kind].words.format(tool=fact.tool, note=fact.note)
    found, alike, count = [], [], 0
    for placed, events in _laid(fact):
        span = f"{count + 1}" + (f"-{count + len(events)}" if len(events) > 1 else "")
        count += len(events)
        if placed and counts(fact, placed):
            found.append(span)
        elif placed:
            alike.append(f"{placed} at {span}")
    line = f"{count} event(s) of its own ({len(fact.filler)} filler); "
    line += (
        f"the substring in the {fact.tool} result of event(s) {', '.join(found)}"
        if found
        else "no result of it holds what the case asks"
    )
    return line + (f"; look-alikes: {', '.join(alike)}" if alike else "")


def result_hint(fact: ResultFact) -> str:
    """The usual mistake behind a wrong verdict of this fact's check."""
    kind = RESULT_KINDS[fact.kind]
    if fact.played or fact.kind in ("trap", "found_among_traps"):
        return kind.hint
    if hits(fact) > 1:
        return (
            "the substring may be in several results: any one passes, not exactly one"
        )
    if hits(fact):
        if "error:" in fact.around[0] or "status: 1" in fact.around[0]:
            return "an error or a failed command's output is still a result"
        if fact.filler or len(fact.placed) > 1:
            return "search every event with the tool, in any order, however many"
        return kind.hint
    if fact.asked != "it":
        return ASKED[fact.asked]
    return next((HINTS[p] for p in fact.placed), kind.hint)


def result_cause(fact: ResultFact) -> str:
    """The cause a wrong verdict is reported under: the outcome, or the
    look-alike (or the case's ask) that makes the check fail."""
    if fact.played or fact.kind != "absent":
        return fact.kind
    if fact.asked != "it":
        return f"asked_{fact.asked}"
    return next(iter(fact.placed), "absent")


#: Ways a passing fact's every occurrence is made a look-alike (each fails it).
_CHANGES = (
    "other_case",
    "prefix",
    "other_tool",
    "response",
    "invalid",
    "none",
    "split",
)


def result_changes(fact: ResultFact) -> list[tuple[str, str, ResultFact]]:
    """Single changes of a passing fact that fail it: (words, "world", fact)."""
    return [
        (
            f"every occurrence made a look-alike ({change})",
            "world",
            replace(
                fact,
                placed=tuple(change if counts(fact, p) else p for p in fact.placed),
            ),
        )
        for change in _CHANGES
        if not counts(fact, change)
    ]


_HELD = "the run's {tool} results hold the substring"
_EXACT = "the substring must occur in the result of an event with exactly the tool"
_NONE = "no {tool} result of the run holds the substring"
_TRAP = {"level": "hardened", "malformed": True}
#: The outcomes of the rule (truly a list): what a fact's check says.
RESULT_KINDS: Kinds[Kind] = Kinds(
    "result",
    [
        Kind("found", PASS, _HELD, HINTS["it"]),
        Kind("absent", FAIL, _NONE, _EXACT),
        Kind("observed", PASS, _HELD, _EXACT),
        Kind("unobserved", FAIL, _NONE + " ({note})", _EXACT, changes="case"),
        Kind("found_among_traps", PASS, _HELD + ", among non-events", _ONLY, **_TRAP),
        Kind(
            "trap", FAIL, "the substring only in non-events of {tool}", _ONLY, **_TRAP
        ),
    ],
)

_DECOY = (("read_file", _PLAIN),)
_HUNDRED = tuple(("read_file", f"ok {n} done") for n in range(100))


def _ex(*placed: str, **fields: object) -> ResultFact:
    return ResultFact("read_file", placed, **fields)  # type: ignore[arg-type]


#: Written-out facts, one per kind the old table named, kept as explicit
#: examples so each mistake is met under any seed (hardened ones too).
RESULT_EXAMPLES: dict[str, ResultFact] = {
    "embedded": _ex("it"),
    "exact": _ex("it", around=("", "")),
    "after_decoy": _ex("it", filler=_DECOY, at=(1,)),
    "before_decoy": _ex("it", filler=_DECOY, at=(0,)),
    "error_result": _ex("it", around=("error: could not finish near ", "")),
    "failed_status": _ex("it", around=("status: 1\noutput:\n", " failed\n")),
    "among_many": _ex("it", filler=_HUNDRED, at=(50,)),
    "repeated": _ex("it", "it", filler=_DECOY, at=(0, 1)),
    "look_alike_then_it": _ex("other_case", "it"),
    "absent": _ex(filler=_DECOY),
    "other_tool": _ex("other_tool"),
    "tool_case_changed": _ex("tool_upper"),
    "tool_prefix": _ex("tool_prefix"),
    "tool_extended": _ex("tool_extended"),
    "response_only": _ex("response"),
    "arguments_only": _ex("arguments"),
    "invalid_event": _ex("invalid"),
    "invalid_reply_naming_tool": _ex("invalid_naming"),
    "case_changed": _ex("other_case"),
    "split": _ex("other_tool", filler=_DECOY, at=(1,)),
    "nfd_held_nfc_asked": _ex("decomposed", inner="\u00e9"),
    "ligature_held_plain_asked": _ex("ligature", inner="fi"),
    "zero_width_held": _ex("zero_width"),
    "none_asked_none": _ex("none", asked="none"),
    "tool_name_asked": _ex("it", around=("", " done"), asked="tool_named"),
    "split_across_results": _ex("split"),
    "split_across_lines": _ex("split", inner="\n"),
    "result_none": _ex("none"),
    "prefix_only": _ex("prefix"),
}
#: Hardened: one fact per placement no course evaluator need survive, and the
#: substring itself among all of them (the check passes).
RESULT_TRAPS: dict[str, ResultFact] = {name: _ex(name) for name in HARDENED}
RESULT_TRAPS["found_among_traps"] = _ex(*HARDENED[:6], "it", *HARDENED[6:])
