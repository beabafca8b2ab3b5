"""Many calls into the target in one request: a batch of steps.

A world's dozens of constructors (judge.steps) are `Step`s, each naming
what it calls for a lesson; a later step takes an earlier one's result as
a `Ref`. Where every step goes to one worker, the whole batch is one
request and the step that raised is told by its own words; the bundled
evaluator's steps run here, one call each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from judge.remote import (
    Client,
    ProtocolError,
    Ref,
    Remote,
    RemoteName,
    force,
    rebuilt,
)

__all__ = ["Ref", "Step", "run_steps"]


@dataclass(frozen=True)
class Step:
    """One call of a batch: `fn(*args, **kwargs)`, or `fn.method(...)`, or a
    field set past a frozen dataclass's validation (`force`)."""

    what: str
    fn: Any
    args: tuple[Any, ...] = ()
    kwargs: Any = None
    method: str | None = None
    force: str | None = None


def run_steps(steps: list[Step], call: Callable[..., Any]) -> list[Any]:
    """Every step's result, in order; a failing step fails as `call` says.

    `call(what, fn, *args, **kwargs)` is the suite's call_target. Where every
    step goes to one worker, the whole batch is one request (a world's dozens
    of constructors cost one round trip, not dozens) and the step that
    raised is told by its own words; otherwise each step is its own call.
    """
    client = _batch_client(steps)
    if client is None:
        return _run_here(steps, call)
    payload = []
    for step in steps:
        forced = step.force is not None  # a field set past its validation
        entry: dict[str, Any] = {
            "fn": {"$w": "force"} if forced else client.encode(step.fn),
            "args": client.encode(
                [step.fn, step.force, *step.args] if forced else list(step.args)
            ),
            "kwargs": client.encode(dict(step.kwargs or {})),
        }
        if step.method is not None:
            entry["method"] = step.method
        payload.append(entry)
    said = call(
        _batch_what(steps),
        client.request,
        {"op": "batch", "steps": payload},
        _batch_what(steps),
    )
    if not isinstance(said, dict) or not isinstance(said.get("results"), list):
        raise ProtocolError("the worker's batch answer is malformed")
    results = said["results"]
    if "failed" in said:
        index = said["failed"]
        if not isinstance(index, int) or not 0 <= index < len(steps):
            raise ProtocolError("the worker's batch names no step")
        error = rebuilt(said.get("raised"))

        def again() -> None:
            raise error

        call(steps[index].what, again)
        raise ProtocolError("a failed step did not fail")  # pragma: no cover
    if len(results) != len(steps):
        raise ProtocolError("the worker's batch answered another number of steps")
    return results


def _batch_what(steps: list[Step]) -> str:
    first = steps[0].what if steps else "nothing"
    return first if len(steps) == 1 else f"{first} and {len(steps) - 1} more call(s)"


def _batch_client(steps: list[Step]) -> Client | None:
    client = None
    for step in steps:
        owner = step.fn
        if isinstance(owner, Ref):
            continue
        if isinstance(owner, (Remote, RemoteName)):
            if client is None:
                client = owner._client
            if owner._client is not client:
                return None
            continue
        return None  # a stand-in or a local object: call each where it is
    return client


def _run_here(steps: list[Step], call: Callable[..., Any]) -> list[Any]:
    results: list[Any] = []

    def resolved(value: Any) -> Any:
        if isinstance(value, Ref):
            return results[value.index]
        if type(value) is tuple:
            return tuple(resolved(item) for item in value)
        if type(value) is list:
            return [resolved(item) for item in value]
        return value

    for step in steps:
        fn = resolved(step.fn)
        args = tuple(resolved(arg) for arg in step.args)
        kwargs = {k: resolved(v) for k, v in (step.kwargs or {}).items()}
        if step.force is not None:
            force(fn, **{step.force: args[0]})
            results.append(None)
            continue
        if step.method is not None:
            fn = getattr(fn, step.method)
        results.append(call(step.what, fn, *args, **kwargs))
    return results
