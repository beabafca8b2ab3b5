"""The class page: what it shows, and its script in a real headless browser.

The page's own script has two self-test modes, each writing what it found
into `<pre id="selftest">`, which `chromium --dump-dom` prints:
`page.html#selftest` clicks every failing mark and checks that the dialog
shows that learner's lesson for that invariant; `page.html#selftest-view`
clicks every column's header twice and every filter, recording the rows
left visible, in order. The static page is read with html.parser: a column
per invariant of the level, the scores, a count per status, the failure
rate of each invariant, a mark for each kind of trouble. The browser tests
are skipped, saying so, where no Chromium is installed (.ci/run installs
Debian's `chromium` when it can).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from day7_verify.reports._baseline import compare
from day7_verify.reports._html import html_page
from day7_verify.reports._report import ClassReport, LearnerVerdict, lesson
from day7_verify.reports._verdict import OUTSIDE_WRITES, at_level
from judge.ordering import HARDENED_ONLY, invariants_at

# The page is our text, read by a real browser: nothing of it is the
# interpreter's.
pytestmark = pytest.mark.once

_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
BROWSER = next((found for name in _BROWSERS if (found := shutil.which(name))), None)
needs_browser = pytest.mark.skipif(
    BROWSER is None, reason="no headless Chromium installed (apt-get install chromium)"
)


def _run_in_browser(page: Path, mode: str) -> tuple[dict, str]:
    """What the page's self-test `mode` found, and the DOM the browser ended with."""
    dumped = subprocess.run(
        [
            BROWSER,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--dump-dom",
            f"{page.as_uri()}#{mode}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    match = re.search(r'<pre id="selftest">(.*?)</pre>', dumped.stdout, re.S)
    assert match, f"no self-test in the page the browser ran: {dumped.stderr[-2000:]}"
    return json.loads(html.unescape(match.group(1))), dumped.stdout


SETTINGS = {"level": "course", "profile": "ci", "timeout": 180.0, "memory_mib": 2048}
# Text a learner controls ends up on the page: it must stay text.
HOSTILE = "<img src=x onerror=\"document.title='owned'\"><script>owned()</script>"


def _report() -> ClassReport:
    names = ("surface", "truth", "read-only", "order-insensitivity")
    learners = (
        LearnerVerdict(
            "class/ada",
            "pass",
            11.2,
            "all 4 invariants hold",
            tuple((n, "pass") for n in names),
            statements={n: f"{n} holds." for n in names},
        ),
        LearnerVerdict(
            "class/bob",
            "fail",
            2.5,
            "2 of 4 invariants hold",
            (
                ("surface", "pass"),
                ("truth", "fail"),
                ("read-only", "fail"),
                ("order-insensitivity", "pass"),
            ),
            lessons=(
                lesson(
                    {
                        "invariant": "truth",
                        "headline": "got FAIL, but should be PASS",
                        "world": "file app.py holds the expected text",
                        "hint": "compare bytes",
                        "reproduce": "evaluate_run(run, ...)",
                    }
                ),
                lesson(
                    {"invariant": "read-only", "headline": HOSTILE, "observed": HOSTILE}
                ),
            ),
        ),
        LearnerVerdict(
            "class/cy",
            "timeout",
            180.4,
            "did not finish within 180 s while running t",
            (("surface", "pass"), ("truth", "timeout"), ("read-only", "not-run")),
            lessons=(
                lesson(
                    {
                        "invariant": "truth",
                        "topic": "hang",
                        "headline": "did not finish within 180 s",
                    }
                ),
            ),
            running={"test": "t", "invariant": "truth"},
            output_tail="tick\ntick",
        ),
        LearnerVerdict("class/dee", "error", 0.2, "the folder cannot be loaded: E"),
    )
    old = ClassReport(
        SETTINGS,
        (
            LearnerVerdict(
                "class/bob", "pass", 1, "ok", tuple((n, "pass") for n in names)
            ),
        ),
    )
    return compare(ClassReport(SETTINGS, learners, seconds=190.0), old)


def test_the_page_is_self_contained_and_escapes_what_learners_wrote():
    page = html_page(_report())
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert HOSTILE not in page and html.escape(HOSTILE, quote=True) in page
    assert page.count('class="open"') == 3  # bob's two failures, cy's timeout


@needs_browser
def test_every_failure_opens_its_lesson_in_a_real_browser(tmp_path: Path):
    page = tmp_path / "class.html"
    page.write_text(html_page(_report()), encoding="utf-8")
    found, dom = _run_in_browser(page, "selftest")
    assert found["problems"] == []
    assert found["links"] == found["opened"] == found["failing_cells"] == 3
    # What a learner wrote was shown, never run.
    assert "<title>day7-verify: 1 of 4 learner(s) pass</title>" in dom
    assert "owned()" not in re.sub(r"&lt;script&gt;owned\(\)", "", dom)


@needs_browser
def test_every_failure_of_a_class_of_twenty_opens_its_lesson(tmp_path: Path):
    page = tmp_path / "class.html"
    page.write_text(html_page(class_of_twenty()), encoding="utf-8")
    found, _ = _run_in_browser(page, "selftest")
    assert found["problems"] == []
    assert found["links"] == found["opened"] == found["failing_cells"] == 18


# --- a class a teacher works from ---------------------------------------------

#: The invariants a course-level report has for every learner, in order.
COURSE = [name for name, judged in invariants_at("course") if judged] + [OUTSIDE_WRITES]


def _learner(name: str, status: str, seconds: float, percent: float | None, **how):
    """A learner of the class, its invariants as `at_level` lists them for real.

    `how` says what went wrong: `wrong` the invariants that do not hold,
    `stopped` the invariant running when the run stopped (as `status`), after
    which nothing ran.
    """
    wrong = how.get("wrong", ())
    stopped = how.get("stopped")
    said: list[tuple[str, str]] = []
    if status != "error":
        for invariant in COURSE:
            if invariant == stopped:
                said.append((invariant, status))
                break
            said.append((invariant, "fail" if invariant in wrong else "pass"))
    score = None
    if percent is not None:
        score = {"percent": percent, "earned": percent / 4, "possible": 25.0}
    verdict = LearnerVerdict(
        f"cohort/{name}/agent",
        status,
        seconds,
        f"{name} was judged",
        tuple(said),
        lessons=tuple(
            lesson({"invariant": n, "headline": f"{n} broke for {name}"})
            for n, s in said
            if s != "pass"
        ),
        statements={n: f"{n} holds." for n in COURSE},
        score=score,
    )
    return at_level(verdict, "course")


def class_of_twenty(level: str = "course") -> ClassReport:
    """Twenty learners: 6 pass, 7 give wrong verdicts, 3 hang, 2 crash, 1 runs
    out of memory, 1 cannot be loaded; scores with ties, and one not computed."""
    learners = [
        _learner("ada", "pass", 41.0, 100.0),
        _learner("bob", "fail", 38.5, 62.5, wrong=("truth", "read-only")),
        _learner("cy", "timeout", 180.4, 20.0, stopped="truth"),
        _learner("dee", "error", 0.3, 0.0),
        _learner("eve", "pass", 35.2, 100.0),
        _learner("fay", "fail", 40.1, 87.5, wrong=("truth",)),
        _learner("gus", "crashed", 12.9, 8.0, stopped="report-shape"),
        _learner("hal", "fail", 39.9, 62.5, wrong=("determinism", "stateless")),
        _learner("ivy", "pass", 52.3, None),
        _learner("jo", "timeout", 180.2, 50.0, stopped="read-only"),
        _learner("kai", "fail", 44.4, 75.0, wrong=("truth", "order-insensitivity")),
        _learner("lea", "out-of-memory", 61.0, 33.3, stopped="end-to-end"),
        _learner("max", "pass", 36.6, 100.0),
        _learner("ned", "fail", 37.0, 95.8, wrong=(OUTSIDE_WRITES,)),
        _learner("oz", "crashed", 3.1, 4.2, stopped="surface"),
        _learner("pam", "fail", 42.0, 50.0, wrong=("truth", "tampered-log", "surface")),
        _learner("quin", "pass", 33.3, 100.0),
        _learner("ray", "timeout", 180.9, 29.2, stopped="truth"),
        _learner("sue", "fail", 45.5, 91.7, wrong=("render-grammar",)),
        _learner("tom", "pass", 30.8, 100.0),
    ]
    if level != "course":
        learners = [at_level(v, level) for v in learners]
    settings = {**SETTINGS, "level": level, "isolation": "sandbox"}
    return ClassReport(settings, tuple(learners), seconds=900.0)


class _Element:
    def __init__(self, tag: str, attrs: dict[str, str], row: str | None):
        self.tag, self.attrs, self.text = tag, attrs, ""
        self.row = row  # the learner of the table row it is in

    def has_class(self, name: str) -> bool:
        return name in self.attrs.get("class", "").split()


class _Elements(HTMLParser):
    """Every element of a page with its attributes and its text, in order."""

    _VOID = frozenset({"meta", "br", "img", "input", "link", "hr", "wbr"})

    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.found: list[_Element] = []
        self._open: list[_Element] = []
        self.feed(page)
        self.close()

    def handle_starttag(self, tag, attrs):
        rows = [e.attrs.get("data-learner") for e in self._open if e.tag == "tr"]
        element = _Element(
            tag, {name: value or "" for name, value in attrs}, (rows or [None])[-1]
        )
        self.found.append(element)
        if tag not in self._VOID:
            self._open.append(element)

    def handle_endtag(self, tag):
        while self._open:
            if self._open.pop().tag == tag:
                break

    def handle_data(self, data):
        for element in self._open:
            element.text += data

    def select(self, tag: str, cls: str = "", **attrs: str) -> list[_Element]:
        return [
            element
            for element in self.found
            if element.tag == tag
            and (not cls or element.has_class(cls))
            and all(
                element.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items()
            )
        ]


def _columns_of(page: _Elements) -> list[str]:
    return [th.attrs["data-name"] for th in page.select("th", scope="col")]


def test_the_page_has_a_column_for_each_invariant_of_the_level_only():
    course = _columns_of(_Elements(html_page(class_of_twenty("course"))))
    assert course == ["learner", "status", "score", "time", *COURSE]
    assert not HARDENED_ONLY & set(course)
    hardened = _columns_of(_Elements(html_page(class_of_twenty("hardened"))))
    assert HARDENED_ONLY <= set(hardened)
    assert hardened[4:] == [n for n, _ in invariants_at("hardened")] + [OUTSIDE_WRITES]


def test_the_page_shows_scores_counts_per_status_and_the_failure_rates():
    report = class_of_twenty()
    page = _Elements(html_page(report))
    rows = page.select("tr")[1:]
    assert [row.attrs["data-learner"] for row in rows] == [
        learner.path for learner in report.learners
    ]
    scores = [cell.text for cell in page.select("td", "score")]
    assert scores[:4] == ["100.0", "62.5", "20.0", "0.0"]
    assert scores[8] == "—"  # ivy's score was not computed
    # A count per status, and one for the learners who do not pass.
    counts = {
        button.attrs["data-filter"]: int(button.text.split()[-1])
        for button in page.select("button", "filter")
    }
    assert counts == {
        "all": 20,
        "not-passing": 14,
        "pass": 6,
        "fail": 7,
        "timeout": 3,
        "out-of-memory": 1,
        "crashed": 2,
        "error": 1,
    }
    # One bar per column, counting (here, by hand) who does not pass it.
    bars = {li.attrs["data-invariant"]: li for li in page.select("li", "rate")}
    assert list(bars) == COURSE
    # truth: bob, fay, kai, pam wrong; cy and ray hung on it; dee, gus and
    # oz never reached it.
    assert bars["truth"].attrs["data-failing"] == "9"
    assert bars["truth"].attrs["data-judged"] == "20"
    assert "9 of 20 · 45%" in bars["truth"].text
    bar = page.select("span", "bar")[COURSE.index("truth")]
    assert bar.attrs["aria-label"] == (
        "truth: 9 of 20 learner(s) do not pass (4 wrong verdict, 2 hang,"
        " 3 incomplete or not reached)"
    )
    # surface: pam wrong, oz crashed on it, dee never loaded.
    assert bars["surface"].attrs["data-failing"] == "3"
    assert bars[OUTSIDE_WRITES].attrs["data-failing"] == "8"


def _mark(page: _Elements, name: str, invariant: str) -> tuple[str, str]:
    """The symbol and the words of learner `name`'s mark for `invariant`."""
    for cell in page.select("td", "cell"):
        if cell.row == f"cohort/{name}/agent" and cell.attrs["title"].startswith(
            f"{invariant}: "
        ):
            return cell.text.strip(), cell.attrs["title"].split(": ", 1)[1]
    raise AssertionError(f"no mark for {name} / {invariant}")


def test_each_kind_of_trouble_has_its_own_mark_symbol_and_words():
    page = _Elements(html_page(class_of_twenty()))
    marks = {
        "pass": _mark(page, "ada", "truth"),
        "fail": _mark(page, "bob", "truth"),
        "timeout": _mark(page, "cy", "truth"),
        "crashed": _mark(page, "gus", "report-shape"),
        "out-of-memory": _mark(page, "lea", "end-to-end"),
        "not-run": _mark(page, "cy", "store-kinds"),
    }
    assert marks["fail"] == ("✗", "wrong verdict: does not hold")
    assert marks["timeout"][1].startswith("hang:")
    assert marks["crashed"][1].startswith("crash:")
    assert marks["out-of-memory"][1].startswith("crash:")
    # Told apart by their symbols and by their words, not by colour alone.
    assert len({symbol for symbol, _ in marks.values()}) == len(marks)
    assert len({words for _, words in marks.values()}) == len(marks)
    legend = page.select("ul", "legend")[0]
    for state, (symbol, words) in marks.items():
        assert f"{symbol} {words}" in legend.text, state
    for words in ("◐ incomplete", "– skipped"):  # no learner here has these
        assert words in legend.text
    # The kinds of trouble are coloured apart too; each opens its lesson and
    # says what it is to a screen reader.
    assert {
        cell.attrs["class"].split()[2] for cell in page.select("td", "failing")
    } == {"k-wrong", "k-hang", "k-crash"}
    links = page.select("a", "open")
    assert len(links) == 12 + 3 + 3  # wrong verdicts, hangs, crashes
    assert all(link.attrs["aria-label"] for link in links)


def test_a_learner_named_to_attack_the_page_stays_text():
    report = ClassReport(
        SETTINGS, (LearnerVerdict(f"cohort/{HOSTILE}", "error", 0.1, "no"),)
    )
    page = html_page(report)
    assert HOSTILE not in page and html.escape(HOSTILE, quote=True) in page
    assert "<img" not in page


def _order(report: ClassReport, key, reverse: bool = False) -> list[str]:
    """The learners sorted by `key` (None last either way), ties in path order."""
    known = [v for v in report.learners if key(v) is not None]
    unknown = [v.path for v in report.learners if key(v) is None]
    # Python's sort is stable, reversed too: a tie keeps the path order.
    return [v.path for v in sorted(known, key=key, reverse=reverse)] + unknown


@needs_browser
def test_sorting_and_filtering_in_a_real_browser(tmp_path: Path):
    report = class_of_twenty()
    page = tmp_path / "class.html"
    page.write_text(html_page(report), encoding="utf-8")
    found, dom = _run_in_browser(page, "selftest-view")
    paths = [learner.path for learner in report.learners]
    assert found["initial"] == paths
    assert found["sorted_initially"] == ["learner ascending"]
    sorts = found["sorts"]
    assert list(sorts) == ["learner", "status", "score", "time", *COURSE]
    # The self-test clicks each header twice. The table starts sorted by
    # learner, so there the first click reverses it; elsewhere the first
    # click sorts ascending, the second descending.
    learner = sorts.pop("learner")
    assert learner["first"] == {"rows": paths[::-1], "sorted": ["learner descending"]}
    assert learner["second"] == {"rows": paths, "sorted": ["learner ascending"]}
    for name, clicks in sorts.items():
        # aria-sort is on the header sorted by, and on no other.
        assert clicks["first"]["sorted"] == [f"{name} ascending"]
        assert clicks["second"]["sorted"] == [f"{name} descending"]

    def percent(learner):
        return None if learner.score is None else learner.score["percent"]

    # By score: numerically (100 after 95.8), ties (62.5, 50) in path order,
    # and ivy, whose score was not computed, last both ways.
    by_score = _order(report, percent)
    assert by_score[:3] == ["cohort/dee/agent", "cohort/oz/agent", "cohort/gus/agent"]
    assert by_score[-1] == "cohort/ivy/agent"
    assert sorts["score"]["first"]["rows"] == by_score
    by_score_down = _order(report, percent, reverse=True)
    assert by_score_down[:2] == ["cohort/ada/agent", "cohort/eve/agent"]
    assert by_score_down[-1] == "cohort/ivy/agent"
    assert sorts["score"]["second"]["rows"] == by_score_down
    seconds = sorts["time"]["first"]["rows"]
    assert seconds == _order(report, lambda learner: learner.seconds)
    assert seconds[-3:] == ["cohort/jo/agent", "cohort/cy/agent", "cohort/ray/agent"]
    assert sorts["time"]["second"]["rows"] == seconds[::-1]
    best_first = ("pass", "fail", "timeout", "out-of-memory", "crashed", "error")
    assert sorts["status"]["first"]["rows"] == _order(
        report, lambda learner: best_first.index(learner.status)
    )
    # By an invariant: its marks grouped in the legend's order.
    legend = (
        "pass",
        "fail",
        "timeout",
        "crashed",
        "out-of-memory",
        "incomplete",
        "not-run",
        "skip",
    )
    for name in ("truth", "surface", OUTSIDE_WRITES):
        by_mark = _order(report, lambda v, n=name: legend.index(v.invariant_status(n)))
        assert sorts[name]["first"]["rows"] == by_mark, name
        assert sorts[name]["second"]["rows"] == _order(
            report, lambda v, n=name: legend.index(v.invariant_status(n)), True
        )
    # Filters: the learners who do not pass, then each status.
    filters = found["filters"]
    assert list(filters) == ["all", "not-passing", *best_first]
    assert filters["all"]["rows"] == paths
    not_passing = [v.path for v in report.learners if not v.passed]
    assert len(not_passing) == 14
    assert filters["not-passing"]["rows"] == not_passing
    assert filters["not-passing"]["showing"] == "showing 14 of 20 learner(s)"
    assert filters["timeout"] == {
        "rows": ["cohort/cy/agent", "cohort/jo/agent", "cohort/ray/agent"],
        "showing": "showing 3 of 20 learner(s)",
        "pressed": ["timeout"],
    }
    troubles = ("timeout", "out-of-memory", "crashed")
    for status in best_first:
        # A trouble's filter: that status, or any invariant of it.
        assert filters[status]["rows"] == [
            v.path
            for v in report.learners
            if v.status == status
            or (status in troubles and status in dict(v.invariants).values())
        ]
    # A filter and a sort at once.
    assert found["not_passing_by_score_descending"] == [
        path for path in by_score_down if path in not_passing
    ]
    assert "<title>day7-verify: 6 of 20 learner(s) pass</title>" in dom


# --- calls that hung or crashed, as classified from a child's result ----------


def _stopped_calls_learner(path: str, topic: str, observed: str) -> LearnerVerdict:
    """The verdict classify() gives a run that went to its end while every call
    to evaluate_run in `truth` and `read-only` hung or crashed its worker."""
    from day7_verify.cohort._supervise import Finished
    from day7_verify.reports._evidence import Progress
    from day7_verify.reports._verdict import Limits, classify

    names = ("surface", "truth", "read-only", "order-insensitivity")
    summary = {
        "verification": "FAIL",
        "invariants": [
            {"name": n, "status": "FAIL" if n in ("truth", "read-only") else "PASS"}
            for n in names
        ],
        "lessons": [
            {
                "invariant": n,
                "topic": topic,
                "headline": f"evaluate_run(...) {observed}",
                "cause": f"{topic}:evaluate_run",
                "test": f"t::{n}",
            }
            for n in ("truth", "read-only")
        ],
    }
    result = {
        "phase": "suite",
        "exit_code": 1,
        "complete": True,
        "summary": summary,
        "outside_writes": None,
    }
    finished = Finished(
        returncode=1,
        timed_out=False,
        seconds=9.0,
        peak_rss_kib=1,
        output="",
        output_bytes=0,
    )
    return classify(
        path=path,
        limits=Limits(timeout=180.0, memory=2 << 30),
        finished=finished,
        result=result,
        untrusted=None,
        progress=Progress(phase="suite"),
        seconds=9.0,
    )


@needs_browser
def test_a_call_that_hung_or_crashed_is_marked_so_in_a_real_browser(tmp_path: Path):
    """A learner whose calls hung (the suite's per-call clock) or killed the
    worker (os._exit) shows hang and crash marks, read aloud as such, never
    "wrong verdict"; its status stays `fail`: the run judged everything."""
    hangs = _stopped_calls_learner("class/hangs", "hang", "did not return within 5 s")
    exits = _stopped_calls_learner(
        "class/exits", "crash", "crashed the process it ran in"
    )
    assert (hangs.status, exits.status) == ("fail", "fail")
    assert dict(hangs.invariants)["truth"] == "timeout"
    assert dict(exits.invariants)["read-only"] == "crashed"
    assert dict(exits.invariants)["surface"] == "pass"
    page = tmp_path / "class.html"
    page.write_text(
        html_page(ClassReport(SETTINGS, (exits, hangs), seconds=20.0)),
        encoding="utf-8",
    )
    found, dom = _run_in_browser(page, "selftest")
    assert found["problems"] == []
    assert found["links"] == found["opened"] == found["failing_cells"] == 4
    shown = _Elements(dom)
    hang_words = "hang: a call into the folder never returned in time"
    crash_words = "crash: the process running the folder's code died"
    for learner, symbol, words in (
        ("class/hangs", "∞", hang_words),
        ("class/exits", "⚡\ufe0e", crash_words),
    ):
        for invariant in ("truth", "read-only"):
            [link] = [
                a
                for a in shown.select("a", "open")
                if a.attrs.get("data-learner") == learner
                and a.attrs.get("data-invariant") == invariant
            ]
            assert link.text.strip() == symbol, (learner, invariant)
            assert link.attrs["aria-label"] == f"{invariant}: {words}"
            assert "wrong verdict" not in link.attrs["aria-label"]
    # A teacher filtering for hangs or crashes finds them, though their
    # status is fail: the filters agree with the marks (issue 36).
    viewed, _ = _run_in_browser(page, "selftest-view")
    assert viewed["filters"]["timeout"]["rows"] == ["class/hangs"]
    assert viewed["filters"]["crashed"]["rows"] == ["class/exits"]
    assert viewed["filters"]["fail"]["rows"] == ["class/exits", "class/hangs"]
