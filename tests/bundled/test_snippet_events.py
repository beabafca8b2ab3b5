"""A plain test writes a long run's repeating events as a loop, the same events.

A world may hold hundreds of events that say nothing of the case (a run
padded long, so a recursive search or a quadratic scan shows itself). Its
plain test (judge/snippets.py) writes a repeating start as a loop over the
events it repeats, so the test stays short enough to keep, and builds the
very events the judge built: each field, the step of each, and the order.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from evaluator import AgentEvent, FinalAction, ToolAction
from judge.snippets import _event, _events_lines
from strategies.results import EventSpec

_TEXT = st.text(max_size=12)


@st.composite
def event_specs(draw) -> EventSpec:
    """One event as a world holds it: a tool call, a final answer or an
    invalid response, with drawn words."""
    action = draw(st.sampled_from(("tool", "final", "invalid")))
    if action == "tool":
        return EventSpec(
            step=0,
            response=draw(_TEXT),
            action="tool",
            tool=draw(st.sampled_from(("read_file", "list_files", "run_command"))),
            arguments_json='{"path": "a"}',
            result=draw(st.none() | _TEXT),
        )
    if action == "final":
        return EventSpec(
            step=0, response=draw(_TEXT), action="final", final=draw(_TEXT)
        )
    return EventSpec(step=0, response=draw(_TEXT), action="invalid", result=draw(_TEXT))


@st.composite
def runs(draw) -> list[EventSpec]:
    """A run's events: a block repeated some number of times, its steps the
    first's plus n // share (or one step throughout) but at drawn places,
    then events of the block or others, at drawn steps."""
    block = draw(st.lists(event_specs(), min_size=1, max_size=8))
    count = draw(st.integers(0, 400))
    first = draw(st.integers(0, 5))
    share = draw(st.integers(0, 4))
    steps = [first + (n // share if share else 0) for n in range(count)]
    for at in draw(st.lists(st.integers(0, max(count - 1, 0)), max_size=3)):
        if count:
            steps[at] = draw(st.integers(0, 500))  # off the rule here
    start = [replace(block[n % len(block)], step=steps[n]) for n in range(count)]
    tail = draw(st.lists(st.sampled_from(block) | event_specs(), max_size=6))
    at = draw(st.lists(st.integers(0, 500), min_size=len(tail), max_size=len(tail)))
    return start + [replace(e, step=s) for e, s in zip(tail, at, strict=True)]


def _built(lines: list[str]) -> tuple:
    names = {"AgentEvent": AgentEvent, "ToolAction": ToolAction}
    names["FinalAction"] = FinalAction
    exec("\n".join(lines), names)  # the test's own lines, as it runs them
    return tuple(names["events"])


@given(runs())
def test_a_written_run_holds_the_judges_events(events: list[EventSpec]):
    """The events a plain test writes (a repeating start as a loop) are the
    events the judge built, one by one, in order (Day 7 task 3: result
    evidence comes from the run's events, so a test that rebuilds a world
    with other events tells another lesson)."""
    one_by_one = _built([f"events = ({''.join(_event(e) + ', ' for e in events)})"])
    assert _built(_events_lines(events)) == one_by_one


@given(st.lists(event_specs(), min_size=1, max_size=3), st.integers(100, 3000))
def test_a_long_repeating_run_is_written_in_a_few_lines(block, count):
    """A run that repeats a few events hundreds of times is written in a few
    lines, whatever the count, so its plain test is short enough to keep."""
    events = [replace(block[n % len(block)], step=1 + n) for n in range(count)]
    assert len(_events_lines(events)) <= 4 * len(block) + 10
