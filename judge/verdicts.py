"""Evaluate a built world, and compare the report with what the world makes true.

The one place a property calls `evaluate_run` and the one place it judges a
report against the truth, so every broken check reads the same way: the world
in words, the one fact behind the check, the check expected and the check
observed, the usual mistake behind that difference, and a few lines of Python
that rebuild the world and show the report.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from judge.calls import call_target, describing, report_view
from judge.fixes import hint_for, placed
from judge.lessons import (
    PLAIN_MARK,
    CallAborted,
    InvariantFailure,
    fail,
    headline_of,
    kept_whole,
)
from judge.limits import CALL_SECONDS
from judge.maker import built_by
from judge.reduce import (
    Misjudged,
    misjudges,
    raises_alike,
    reduced,
    reduced_raise,
    smallest,
)
from judge.snippets import (
    ABORTED,
    KEPT_STATE,
    NOT_AFRESH,
    TOO_LONG,
    lesson_test,
    redraw_note,
    spot_parts,
    why_not_plain,
)
from strategies.vocabulary import EVALUATE
from strategies.world import ExpectedCheck, World, about_check, describe, truth

__all__ = [
    "Row",
    "Body",
    "Plain",
    "assert_names",
    "assert_truth",
    "fresh_rows",
    "calling",
    "checked",
    "evaluate",
    "evaluated_twice",
    "judged",
    "judging",
    "reproducing",
    "reproduction",
    "plain_test",
    "rows_without_tree",
    "seen_wrong",
    "shown_names",
    "shown_row",
    "snippet",
    "told_smaller",
    "verdict_cause",
]

Row = tuple[str, bool, str]


def shown_row(row: Row) -> str:
    name, passed, detail = row
    return f"{name}: {'PASS' if passed else 'FAIL'} ({detail})"


def rows_without_tree(rows: Sequence[Row], tree: Path) -> tuple[Row, ...]:
    """`rows` with the tree's absolute path in any detail replaced by <tree>.

    An unavailable check's detail may quote the absolute path of the file
    (an OSError's message does); two builds of one world differ only there.
    """
    spellings = sorted({str(tree), str(tree.resolve())}, key=len, reverse=True)
    cleaned = []
    for name, passed, detail in rows:
        for spelling in spellings:
            detail = detail.replace(spelling, "<tree>")
        cleaned.append((name, passed, detail))
    return tuple(cleaned)


def evaluate(target: Any, built: Any, *, run: Any = None, case: Any = None) -> Any:
    """The target's report on a built world (or on `run`/`case` instead of its own)."""
    __tracebackhide__ = True
    return call_target(
        EVALUATE,
        target.evaluate_run,
        built.run if run is None else run,
        built.workspace,
        built.receipts,
        built.case if case is None else case,
    )


# --- reproduction -------------------------------------------------------------------

_NAMES = re.compile(r"\b([A-Z][A-Za-z]+)\(")

#: The causes and topics of the lessons `call_target` (or `expect_error`)
#: itself makes about a call, a Day 1-6 call that builds the world among
#: them: a snippet makes that call through it, so it is stopped and told as
#: the judge told it (a hang after its limit, with where it was running),
#: not left to hang or to end in a traceback of the learner's.
_CALL_CAUSES = (
    "hang:",
    "crash:",
    "memory:",
    "raises:",
    "unfinished:",
    "shape:",
    "borrowed:",
)
_CALL_TOPICS = ("hang", "crash", "memory", "surface", "substrate")

#: The comment a checked snippet opens with. (A call that hung, ended its
#: process or ran out of memory is drawn again instead: snippets.ABORTED.)
_CHECKED_NOTE = (
    "The call is made as the judge makes it, which prints what was wrong with",
    f"it (a call that hangs is stopped after {CALL_SECONDS:g} s, saying where it",
    "was running).",
)


def checked(failure: InvariantFailure | CallAborted) -> str:
    """ "call" when the lesson is about a call `call_target` made (it hung,
    crashed, raised, or returned what it should not): a snippet makes that
    call through it, under `_CHECKED_NOTE`; else "": the snippet shows the
    report."""
    if failure.topic in _CALL_TOPICS or failure.cause.startswith(_CALL_CAUSES):
        return "call"
    return ""


def calling(what: str, function: str, arguments: str, topic: str) -> str:
    """The expression a snippet makes a call with: through `call_target`
    under `what`, the judge's name for it, when `topic` (`checked`) says
    so, else plainly."""
    if topic:
        return (
            f"call_target({', '.join(filter(None, (repr(what), function, arguments)))})"
        )
    return f"{function}({arguments})"


def snippet(
    target: Any, lines: Sequence[str], names: Iterable[str] = (), topic: str = ""
) -> str:
    """A runnable snippet: load `target` (a folder by the Python literal of
    its absolute path), then `lines`, importing `names` from the judge and
    the strategies.

    With `topic` (`checked`) the lines run inside a try that prints the
    lesson `call_target` or `expect_error` raises (its headline, the same
    sentence the judge wrote), under a comment saying what to expect.
    """
    label = getattr(target, "label", "")
    if label.startswith("folder "):
        load = f"load_target(impl_path={label.removeprefix('folder ')!r})"
    else:
        load = f"load_target(impl={label.removeprefix('module ') or 'evaluator'!r})"
    body = list(lines)
    # Only what the lines use: a name given for another form of them is not.
    imported = {"load_target", *(name for name in names if name in "\n".join(body))}
    if topic:
        imported |= {"CallAborted", "InvariantFailure"}
        body = [
            *(f"# {line}" for line in _CHECKED_NOTE),
            "try:",
            *(f"    {line}" for line in body),
            "except (CallAborted, InvariantFailure) as lesson:",
            "    print(lesson.headline)",
        ]
    import judge

    judged = sorted(name for name in imported if name in judge.__all__)
    drawn = sorted(name for name in imported if name not in judge.__all__)
    return "\n".join(
        [
            f"from judge import {', '.join(judged)}",
            *([f"from strategies import {', '.join(drawn)}"] if drawn else []),
            f"target = {load}",
            *body,
        ]
    )


def _evaluated(topic: str) -> list[str]:
    """Lines that evaluate `built` and print the report."""
    if not topic:
        return ["print(target.evaluate_run(*built.args).render())"]
    return [
        f"report = {calling(EVALUATE, 'target.evaluate_run', '*built.args', topic)}",
        f"print({calling('report.render()', 'report.render', '', topic)})",
    ]


def evaluated_twice(topic: str) -> list[str]:
    """Lines that evaluate `built` twice, as read-only's properties do, and
    print the report, whether it was the same twice, the tools called, the
    tree's changes and what of the state changed."""
    evaluated = calling(EVALUATE, "target.evaluate_run", "*built.args", topic)
    rendered = calling("report.render()", "report.render", "", topic)
    again = calling("report.render()", "again.render", "", topic)
    return [
        "calls = spy_on(built)",
        "tree = tree_snapshot(built.tree)",
        "state = object_state(built)",
        f"report = {evaluated}",
        f"print({rendered})",
        f"again = {evaluated}",
        f"print('the same report twice:', {rendered} == {again})",
        "print('tools called:', calls)",
        "print('tree changes:', tree_changes(tree, tree_snapshot(built.tree)))",
        "after = object_state(built)",
        "print('changed:', [what for what in state if after[what] != state[what]])",
    ]


#: The lines of a snippet inside `with materialise(...) as built:`, by
#: whether it makes its calls through call_target (`checked`'s topic).
Body = Callable[[str], Sequence[str]]


def reproduction(
    world: World,
    target: Any,
    *,
    then: tuple[str, World, Sequence[Any] | None] | None = None,
    body: Body | None = None,
    topic: str = "",
) -> str:
    """A few lines of Python that rebuild `world` and print the target's report.

    `then` is (what changed, the world, the run's events or None) for a
    lesson about two evaluations (the world reordered, changed, its log
    damaged): the snippet prints the second report after the first, each
    under a line saying which it is, so the two can be compared. `body`
    gives other lines to run on the built world than evaluating it and
    printing its report; `topic` (`checked`) makes the calls through
    call_target and prints the lesson it raises.
    """
    import strategies

    lines_of = body or _evaluated
    inner = [f"    {line}" for line in lines_of(topic)]
    shown = repr(world)
    lines = [f"world = {shown}"]
    if then is None:
        lines += ["with materialise(world, target) as built:", *inner]
    else:
        what, other, events = then
        other_shown = _changed_from(world, other)
        shown += other_shown + repr(events)
        if other_shown.startswith("replace("):
            lines.insert(0, "from dataclasses import replace")
        lines += [
            f"other = {other_shown}",
            f"events = {events!r}",
            "print('# world')",
            "with materialise(world, target) as built:",
            *inner,
            f"print({'# ' + what!r})",
            "with materialise(other, target, events=events) as built:",
            *inner,
        ]
    found = {name for name in _NAMES.findall(shown) if name in strategies.__all__}
    return snippet(target, lines, {"materialise", *found, *_BODY_NAMES}, topic)


def _changed_from(world: World, other: World) -> str:
    """The second world of a lesson as Python: `world` when it is the same,
    `replace(world, ...)` when naming what changed is shorter than writing
    it out (a world's noise dropped), else its repr."""
    if other == world:
        return "world"
    whole = repr(other)
    if type(other) is not type(world):
        return whole
    changed = [
        f"{field.name}={getattr(other, field.name)!r}"
        for field in dataclasses.fields(other)
        # What a world works out from its facts (its blueprint) is not given.
        if field.init and getattr(other, field.name) != getattr(world, field.name)
    ]
    short = f"replace(world, {', '.join(changed)})"
    return short if len(short) < len(whole) else whole


#: Names of strategies a body may call (`snippet` imports those it does).
_BODY_NAMES = (
    "call_target",
    "expect_error",
    "object_state",
    "recast",
    "rewrite_in_root",
    "spy_on",
    "tree_changes",
    "tree_snapshot",
)


#: Writes a lesson's plain test for a folder (judge.snippets, judge.compared),
#: given the folder and the lesson; None where it writes none.
Plain = Callable[[str, Any], "str | None"]


#: Lessons a plain test cannot show: it would hang, crash, run out of
#: memory or fail to import, where the judge's snippet stops and says so.
_NOT_PLAIN_TOPICS = ("hang", "crash", "memory", "surface", "substrate")


@contextmanager
def reproducing(
    target: Any,
    lines: Callable[[str], Sequence[str]],
    names: Iterable[str] = (),
    *,
    plain: Plain | None = None,
) -> Iterator[None]:
    """Lessons raised inside, about calls on no world (a case's types, a
    report built directly), get the snippet `lines(topic)` makes, run with
    `target` loaded (`snippet`); or, with `plain`, the plain test it writes
    for the target's folder (judge.snippets), where it writes one."""
    try:
        yield
    except (InvariantFailure, CallAborted) as failure:
        if not failure.reproduce and plain and failure.topic not in _NOT_PLAIN_TOPICS:
            failure.reproduce = _kept(plain(_folder(target), failure) or "", target)
        if not failure.reproduce and failure.topic in ABORTED:
            failure.reproduce = redraw_note(
                ABORTED[failure.topic], _folder(target), _seed(), _profile()
            )
        if not failure.reproduce:
            topic = checked(failure)
            failure.reproduce = snippet(target, lines(topic), names, topic)
        raise


@contextmanager
def judging(
    world: World,
    target: Any,
    context: str = "",
    *,
    then: tuple[str, World, Sequence[Any] | None] | None = None,
    body: Body | None = None,
    before: World | None = None,
    rewrite: tuple[tuple[str, int], str] | None = None,
    plain: Plain | None = None,
    again: Callable[[World], None] | None = None,
    smaller: bool = True,
) -> Iterator[None]:
    """Lessons raised inside say which world broke them, and how to rebuild it
    (and, with `then`, the second world they compare it with; with `body`,
    what to do on it: `reproduction`).

    `again(world)` judges another world as the property does (a second
    world, as `then`'s, it derives itself), raising its lesson (inside a
    `judging` of its own): a lesson raised here is then told again on the
    smallest world found that gives the same lesson, and from a fresh
    process (`told_smaller`), where no narrower reduction applies; with
    `smaller` False (a lesson that needs its second world as it is), only
    from a fresh process.

    A wrong verdict of one check (`seen_wrong`) gets the plain test a learner
    keeps (`plain_test`), when `context` says nothing beyond the world or
    `before` says what it does: the world evaluated first at the same paths,
    and with `rewrite` (the spot, as `strategies.rewrites.Rewrite.spot`, and
    the way) the evidence there given this world's bytes in between.

    `plain(folder, lesson)` writes the plain test of any other lesson raised
    inside that is not about a call that hung, crashed or raised
    (judge.compared), or None; a lesson that evaluate_run raised on the
    world alone gets one that says so (`compared.raise_test`). A world no
    test file builds plainly gets the day7-verify line instead."""
    words = "\n".join(part for part in (describe(world), context) if part)
    try:
        with describing(words):  # a hang ends the test before Hypothesis prints
            yield
    except (InvariantFailure, CallAborted) as failure:
        # A wrong verdict of one check is told with that check's facts only.
        about = getattr(failure, "about", "")
        shown = about_check(words, about) if about else words
        if not failure.whole_world.startswith(shown):
            if shown != words:
                failure.unnarrowed = "\n".join(
                    part for part in (words, failure.whole_world) if part
                )
            failure.world = "\n".join(
                part for part in (shown, failure.whole_world) if part
            )
        seen = getattr(failure, "seen", None)
        wanted = getattr(failure, "names_wanted", None)
        if wanted and then is None and body is None and not context:
            if world.plan is None:
                # Told again on a smaller world at the end (`told_smaller`).
                failure.names_on = (target, world)
            if not failure.reproduce and not why_not_plain(world):
                failure.reproduce = lesson_test(
                    world,
                    None,
                    names=wanted[0],
                    level=wanted[1],
                    folder=_folder(target),
                )
        one_verdict = then is None and body is None and seen is not None
        if one_verdict and not failure.reproduce and world.plan is None:
            check, row, level = seen
            if not context:
                # Told again on a smaller world at the end (`told_smaller`).
                failure.misjudged = (target, Misjudged(world, check.name, row, level))
                failure.reproduce = plain_test(world, target, check, level)
            elif before is not None:
                failure.reproduce = plain_test(
                    world, target, check, level, before=before, rewrite=rewrite
                )
        if again is not None and world.plan is None:
            failure.again = (again, world, target, smaller)
        kept = failure.cause == "stateless:kept-evidence" and before is None
        if one_verdict and kept and not failure.reproduce:
            # Wrong here, right on the world built afresh: what earlier calls
            # left behind, which the seed's run makes again.
            failure.reproduce = redraw_note(
                KEPT_STATE, _folder(target), _seed(), _profile()
            )
        if not failure.reproduce and world.plan is None:
            failure.reproduce = _plain_other(failure, world, target, then, plain, body)
            if then is None and body is None and not context and _raised_alone(failure):
                # Told again on a smaller world at the end (`told_smaller`).
                failure.raised_on = (target, world)
        # A plain test too long for the reports to keep: the day7-verify line.
        failure.reproduce = _kept(failure.reproduce, target)
        real = world.plan is not None and failure.topic not in ABORTED
        if not failure.reproduce and real:
            # A real run of the learner's run_agent: drawn again, not written
            # (a call that hung or crashed in it says so just below).
            why = why_not_plain(world)
            failure.reproduce = redraw_note(why, _folder(target), _seed(), _profile())
        if not failure.reproduce and failure.topic in ABORTED:
            # A call that hung or ended its process: drawn again, not written.
            why = ABORTED[failure.topic]
            failure.reproduce = redraw_note(why, _folder(target), _seed(), _profile())
        if not failure.reproduce:
            failure.reproduce = reproduction(
                world, target, then=then, body=body, topic=checked(failure)
            )
        raise


def _kept(snippet: str, target: Any) -> str:
    """`snippet`, or for a plain test longer than the reports keep (a large
    world's) the day7-verify line that draws the world again: a learner
    runs either, and the reports keep both whole."""
    if snippet.startswith(PLAIN_MARK) and not kept_whole(snippet):
        return redraw_note(TOO_LONG, _folder(target), _seed(), _profile())
    return snippet


def _plain_other(
    failure: InvariantFailure | CallAborted,
    world: World,
    target: Any,
    then: tuple[str, World, Sequence[Any] | None] | None,
    plain: Plain | None,
    body: Body | None,
) -> str:
    """The plain test (or the day7-verify line) of a lesson that is not one
    check's verdict: `plain`'s, or, for evaluate_run raising on the world
    alone, `compared.raise_test`; "" where neither applies."""
    from judge import compared

    topic = checked(failure)
    alone = topic == "call" and then is None and body is None
    # A call the world alone makes: evaluate_run raised, or returned what is
    # no report of the contract's shape.
    raised = alone and _raised_alone(failure)
    shaped = alone and failure.observed.startswith(f"{EVALUATE} returned ")
    # A call on the report evaluate_run gave (its render(), its .passed): the
    # property's own writer says whether it writes a test of it.
    on_report = (
        alone
        and plain is not None
        and failure.observed.startswith(("report.render() ", "report.passed "))
    )
    # A raise the property's own writer words as the property does (a
    # writer returns None for a lesson it does not write).
    called = (
        topic == "call"
        and then is None
        and plain is not None
        and failure.cause.startswith("raises:")
        and failure.observed.startswith("evaluate_run(")
    )
    # The world's case refused by the learner's own names, while it was built.
    unbuilt = (
        topic == "call"
        and then is None
        and failure.headline.startswith(
            "could not build the world through the target: "
        )
    )
    if not (raised or shaped or on_report or called or unbuilt) and (
        topic or plain is None
    ):
        return ""
    worlds = [world] if then is None else [world, then[1]]
    why = next(filter(None, map(why_not_plain, worlds)), "")
    if why:
        return redraw_note(why, _folder(target), _seed(), _profile())
    folder = _folder(target)
    if raised:
        return compared.raise_test(world, failure, folder=folder)
    if shaped:
        return compared.shape_test(world, failure, folder=folder) or ""
    if unbuilt:
        # A case's type refused it, or a Day 1-6 name raised building it.
        return (
            compared.case_test(world, failure, folder=folder)
            or compared.substrate_test(world, failure, folder=folder)
            or ""
        )
    assert plain is not None
    return plain(folder, failure) or ""


def _raised_alone(failure: InvariantFailure | CallAborted) -> bool:
    """Whether `failure` says evaluate_run raised (the call itself)."""
    return (
        checked(failure) == "call"
        and failure.cause.startswith("raises:")
        and failure.headline.startswith(f"{EVALUATE} raised ")
    )


def _folder(target: Any) -> str:
    """The folder the target was loaded from (a module's own folder)."""
    label = getattr(target, "label", "")
    if label.startswith("folder "):
        return label.removeprefix("folder ")
    import importlib.util

    name = label.removeprefix("module ") or "evaluator"
    found = importlib.util.find_spec(name)
    origin = found.origin if found is not None else None
    return str(Path(origin).parent) if origin else name


def _profile() -> str | None:
    """The Hypothesis profile the run draws with, where the command's default
    would draw other examples given the same seed (`quick`, `thorough`;
    `dev` and `ci` draw alike), else None."""
    from hypothesis import settings

    from strategies.profiles import QUICK, THOROUGH

    name = settings.get_current_profile_name()
    return name if name in (QUICK, THOROUGH) else None


def _seed() -> int | None:
    """The run's seed (--hypothesis-seed), or None when unseeded."""
    from hypothesis import core

    seed = core.global_force_seed
    return seed if isinstance(seed, int) else None


def plain_test(
    world: World,
    target: Any,
    check: ExpectedCheck,
    level: str,
    *,
    before: World | None = None,
    rewrite: tuple[tuple[str, int], str] | None = None,
) -> str:
    """The test a learner keeps for a wrong verdict of `check` on `world`
    (judge.snippets; `before` and `rewrite` as `judging` takes them), or, for
    a world a test file cannot build plainly, the day7-verify line that
    draws it again."""
    folder = _folder(target)
    why = why_not_plain(world) or (why_not_plain(before) if before else "")
    if why:
        return redraw_note(why, folder, _seed(), _profile())
    where = None
    if rewrite is not None:
        (group, index), way = rewrite
        where = (spot_parts(world, group, index), way)
    return lesson_test(
        world, check, level=level, folder=folder, before=before, rewrite=where
    )


def fresh_rows(target: Any, world: World) -> tuple[Row, ...]:
    """`world` made in a fresh tree and evaluated by `target`: its rows."""
    from judge.build import materialise

    with materialise(world, target) as built:
        return rows_without_tree(report_view(evaluate(target, built)), built.tree)


def _maker(target: Any, world: World, check: ExpectedCheck) -> Any:
    """Where the target's code builds `check` on `world` (judge.maker), or None."""
    index = next((i for i, c in enumerate(truth(world)) if c == check), None)
    return None if index is None else built_by(target, world, check.name, index)


def told_smaller(failure: InvariantFailure | CallAborted) -> bool:
    """Tell `failure`, a wrong verdict of one check on one world (`seen_wrong`
    inside `judging`), on the smallest world found that the target gets
    wrong the same way (judge.reduce); whether it was told again so. Either
    way its hint names the learner's function seen building that check on
    the world told (judge.maker), when one is seen. A lesson of another
    kind on one world is told smaller as its kind says: evaluate_run
    raising, the report's checks misnamed, or what `judging`'s `again`
    gives again.

    A wrong verdict, a raise and an `again` lesson are then judged once
    more on the world told, from a worker started afresh (`_afresh`): its
    words are what the learner's test, run alone, meets (a count of calls
    starts at one), and a mistake a fresh process does not make gets the
    day7-verify line, not a test that would pass (`NOT_AFRESH`)."""
    misjudged = getattr(failure, "misjudged", None)
    if misjudged is None:
        return (
            _raise_told_smaller(failure)
            or _names_told_smaller(failure)
            or _again_told_smaller(failure)
        )
    target, seen = misjudged
    found = reduced(target, seen, fresh_rows)
    told = seen.world if found is None else found[0]
    fresh, alone = _afresh(
        target,
        lambda: misjudges(
            target, told, dataclasses.replace(seen, world=told), fresh_rows
        ),
    )
    if found is None:
        check, row, level = failure.seen
        if alone is not None:
            # The same verdict from a fresh process: its words (a count of
            # calls, a time) are what the plain test, run alone, meets.
            check, row = alone
            failure.observed = shown_row(row)
            failure.headline = headline_of(failure.observed, failure.expected)
            failure.seen = (check, row, level)
        elif fresh:
            _not_afresh(failure, target)
        if (place := _maker(target, seen.world, check)) is not None:
            failure.hint = hint_for(check, row[1], level, place)
        return False
    world, (check, row) = found if alone is None else (told, alone)
    facts = sum(1 for _ in seen.world.kinds()) - 2  # the final and the log
    failure.world = "\n".join(
        [
            describe(world),
            f"the fact behind {check.name}: {check.fact}",
            f"(the world the test met, {facts} declared fact(s), made smaller:"
            f" {check.name} gets the same verdict here)",
        ]
    )
    failure.unnarrowed = ""
    failure.expected = check.shown(seen.level)
    failure.observed = shown_row(row)
    failure.headline = headline_of(failure.observed, failure.expected)
    failure.hint = hint_for(check, row[1], seen.level, _maker(target, world, check))
    if fresh and alone is None:
        _not_afresh(failure, target)
    else:
        failure.reproduce = plain_test(world, target, check, seen.level)
    failure.misjudged = (target, Misjudged(world, check.name, row, seen.level))
    return True


def _afresh(target: Any, judge: Callable[[], Any]) -> tuple[bool, Any]:
    """Whether the target has a worker, and what `judge()` gives (the
    lesson's mistake judged again on the world told, or None) with that
    worker started again first: no call made before, as a learner's test
    file run alone meets their code. The bundled evaluator runs in this
    process and keeps nothing: (False, None)."""
    client = getattr(target, "client", None)
    if client is None:
        return False, None
    client.stop()  # the next call starts a worker that has made none
    try:
        return True, judge()
    except CallAborted:
        return False, None  # it hung or crashed afresh: the words met stand


def _not_afresh(failure: InvariantFailure | CallAborted, target: Any) -> None:
    """`failure`'s mistake was not made again by a fresh process: it depends
    on the calls before it (or on chance), and a test file judging its world
    once would pass, so its snippet is the day7-verify line."""
    failure.reproduce = redraw_note(NOT_AFRESH, _folder(target), _seed(), _profile())


def _raise_told_smaller(failure: InvariantFailure | CallAborted) -> bool:
    """Tell `failure`, evaluate_run raising on one world (`judging`), on the
    smallest world found where it raises the same exception from the same
    function (judge.reduce `reduced_raise`), with that raise's own words;
    whether it was told again so."""
    raised_on = getattr(failure, "raised_on", None)
    if raised_on is None or not isinstance(failure, InvariantFailure):
        return False
    from judge import compared

    target, world = raised_on
    found = reduced_raise(target, world, failure, fresh_rows)
    told = world if found is None else found[0]
    fresh, alone = _afresh(
        target, lambda: raises_alike(target, told, failure, fresh_rows)
    )
    small, there = (told, alone) if alone is not None else found or (world, None)
    if there is not None:
        # The raise's own words, from a fresh process where one was seen.
        for field in ("expected", "observed", "headline", "hint"):
            setattr(failure, field, getattr(there, field))
    failure.raised_on = (target, small)
    if small is not world:
        _made_smaller(
            failure,
            target,
            (world, small),
            "evaluate_run raises the same way",
            lambda folder: compared.raise_test(small, failure, folder=folder),
        )
    elif alone is not None:
        written = compared.raise_test(world, failure, folder=_folder(target))
        failure.reproduce = _kept(written, target)
    if fresh and alone is None:
        _not_afresh(failure, target)
    return small is not world


def _made_smaller(
    failure: InvariantFailure,
    target: Any,
    worlds: tuple[World, World],
    same_way: str,
    write: Callable[[str], str],
) -> None:
    """Tell `failure` on the smaller of `worlds` (the world met, the world
    found), where its mistake shows `same_way`: that world in words, and
    its plain test (`write(folder)`) or the day7-verify line."""
    world, small = worlds
    facts = sum(1 for _ in world.kinds()) - 2  # the final and the log
    failure.world = "\n".join(
        [
            describe(small),
            f"(the world the test met, {facts} declared fact(s), made smaller:"
            f" {same_way} here)",
        ]
    )
    failure.unnarrowed = ""
    folder = _folder(target)
    why = why_not_plain(small)
    if why:
        failure.reproduce = redraw_note(why, folder, _seed(), _profile())
    else:
        failure.reproduce = _kept(write(folder), target)


def _rule(lesson: InvariantFailure) -> tuple[str, str]:
    """What a lesson is about, whatever values it quotes: its cause, and
    what it expected up to the values ("the same report twice: ...")."""
    return lesson.cause, lesson.expected.split(": ", 1)[0]


def _again_told_smaller(failure: InvariantFailure | CallAborted) -> bool:
    """Tell `failure` on the smallest world found on which the property
    (`judging`'s `again`) raises the same lesson: the same cause and the
    same rule (what it expected); whether it was told again so. The smaller
    world's lesson is told whole, its own snippet with it."""
    replay = getattr(failure, "again", None)
    if replay is None or not isinstance(failure, InvariantFailure):
        return False
    again, world, target, reducible = replay

    def same(small: World) -> InvariantFailure | None:
        try:
            truth(small)  # a world the contract takes: else no candidate
            again(small)
        except InvariantFailure as lesson:
            return lesson if _rule(lesson) == _rule(failure) else None
        except (ValueError, RuntimeError):
            return None
        return None

    found = smallest(world, "", same) if reducible else None
    told = world if found is None else found[0]
    fresh, alone = _afresh(target, lambda: same(told))
    small, there = (told, alone) if alone is not None else found or (world, None)
    if there is not None:
        # The lesson whole, its own snippet with it, from a fresh process
        # where it was seen there.
        for field in ("expected", "observed", "headline", "hint", "reproduce"):
            setattr(failure, field, getattr(there, field))
    if small is not world:
        facts = sum(1 for _ in world.kinds()) - 2  # the final and the log
        failure.world = "\n".join(
            [
                there.whole_world,
                f"(the world the test met, {facts} declared fact(s), made smaller:"
                " the same lesson here)",
            ]
        )
        failure.unnarrowed = ""
    failure.again = (again, small, target, reducible)
    if fresh and alone is None:
        _not_afresh(failure, target)
    return small is not world


def _names_told_smaller(failure: InvariantFailure | CallAborted) -> bool:
    """Tell `failure`, a report whose checks are not the case's (`judging`,
    `assert_names`), on the smallest world found whose checks are wrong
    the same way (the same cause: order, spelling or count); whether it was
    told again so."""
    names_on = getattr(failure, "names_on", None)
    wanted = getattr(failure, "names_wanted", None)
    if names_on is None or wanted is None:
        return False
    target, world = names_on
    level = wanted[1]

    def same(small: World) -> tuple[list[str], list[str]] | None:
        try:
            want = [check.name for check in truth(small)]
            names = [row[0] for row in fresh_rows(target, small)]
        except (InvariantFailure, ValueError, RuntimeError):
            return None
        if names == want or _names_cause(names, want) != failure.cause:
            return None
        return names, want

    found = smallest(world, "", same)
    if found is None:
        return False
    small, (names, want) = found
    failure.expected = f"checks [{shown_names(want, names)}]"
    failure.observed = f"checks [{shown_names(names, want)}]"
    failure.headline = headline_of(failure.observed, failure.expected)
    failure.names_wanted = (tuple(want), level)
    failure.names_on = (target, small)
    _made_smaller(
        failure,
        target,
        (world, small),
        "the report's checks are wrong the same way",
        lambda folder: lesson_test(
            small, None, names=tuple(want), level=level, folder=folder
        ),
    )
    return True


# --- comparing with the truth --------------------------------------------------------


def _names_hint(observed: Sequence[str], expected: Sequence[str]) -> str:
    if sorted(observed) == sorted(expected):
        return (
            "checks come in the contract's order: final, then files, results and"
            " receipts, each group in case order (not sorted)"
        )
    if len(observed) == len(expected):
        return (
            "a file check is named file:<normalised path>, a result check"
            " result:<tool>, a receipt check receipt:<call id>"
        )
    return (
        "one check per declared fact: the final, every file, every result (a"
        " repeated one too) and every receipt"
    )


def _names_cause(observed: Sequence[str], expected: Sequence[str]) -> str:
    """The cause of a report whose checks are not the case's: their order,
    their names, or how many there are (as `_names_hint` tells them apart)."""
    if sorted(observed) == sorted(expected):
        return "names:order"
    if len(observed) == len(expected):
        return "names:spelling"
    return "names:one-per-fact"


def verdict_cause(check: ExpectedCheck, passed: object) -> str:
    """The cause of a check the truth does not accept: the check's group
    (final, file, result or receipt).

    Every invariant that meets a wrong verdict on this group (truth,
    independence, order-insensitivity, a real run) makes the same key, so
    the reports tell the mistake once, as a truth lesson naming them all.
    The group, not the fact's kind: one mistake in a check's code is wrong
    on many kinds of fact (a result check that wants results in order fails
    a repeated result, a reordered run and a real run's), and a learner
    should read it once. The right verdict in the wrong words is a mistake
    of its own. `passed` None: a verdict that changed where it should not
    (which side is wrong aside), a wrong verdict of the group.
    """
    group = (check.kind or check.name).split(":", 1)[0]
    if isinstance(passed, bool) and passed is check.passed:
        return f"detail:{group}"
    return f"check:{group}"


def shown_names(names: Sequence[str], other: Sequence[str]) -> str:
    """Check names for a lesson: as written, or escaped (`ascii`) when the two
    lists differ but would print the same (another Unicode form, say)."""
    same = [unicodedata.normalize("NFC", name) for name in names] == [
        unicodedata.normalize("NFC", name) for name in other
    ]
    if list(names) != list(other) and same:
        return ", ".join(ascii(name) for name in names)
    return ", ".join(names)


def assert_truth(
    report: Any,
    expected: Sequence[ExpectedCheck],
    *,
    world: str = "",
    level: str = "hardened",
    context: str = "",
    only: Callable[[ExpectedCheck], bool] | None = None,
) -> tuple[Row, ...]:
    """Assert `report` holds exactly the `expected` checks; return its rows.

    `level` is the target's: at the course level a failing check's wording
    is the learner's choice except for the prefixes the course relies on.
    `context` is added to the world's words (a reordering, a perturbation).
    `only` narrows which checks' verdicts and details are judged (the names
    and their order always are), so a property about one kind of evidence
    fails only for that kind.
    """
    __tracebackhide__ = True
    rows = report_view(report)
    words = "\n".join(part for part in (world, context) if part)
    assert_names(rows, [check.name for check in expected], world=words, level=level)
    for row, check in zip(rows, expected, strict=True):
        if only is not None and not only(check):
            continue
        if not check.accepts(row[1], row[2], level):
            about = "\n".join(
                part for part in (about_check(world, check.name), context) if part
            )
            behind = f"the fact behind {check.name}: {check.fact}"
            try:
                fail(
                    world=f"{about}\n{behind}".lstrip(),
                    expected=check.shown(level),
                    observed=shown_row(row),
                    hint=hint_for(check, row[1], level),
                    cause=verdict_cause(check, row[1]),
                )
            except InvariantFailure as failure:
                seen_wrong(failure, check, row, level)
                raise
    return rows


def assert_names(
    rows: Sequence[Row], want: Sequence[str], *, world: str, level: str
) -> None:
    """Assert the report's checks (`rows`) are `want`, named and in order:
    else the names lesson every invariant gives (one cause: their order,
    their spelling or how many), whose plain test `judging` writes and
    whose world the suite's end reduces (`told_smaller`)."""
    __tracebackhide__ = True
    names = [row[0] for row in rows]
    if names == list(want):
        return
    try:
        fail(
            world=world,
            expected=f"checks [{shown_names(want, names)}]",
            observed=f"checks [{shown_names(names, want)}]",
            hint=placed(_names_hint(names, want), "evaluate_run"),
            cause=_names_cause(names, want),
        )
    except InvariantFailure as failure:
        failure.names_wanted = (tuple(want), level)  # judging's plain test
        raise


def seen_wrong(
    failure: InvariantFailure, check: ExpectedCheck, row: Row, level: str
) -> None:
    """Mark `failure` as one check's wrong verdict (`row`, against `check` at
    `level`) on the world being judged: judging() then shows only that
    check's facts, and writes the plain test that asserts it (`plain_test`);
    the suite's end reduces the world (`told_smaller`)."""
    failure.about = check.name
    failure.seen = (check, tuple(row), level)


def judged(target: Any, world: World, **build: Any) -> tuple[Row, ...]:
    """Build `world` afresh, evaluate it, and return its rows (the tree's path
    in any detail replaced by <tree>)."""
    __tracebackhide__ = True
    from judge.build import materialise

    with judging(world, target), materialise(world, target, **build) as built:
        return rows_without_tree(report_view(evaluate(target, built)), built.tree)
