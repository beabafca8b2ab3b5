"""The class as one self-contained web page a teacher works from.

A headline (k of n learners pass), a count per status, the failure rate of
each invariant as a small bar chart, then a table: a row a learner (status,
score, time), a column an invariant of the report's level, every column
sortable by its header, the rows filtered by status. Each mark says what
happened by its symbol and its text, not only its colour. Inline style and
script, no network, so it works offline and from file://. Every failing
cell is a link to its lesson, which the script opens in a dialog (without
the script the link still jumps to the lesson, listed below the table).
With a baseline, changed cells and learners are marked. Every piece of text
comes from the learners' code or output at some remove, so all of it is
escaped.

Two self-test modes let a headless browser check the script
(tests/bundled/test_command_html.py), each writing what it found into
`<pre id="selftest">`, which the browser's dump of the page holds:
`page.html#selftest` opens every failure's lesson in turn;
`page.html#selftest-view` sorts by every column both ways and applies every
filter, recording the rows left visible, in order, each time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any, NamedTuple

from day7_verify.reports._report import (
    STATUSES,
    ClassReport,
    LearnerVerdict,
    lessons_by_invariant,
    short_names,
)
from day7_verify.reports._run import run_line
from judge.ordering import invariants_at

__all__ = ["MARKS", "html_page"]

_FAILING = frozenset({"fail", "incomplete", "timeout", "crashed", "out-of-memory"})


class Mark(NamedTuple):
    """How one invariant status is drawn: its kind (the colour), symbol and words."""

    kind: str
    symbol: str
    label: str


#: Every invariant status's mark, in the legend's order, which is also the
#: order an invariant's column sorts in (what held first, then what went
#: wrong, worst kind last, then what was never judged).
MARKS: dict[str, Mark] = {
    "pass": Mark("pass", "✓", "holds"),
    "fail": Mark("wrong", "✗", "wrong verdict: does not hold"),
    "timeout": Mark("hang", "∞", "hang: a call into the folder never returned in time"),
    # U+FE0E asks for the text glyph: an emoji would be a colour of its own.
    "crashed": Mark(
        "crash", "⚡\ufe0e", "crash: the process running the folder's code died"
    ),
    "out-of-memory": Mark("crash", "M", "crash: out of memory while it ran"),
    "incomplete": Mark(
        "incomplete", "◐", "incomplete: some of its tests never finished"
    ),
    "not-run": Mark("not-run", "·", "not reached: the run stopped before it"),
    "skip": Mark("skip", "–", "skipped: not judged at this level"),
}
_UNKNOWN = Mark("other", "?", "unknown status")

#: A learner's status drawn with the mark of the same kind of trouble.
_STATUS_MARKS: dict[str, Mark] = {
    "pass": Mark("pass", "✓", "passes"),
    "fail": Mark("wrong", "✗", "a wrong verdict: some invariant does not hold"),
    "timeout": Mark("hang", "∞", "hang: the clock ran out"),
    "out-of-memory": Mark("crash", "M", "crash: out of memory"),
    "crashed": Mark("crash", "⚡\ufe0e", "crash: the run died"),
    "error": Mark("crash", "⊘", "error: the folder cannot be loaded"),
}

#: The chart's parts of a bar: each kind of not passing, other = never judged.
_RATE_KINDS: tuple[tuple[str, str], ...] = (
    ("wrong", "wrong verdict"),
    ("hang", "hang"),
    ("crash", "crash"),
    ("other", "incomplete or not reached"),
)

_STYLE = """
:root { --pass:#1a7f37; --fail:#cf222e; --warn:#9a6700; --crash:#6e40c9;
  --muted:#6e7781; --line:#d0d7de; --bg:#ffffff; --head:#f6f8fa;
  --track:#eaeef2; font-family:system-ui, sans-serif; }
body { margin:1.5rem; color:#1f2328; background:var(--bg); }
h1 { font-size:1rem; margin:0; color:var(--muted); font-weight:600; }
h2 { font-size:1.15rem; margin-top:2rem; }
.verdict { font-size:1.6rem; font-weight:700; margin:.1rem 0 .2rem; }
.settings { color:var(--muted); margin:0 0 .8rem; }
.filters { display:flex; flex-wrap:wrap; gap:.4rem; align-items:center;
  margin:.4rem 0; }
.filters button { font:inherit; font-size:.9rem; border:1px solid var(--line);
  background:var(--head); color:inherit; border-radius:999px;
  padding:.15rem .7rem; cursor:pointer; }
.filters button .n { font-weight:700; font-variant-numeric:tabular-nums; }
.filters button[aria-pressed="true"] { background:#1f2328; color:#fff;
  border-color:#1f2328; }
.filters button:disabled { opacity:.5; cursor:default; }
.filters .showing { color:var(--muted); margin-left:.4rem; }
figure.rates { margin:.8rem 0 1rem; }
figure.rates figcaption { font-weight:600; font-size:.95rem; }
figure.rates figcaption span { color:var(--muted); font-weight:400; }
.rates ol { list-style:none; margin:.3rem 0 0; padding:0;
  columns:3 22rem; column-gap:2.5rem; }
.rates li { display:grid; grid-template-columns:13rem 1fr 6.5rem;
  gap:.5rem; align-items:center; font-size:.8rem; break-inside:avoid;
  padding:.06rem 0; }
.rates .name { overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
.rates .bar { display:flex; height:.75rem; background:var(--track);
  border-radius:2px; overflow:hidden; }
.rates .count { text-align:right; font-variant-numeric:tabular-nums; }
.seg.k-wrong { background:var(--fail); }
.seg.k-hang { background:var(--warn); }
.seg.k-crash { background:var(--crash); }
.seg.k-other { background:var(--muted); }
.wrap { display:inline-block; max-width:100%; overflow-x:auto;
  border:1px solid var(--line); border-radius:6px; }
.swatch { display:inline-block; width:.7rem; height:.7rem; border-radius:2px;
  vertical-align:-.05rem; }
table.grid { border-collapse:collapse; font-size:.9rem; }
.grid th, .grid td { border-bottom:1px solid var(--line); padding:.25rem .3rem; }
.grid thead th { background:var(--head); position:sticky; top:0;
  vertical-align:bottom; text-align:left; }
.grid thead button.sort { font:inherit; color:inherit; background:none;
  border:0; padding:0; cursor:pointer; text-align:inherit; }
.grid thead button.sort:hover { text-decoration:underline; }
.grid thead th[aria-sort="ascending"] button.sort::after { content:" ▲"; }
.grid thead th[aria-sort="descending"] button.sort::after { content:" ▼"; }
.grid th.inv { font-weight:500; white-space:nowrap; padding:.4rem .15rem; }
.grid th.inv button.sort { writing-mode:vertical-rl; transform:rotate(180deg);
  max-height:15rem; overflow:hidden; text-overflow:ellipsis; }
.grid th.learner { text-align:left; position:sticky; left:0;
  background:var(--bg); max-width:22rem; overflow:hidden;
  text-overflow:ellipsis; white-space:nowrap; font-weight:500; }
.grid thead th.learner { background:var(--head); z-index:1; }
.grid td.cell { text-align:center; min-width:1.3rem; padding:.2rem .1rem; }
.grid td.num { text-align:right; font-variant-numeric:tabular-nums; }
.grid td.time { color:var(--muted); }
.grid tbody tr:hover td, .grid tbody tr:hover th { background:#f3f6fa; }
.mark { display:inline-block; min-width:1.15rem; line-height:1.25rem;
  border-radius:4px; text-align:center; font-weight:700;
  text-decoration:none; }
.k-pass .mark { color:var(--pass); }
.k-wrong .mark { background:var(--fail); color:#fff; }
.k-hang .mark { background:var(--warn); color:#fff; }
.k-crash .mark { background:var(--crash); color:#fff; }
.k-incomplete .mark { color:var(--warn); box-shadow:inset 0 0 0 1.5px var(--warn); }
.k-skip .mark, .k-not-run .mark, .k-other .mark { color:var(--muted);
  font-weight:400; }
td.status .mark { min-width:1rem; line-height:1.1rem; font-size:.8rem;
  margin-right:.3rem; }
.filters .mark { min-width:1rem; line-height:1.1rem; font-size:.8rem; }
.chg-newly-failing { outline:2px solid var(--fail); outline-offset:-2px; }
.chg-fixed { outline:2px solid var(--pass); outline-offset:-2px; }
.status, .change { font-weight:600; white-space:nowrap; }
.change { font-weight:400; }
.s-pass { color:var(--pass); }
.s-fail { color:var(--fail); }
.s-crashed, .s-error, .s-out-of-memory { color:var(--crash); }
.s-timeout { color:var(--warn); }
.status a { color:inherit; }
ul.legend { list-style:none; padding:0; display:flex; flex-wrap:wrap;
  gap:.3rem 1.2rem; color:#424a53; font-size:.85rem; margin:.6rem 0; }
ul.legend li { white-space:nowrap; }
p.legend { color:var(--muted); font-size:.85rem; margin:.6rem 0; }
.lesson { border:1px solid var(--line); border-radius:6px; padding:.6rem .9rem;
  margin:.6rem 0; }
.lesson:target { border-color:var(--fail); box-shadow:0 0 0 2px #ffebe9; }
.lesson h4 { margin:0 0 .3rem; }
.lesson .who { color:var(--muted); font-weight:400; }
.lesson .headline { font-weight:600; white-space:pre-wrap; }
.lesson dt { color:var(--muted); font-size:.85rem; margin-top:.4rem; }
.lesson dd { margin:0 0 0 .8rem; white-space:pre-wrap; }
pre { background:var(--head); padding:.5rem; border-radius:4px;
  overflow-x:auto; white-space:pre-wrap; }
dialog { max-width:min(60rem, 92vw); border:1px solid var(--line);
  border-radius:8px; padding:1rem 1.2rem; }
dialog::backdrop { background:rgba(0,0,0,.35); }
dialog .close { float:right; }
"""

_SCRIPT = """
(function () {
  'use strict';
  var view = document.getElementById('lesson-view');
  var body = view.querySelector('.body');
  function open(link) {
    var target = document.getElementById(link.getAttribute('href').slice(1));
    if (!target) { return false; }
    body.innerHTML = '';
    body.appendChild(target.cloneNode(true));
    if (!view.open) { view.showModal(); }
    return true;
  }
  document.addEventListener('click', function (event) {
    var link = event.target.closest('a.open');
    if (link && open(link)) { event.preventDefault(); }
  });
  view.querySelector('.close').addEventListener('click', function () { view.close(); });

  var grid = document.getElementById('grid');
  var tbody = grid.tBodies[0];
  var rows = Array.prototype.slice.call(tbody.rows);
  var heads = Array.prototype.slice.call(grid.tHead.rows[0].cells);
  var filters = Array.prototype.slice.call(document.querySelectorAll('button.filter'));
  var showing = document.getElementById('showing');

  // A cell's sort key; null (no key: a score not computed) sorts last either way.
  function keyOf(row, column, numeric) {
    var raw = row.cells[column].getAttribute('data-sort');
    if (raw === null || raw === '') { return null; }
    return numeric ? Number(raw) : raw;
  }
  // Ties keep the rows' first order (by path), ascending or descending, so a
  // sort is stable and the same page always sorts the same way.
  function compare(a, b, column, numeric, direction) {
    var x = keyOf(a, column, numeric);
    var y = keyOf(b, column, numeric);
    if (x === null || y === null) {
      if (x !== y) { return x === null ? 1 : -1; }
    } else if (x !== y) {
      return (x < y ? -1 : 1) * direction;
    }
    return Number(a.getAttribute('data-index')) - Number(b.getAttribute('data-index'));
  }
  function sortBy(head) {
    var column = heads.indexOf(head);
    var direction = head.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
    var numeric = head.getAttribute('data-type') === 'number';
    rows.slice().sort(function (a, b) {
      return compare(a, b, column, numeric, direction);
    }).forEach(function (row) { tbody.appendChild(row); });
    // aria-sort belongs on the one header the table is sorted by.
    heads.forEach(function (other) { other.removeAttribute('aria-sort'); });
    head.setAttribute('aria-sort', direction === 1 ? 'ascending' : 'descending');
  }
  grid.tHead.addEventListener('click', function (event) {
    var button = event.target.closest('button.sort');
    if (button) { sortBy(button.closest('th')); }
  });

  function shows(row, filter) {
    var status = row.getAttribute('data-status');
    if (filter === 'all') { return true; }
    if (filter === 'not-passing') { return status !== 'pass'; }
    // A trouble filter (timeout, crashed, out-of-memory) shows a learner
    // with that status or any invariant of that status (data-has).
    var has = (row.getAttribute('data-has') || '').split(' ');
    return status === filter || has.indexOf(filter) >= 0;
  }
  function filterBy(filter) {
    var shown = 0;
    rows.forEach(function (row) {
      row.hidden = !shows(row, filter);
      if (!row.hidden) { shown += 1; }
    });
    filters.forEach(function (button) {
      var pressed = button.getAttribute('data-filter') === filter;
      button.setAttribute('aria-pressed', pressed ? 'true' : 'false');
    });
    showing.textContent = 'showing ' + shown + ' of ' + rows.length + ' learner(s)';
  }
  filters.forEach(function (button) {
    button.addEventListener('click', function () {
      filterBy(button.getAttribute('data-filter'));
    });
  });

  function report(found) {
    var out = document.createElement('pre');
    out.id = 'selftest';
    out.textContent = JSON.stringify(found);
    document.body.appendChild(out);
  }
  function lessonSelftest() {
    var links = document.querySelectorAll('a.open');
    var found = { links: links.length, opened: 0, problems: [],
      failing_cells: document.querySelectorAll('td.failing').length };
    links.forEach(function (link) {
      link.click();
      var shown = body.querySelector('.lesson');
      var want = link.getAttribute('data-invariant');
      var who = link.getAttribute('data-learner');
      if (!view.open || !shown) {
        found.problems.push(who + ' / ' + want + ': no lesson opened');
      } else if (shown.getAttribute('data-invariant') !== want ||
                 shown.getAttribute('data-learner') !== who ||
                 !shown.querySelector('.headline').textContent.trim()) {
        found.problems.push(who + ' / ' + want + ': the wrong lesson opened');
      } else {
        found.opened += 1;
      }
      view.close();
    });
    report(found);
  }
  // The learners the table shows, top to bottom.
  function visible() {
    return Array.prototype.slice.call(tbody.rows).filter(function (row) {
      return !row.hidden;
    }).map(function (row) { return row.getAttribute('data-learner'); });
  }
  function sorted() {
    return heads.filter(function (head) { return head.hasAttribute('aria-sort'); })
      .map(function (head) {
        return head.getAttribute('data-name') + ' ' + head.getAttribute('aria-sort');
      });
  }
  // Clicks as a teacher would: each header twice, then each filter.
  function viewSelftest() {
    var found = { initial: visible(), sorted_initially: sorted(), sorts: {},
      filters: {} };
    heads.forEach(function (head) {
      var button = head.querySelector('button.sort');
      button.click();
      var first = { rows: visible(), sorted: sorted() };
      button.click();
      found.sorts[head.getAttribute('data-name')] = {
        first: first, second: { rows: visible(), sorted: sorted() } };
    });
    heads[0].querySelector('button.sort').click();
    filters.forEach(function (button) {
      if (button.disabled) { return; }
      button.click();
      found.filters[button.getAttribute('data-filter')] = {
        rows: visible(), showing: showing.textContent,
        pressed: filters.filter(function (other) {
          return other.getAttribute('aria-pressed') === 'true';
        }).map(function (other) { return other.getAttribute('data-filter'); }) };
    });
    // A filter and a sort together: the rows it keeps, in the sort's order.
    document.querySelector('button.filter[data-filter="not-passing"]').click();
    var score = heads.filter(function (head) {
      return head.getAttribute('data-name') === 'score';
    })[0].querySelector('button.sort');
    score.click();
    score.click();
    found.not_passing_by_score_descending = visible();
    report(found);
  }
  if (location.hash === '#selftest') { lessonSelftest(); }
  if (location.hash === '#selftest-view') { viewSelftest(); }
})();
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _lesson_id(row: int, invariant: str) -> str:
    return f"L{row}-{invariant}"


def _level_invariants(report: ClassReport) -> list[str]:
    """The invariants the page has a column for: those of the report's level.

    A rule of the other level is `skip` for every learner, so its column says
    nothing; it is dropped unless some learner has it otherwise (an old
    report), and names the level does not know are kept: nothing is hidden.
    """
    names = report.invariant_names()
    level = report.settings.get("level")
    if level not in ("course", "hardened"):
        return names
    other_level = {name for name, judged in invariants_at(str(level)) if not judged}
    return [
        name
        for name in names
        if name not in other_level
        or any(
            learner.invariant_status(name) not in (None, "skip")
            for learner in report.learners
        )
    ]


def _percent(learner: LearnerVerdict) -> float | None:
    """The learner's score in percent; None when no score was computed."""
    value = (learner.score or {}).get("percent")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _score_text(percent: float | None) -> str:
    return "—" if percent is None else f"{percent:.1f}"


def _share(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


class Rate(NamedTuple):
    """How many learners an invariant is judged for, and of them how many do
    not pass it, by kind (see _RATE_KINDS)."""

    name: str
    judged: int
    failing: Mapping[str, int]

    @property
    def total(self) -> int:
        return sum(self.failing.values())


def _failure_rate(learners: Sequence[LearnerVerdict], name: str) -> Rate:
    """The learners for whom `name` is not `pass`; a `skip` is not judged at all."""
    counts = dict.fromkeys((kind for kind, _ in _RATE_KINDS), 0)
    judged = 0
    for learner in learners:
        status = learner.invariant_status(name)
        if status == "skip":
            continue
        judged += 1
        if status == "pass":
            continue
        kind = MARKS.get(status or "", _UNKNOWN).kind
        counts[kind if kind in counts else "other"] += 1
    return Rate(name, judged, counts)


def _rate_words(rate: Rate) -> str:
    parts = ", ".join(
        f"{rate.failing[kind]} {label}"
        for kind, label in _RATE_KINDS
        if rate.failing[kind]
    )
    words = f"{rate.name}: {rate.total} of {rate.judged} learner(s) do not pass"
    return f"{words} ({parts})" if parts else words


def _chart(rates: Sequence[Rate]) -> str:
    """One bar per invariant: its share of learners not passing, split by kind."""
    items = []
    for rate in rates:
        words = _e(_rate_words(rate))
        segments = "".join(
            f'<span class="seg k-{kind}"'
            f' style="width:{_share(rate.failing[kind], rate.judged):.2f}%"></span>'
            for kind, _ in _RATE_KINDS
            if rate.failing[kind]
        )
        items.append(
            f'<li class="rate" data-invariant="{_e(rate.name)}"'
            f' data-failing="{rate.total}" data-judged="{rate.judged}"'
            f' title="{words}"><span class="name">{_e(rate.name)}</span>'
            f'<span class="bar" role="img" aria-label="{words}">{segments}</span>'
            f'<span class="count">{rate.total} of {rate.judged}'
            f" · {_share(rate.total, rate.judged):.0f}%</span></li>"
        )
    # The colours' key, in words: a bar's parts are told apart by its label too.
    key = " · ".join(
        f'<span class="swatch seg k-{kind}" aria-hidden="true"></span> {_e(label)}'
        for kind, label in _RATE_KINDS
    )
    return (
        '<figure class="rates" aria-labelledby="rates-title">'
        '<figcaption id="rates-title">Failure rate per invariant'
        f" <span>(learners who do not pass it: {key})</span></figcaption>"
        "<ol>" + "".join(items) + "</ol></figure>"
    )


def _filter_button(value: str, label: str, count: int, mark: Mark | None) -> str:
    symbol = (
        f'<span class="mark" aria-hidden="true">{mark.symbol}</span> ' if mark else ""
    )
    kind = f" k-{mark.kind}" if mark else ""
    pressed = "true" if value == "all" else "false"
    # A status no learner has is still counted (0), but there is nothing to show.
    disabled = " disabled" if count == 0 and value != "all" else ""
    return (
        f'<button type="button" class="filter{kind}" data-filter="{_e(value)}"'
        f' aria-pressed="{pressed}"{disabled}>{symbol}{_e(label)}'
        f' <span class="n">{count}</span></button>'
    )


#: The kinds of trouble a learner's status and its invariants' share: a
#: learner who is `fail` with one invariant that hung is found by the
#: timeout filter, as the legend's ∞ says.
_TROUBLES = ("timeout", "crashed", "out-of-memory")


def _troubles(learner: LearnerVerdict) -> list[str]:
    """The kinds of trouble any of the learner's invariants met."""
    met = {status for _, status in learner.invariants}
    return [trouble for trouble in _TROUBLES if trouble in met]


def _filters(report: ClassReport) -> str:
    """A count per status, each a button showing only the learners with it
    (a trouble's: the learners with it as their status or an invariant's)."""
    summary = report.summary()
    total = summary["learners"]
    buttons = [
        _filter_button("all", "all", total, None),
        _filter_button("not-passing", "not passing", total - summary["pass"], None),
    ]
    counts = {
        status: sum(
            learner.status == status or status in _troubles(learner)
            for learner in report.learners
        )
        for status in STATUSES
    }
    buttons += [
        _filter_button(status, status, counts[status], _STATUS_MARKS[status])
        for status in STATUSES
    ]
    return (
        '<div class="filters" role="group" aria-label="show the learners who">'
        + "".join(buttons)
        + f'<span class="showing" id="showing" aria-live="polite">showing {total}'
        f" of {total} learner(s)</span></div>"
    )


def _legend_words(state: str, mark: Mark) -> str:
    """A mark's words, then the status it stands for unless the words say it."""
    if mark.label.startswith(state):
        return mark.label
    return f"{mark.label} ({state})"


def _legend(with_baseline: bool) -> str:
    items = [
        f'<li class="k-{mark.kind}"><span class="mark" aria-hidden="true">'
        f"{mark.symbol}</span> {_e(_legend_words(state, mark))}</li>"
        for state, mark in MARKS.items()
    ]
    if with_baseline:
        items += [
            '<li><span class="chg-newly-failing">&nbsp;✗&nbsp;</span>'
            " newly failing</li>",
            '<li><span class="chg-fixed">&nbsp;✓&nbsp;</span> fixed</li>',
        ]
    return (
        '<ul class="legend" aria-label="what the marks mean">'
        + "".join(items)
        + "</ul>"
    )


class Column(NamedTuple):
    """A column of the table: how the self-test names it, its header, its sort."""

    name: str
    label: str
    numeric: bool
    classes: str = ""
    title: str = ""


def _header(column: Column, first: bool) -> str:
    classes = f' class="{column.classes}"' if column.classes else ""
    title = f' title="{_e(column.title)}"' if column.title else ""
    # The rows come sorted by path: the learner column is sorted to begin with.
    sort = ' aria-sort="ascending"' if first else ""
    kind = "number" if column.numeric else "text"
    return (
        f'<th scope="col"{classes}{title} data-name="{_e(column.name)}"'
        f' data-type="{kind}"{sort}><button type="button" class="sort">'
        f"{_e(column.label)}</button></th>"
    )


_STATUS_RANK = {status: index for index, status in enumerate(STATUSES)}
_MARK_RANK = {state: index for index, state in enumerate(MARKS)}


def _sort_key(value: object) -> str:
    return "" if value is None else _e(value)


def _status_cell(row: int, learner: LearnerVerdict) -> str:
    mark = _STATUS_MARKS.get(learner.status, _UNKNOWN)
    symbol = f'<span class="mark k-{mark.kind}" aria-hidden="true">{mark.symbol}</span>'
    status = _e(learner.status)
    key = _STATUS_RANK.get(learner.status, len(STATUSES))
    if learner.passed:
        return (
            f'<td class="status s-pass k-pass" data-sort="{key}"'
            f' title="{_e(mark.label)}">{symbol}{status}</td>'
        )
    return (
        f'<td class="status s-{status} k-{mark.kind}" data-sort="{key}"'
        f' title="{_e(mark.label)}: {_e(learner.detail)}">{symbol}'
        f'<a href="#learner-{row}">{status}</a></td>'
    )


def _invariant_cell(
    name: str, state: str | None, change: str, lesson_id: str, learner: str
) -> str:
    if state is None:
        return '<td class="cell" data-sort=""></td>'
    mark = MARKS.get(state, _UNKNOWN)
    classes = f"cell c-{state} k-{mark.kind}" + (
        f" chg-{change.replace(' ', '-')}" if change else ""
    )
    words = f"{name}: {mark.label}" + (f" ({change})" if change else "")
    key = _MARK_RANK.get(state, len(MARKS))
    if state in _FAILING:
        return (
            f'<td class="{classes} failing" data-sort="{key}" title="{_e(words)}">'
            f'<a class="open" href="#{_e(lesson_id)}" data-invariant="{_e(name)}"'
            f' data-learner="{_e(learner)}" aria-label="{_e(words)}">'
            f'<span class="mark" aria-hidden="true">{mark.symbol}</span></a></td>'
        )
    return (
        f'<td class="{classes}" data-sort="{key}" title="{_e(words)}">'
        f'<span class="mark" role="img" aria-label="{_e(words)}">{mark.symbol}</span>'
        "</td>"
    )


def _lesson_section(
    lesson_id: str,
    learner: LearnerVerdict,
    invariant: str,
    lessons: list[Mapping[str, Any]],
    verbose: bool = False,
) -> str:
    parts = [
        f'<section class="lesson" id="{_e(lesson_id)}" data-invariant="{_e(invariant)}"'
        f' data-learner="{_e(learner.path)}">',
        f'<h4>{_e(invariant or "the run")} <span class="who">— {_e(learner.path)}:'
        f" {_e(learner.invariant_status(invariant) or learner.status)}</span></h4>",
    ]
    if not lessons:
        lessons = [{"headline": learner.detail}]
    for lesson in lessons:
        headline = lesson.get("headline", "") or learner.detail
        parts.append(f'<p class="headline">{_e(headline)}</p>')
        fields = []
        breaks = [str(name) for name in lesson.get("invariants") or ()]
        if len(breaks) > 1:
            # One cause, many invariants: the same lesson under each of them.
            fields.append(f"<dt>breaks</dt><dd>{_e(', '.join(breaks))}</dd>")
        fields += _world_fields(lesson, verbose)
        for label in ("expected", "observed", "hint"):
            text = str(lesson.get(label, "")).strip()
            if text:
                fields.append(f"<dt>{label}</dt><dd>{_e(text)}</dd>")
        reproduce = str(lesson.get("reproduce", "")).strip()
        if reproduce:
            fields.append(f"<dt>reproduce</dt><dd><pre>{_e(reproduce)}</pre></dd>")
            fields.append(f"<dt>run</dt><dd><pre>{_e(run_line(reproduce))}</pre></dd>")
        test = str(lesson.get("test", "")).strip()
        if test:
            fields.append(f"<dt>test</dt><dd><code>{_e(test)}</code></dd>")
        if fields:
            parts.append("<dl>" + "".join(fields) + "</dl>")
    if learner.output_tail and invariant == (learner.running or {}).get(
        "invariant", invariant
    ):
        parts.append(
            f"<p>last lines it printed:</p><pre>{_e(learner.output_tail)}</pre>"
        )
    parts.append("</section>")
    return "\n".join(parts)


def _world_fields(lesson: Mapping[str, Any], verbose: bool) -> list[str]:
    """The lesson's world: whole on a --verbose page; else as the lesson
    shows it, and the whole world (where it shows less) one click away."""
    world = str(lesson.get("world", "")).strip()
    whole = str(lesson.get("whole_world", "")).strip()
    if verbose and whole:
        return [f"<dt>world</dt><dd>{_e(whole)}</dd>"]
    if not whole:
        return [f"<dt>world</dt><dd>{_e(world)}</dd>"] if world else []
    # Imported here: strategies.world is heavy for the command's start-up,
    # and only a page with a cut world needs its words.
    from strategies.world import VERBOSE_SHOWS_IT

    world = world.replace(VERBOSE_SHOWS_IT, "(the whole world is below)")
    return [
        f'<dt>world</dt><dd>{_e(world)}<details class="whole"><summary>the whole'
        f" world</summary><pre>{_e(whole)}</pre></details></dd>"
    ]


def _columns(
    report: ClassReport, names: Sequence[str], with_baseline: bool
) -> list[Column]:
    statements = report.statements()
    columns = [
        Column("learner", "learner", False, "learner"),
        Column("status", "status", True),
        Column("score", "score %", True, "num", "the score in percent; — when none"),
        Column("time", "time (s)", True, "num", "seconds the learner took"),
    ]
    if with_baseline:
        columns.append(Column("change", "change", True))
    columns += [
        Column(name, name, True, "inv", statements.get(name, "")) for name in names
    ]
    return columns


_CHANGE_RANK = {
    change: index
    for index, change in enumerate(
        ("newly failing", "still failing", "new", "fixed", "still passing")
    )
}


def _row(
    row: int,
    learner: LearnerVerdict,
    short: str,
    names: Sequence[str],
    with_baseline: bool,
    verbose: bool = False,
) -> tuple[str, str | None]:
    """A learner's row of the table, and its lessons below (None when it passes)."""
    by_invariant = lessons_by_invariant(learner.lessons)
    percent = _percent(learner)
    cells = [
        f'<th class="learner" scope="row" title="{_e(learner.path)}"'
        f' data-sort="{_e(short)}">{_e(short)}</th>',
        _status_cell(row, learner),
        f'<td class="num score" data-sort="{_sort_key(percent)}">'
        f"{_score_text(percent)}</td>",
        f'<td class="num time" data-sort="{learner.seconds!r}">'
        f"{learner.seconds:.1f}</td>",
    ]
    if with_baseline:
        change = (learner.baseline or {}).get("change", "")
        cells.append(
            f'<td class="change" data-sort="{_sort_key(_CHANGE_RANK.get(change))}">'
            f"{_e(change)}</td>"
        )
    marks = (learner.baseline or {}).get("invariants", {})
    sections = []
    for name in names:
        state = learner.invariant_status(name)
        lesson_id = _lesson_id(row, name)
        cells.append(
            _invariant_cell(name, state, marks.get(name, ""), lesson_id, learner.path)
        )
        if state in _FAILING:
            sections.append(
                _lesson_section(
                    lesson_id, learner, name, by_invariant.get(name, []), verbose
                )
            )
    line = (
        f'<tr data-index="{row}" data-status="{_e(learner.status)}"'
        f' data-has="{_e(" ".join(_troubles(learner)))}"'
        f' data-learner="{_e(learner.path)}">' + "".join(cells) + "</tr>"
    )
    if learner.passed:
        return line, None
    if not sections:
        sections.append(
            _lesson_section(
                _lesson_id(row, ""), learner, "", by_invariant.get("", []), verbose
            )
        )
    article = (
        f'<article id="learner-{row}"><h3>{_e(learner.path)}: {_e(learner.status)}'
        f"</h3><p>{_e(learner.detail)}</p>" + "\n".join(sections) + "</article>"
    )
    return line, article


def _gone(report: ClassReport) -> str:
    """The learners the baseline judged whose folder is no longer there."""
    if not report.gone:
        return ""
    items = "".join(
        f'<li>{_e(path)} <span class="who">(was {_e(status)})</span></li>'
        for path, status in report.gone
    )
    return (
        f'<h2 id="gone">Gone since the baseline ({len(report.gone)})</h2>'
        f"<p>Judged in the baseline; their folder is no longer there.</p>"
        f'<ul class="gone">{items}</ul>'
    )


def html_page(report: ClassReport, verbose: bool = False) -> str:
    """The report as one HTML page (`verbose`: every world whole)."""
    names = _level_invariants(report)
    learners = report.learners
    with_baseline = any(learner.baseline is not None for learner in learners)
    passed = sum(learner.passed for learner in learners)
    headline = f"{passed} of {len(learners)} learner(s) pass"
    settings = report.settings
    facts = [
        f"{settings.get('level')} level",
        f"{settings.get('profile')} profile",
        f"timeout {settings.get('timeout')} s",
        f"memory {settings.get('memory_mib')} MiB",
        f"{settings.get('isolation', 'process')} isolation",
        f"day7-verify {report.tool}",
    ]
    if settings.get("not_for_grading"):
        facts.insert(-1, f"not for grading: {settings['not_for_grading']}")
    if settings.get("seed") is not None:
        # `day7-verify PATH --seed N` judges a learner again with these examples.
        facts.insert(-1, f"seed {settings.get('seed')}")
    prefix, short = short_names([learner.path for learner in learners])
    if prefix:
        facts.insert(0, f"learners under {prefix}/")
    columns = _columns(report, names, with_baseline)
    rows = []
    lesson_blocks = []
    for row, learner in enumerate(learners):
        line, article = _row(
            row, learner, short[learner.path], names, with_baseline, verbose
        )
        rows.append(line)
        if article is not None:
            lesson_blocks.append(article)
    rates = [_failure_rate(learners, name) for name in names]
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>day7-verify: {_e(headline)}</title><style>{_STYLE}</style>"
            "</head><body>",
            "<header><h1>day7-verify</h1>",
            f'<p class="verdict">{_e(headline)}</p>',
            f'<p class="settings">{_e(" · ".join(facts))}</p></header>',
            _filters(report),
            _chart(rates) if rates else "",
            _legend(with_baseline),
            '<div class="wrap"><table class="grid" id="grid">',
            "<thead><tr>"
            + "".join(_header(c, i == 0) for i, c in enumerate(columns))
            + "</tr></thead>",
            "<tbody>" + "\n".join(rows) + "</tbody></table></div>",
            _gone(report),
            '<p class="legend">Click a header to sort by it (again to reverse);'
            " click a coloured mark to read its lesson.</p>",
            '<h2 id="lessons">Lessons</h2>' if lesson_blocks else "",
            "\n".join(lesson_blocks),
            '<dialog id="lesson-view"><form method="dialog"><button class="close"'
            ' type="button">close</button></form><div class="body"></div></dialog>',
            f"<script>{_SCRIPT}</script>",
            "</body></html>",
            "",
        ]
    )
