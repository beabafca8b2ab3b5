"""The class as one self-contained web page: a row a learner, a column an invariant.

Inline style and script, no network. Every failing cell is a link to its
lesson, which the page's script opens in a dialog (without the script the
link still jumps to the lesson, listed below the table). With a baseline,
changed cells and learners are marked. Every piece of text comes from the
learners' code or output at some remove, so all of it is escaped.

`page.html#selftest` makes the script open every failure's lesson in turn and
write what it found into `<pre id="selftest">`, so a headless browser's dump
of the page says whether each one opened (tests/bundled/test_command_html.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from day7_verify._report import ClassReport, LearnerVerdict, short_names

__all__ = ["html_page"]

_FAILING = frozenset({"fail", "incomplete", "timeout", "crashed", "out-of-memory"})
_SYMBOLS = {
    "pass": "✓",
    "fail": "✗",
    "skip": "–",
    "not-run": "·",
    "incomplete": "!",
    "timeout": "T",
    "crashed": "C",
    "out-of-memory": "M",
}

_STYLE = """
:root { --pass:#1a7f37; --fail:#cf222e; --warn:#9a6700; --muted:#6e7781;
  --line:#d0d7de; --bg:#ffffff; --head:#f6f8fa; font-family:system-ui, sans-serif; }
body { margin:1.5rem; color:#1f2328; background:var(--bg); }
h1 { font-size:1.4rem; margin:0 0 .2rem; }
h2 { font-size:1.15rem; margin-top:2rem; }
.verdict { font-size:1.1rem; margin:.2rem 0; }
.settings { color:var(--muted); margin:0 0 1rem; }
.wrap { overflow-x:auto; border:1px solid var(--line); border-radius:6px; }
table.grid { border-collapse:collapse; font-size:.9rem; }
.grid th, .grid td { border-bottom:1px solid var(--line); padding:.25rem .3rem; }
.grid thead th { background:var(--head); position:sticky; top:0;
  vertical-align:bottom; }
.grid th.inv { writing-mode:vertical-rl; transform:rotate(180deg);
  font-weight:500; white-space:nowrap; padding:.4rem .15rem; max-height:14rem; }
.grid th.learner { text-align:left; position:sticky; left:0;
  background:var(--bg); max-width:22rem; overflow:hidden;
  text-overflow:ellipsis; white-space:nowrap; font-weight:500; }
.grid thead th.learner { background:var(--head); z-index:1; }
.grid td.cell { text-align:center; min-width:1.2rem; padding:.25rem .1rem; }
.grid td.num { text-align:right; font-variant-numeric:tabular-nums;
  color:var(--muted); }
.c-pass { color:var(--pass); }
.c-skip, .c-not-run { color:var(--muted); }
.c-fail a, .c-incomplete a, .c-timeout a, .c-crashed a, .c-out-of-memory a {
  color:#fff; background:var(--fail); border-radius:4px; padding:0 .3rem;
  text-decoration:none; font-weight:700; }
.c-timeout a, .c-out-of-memory a, .c-incomplete a { background:var(--warn); }
.chg-newly-failing { outline:2px solid var(--fail); outline-offset:-2px; }
.chg-fixed { outline:2px solid var(--pass); outline-offset:-2px; }
.status, .change { font-weight:600; white-space:nowrap; }
.change { font-weight:400; }
.s-pass { color:var(--pass); }
.s-fail, .s-crashed, .s-error { color:var(--fail); }
.s-timeout, .s-out-of-memory { color:var(--warn); }
.status a { color:inherit; }
.legend { color:var(--muted); font-size:.85rem; margin:.6rem 0; }
.legend span { margin-right:1rem; white-space:nowrap; }
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
  if (location.hash !== '#selftest') { return; }
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
  var out = document.createElement('pre');
  out.id = 'selftest';
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
})();
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _lesson_id(row: int, invariant: str) -> str:
    return f"L{row}-{invariant}"


def _lesson_section(
    lesson_id: str,
    learner: LearnerVerdict,
    invariant: str,
    lessons: list[Mapping[str, Any]],
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
        for label in ("world", "expected", "observed", "hint"):
            text = str(lesson.get(label, "")).strip()
            if text:
                fields.append(f"<dt>{label}</dt><dd>{_e(text)}</dd>")
        reproduce = str(lesson.get("reproduce", "")).strip()
        if reproduce:
            fields.append(f"<dt>reproduce</dt><dd><pre>{_e(reproduce)}</pre></dd>")
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


def html_page(report: ClassReport) -> str:
    """The report as one HTML page."""
    names = report.invariant_names()
    statements = report.statements()
    learners = report.learners
    with_baseline = any(learner.baseline is not None for learner in learners)
    passed = sum(learner.passed for learner in learners)
    title = f"day7-verify: {passed} of {len(learners)} learner(s) pass"
    settings = report.settings
    facts = [
        f"{settings.get('level')} level",
        f"{settings.get('profile')} profile",
        f"timeout {settings.get('timeout')} s",
        f"memory {settings.get('memory_mib')} MiB",
        f"{settings.get('isolation', 'process')} isolation",
        f"day7-verify {report.tool}",
    ]
    head = [
        '<th class="learner" scope="col">learner</th>',
        "<th>status</th>",
        "<th>seconds</th>",
    ]
    if with_baseline:
        head.append("<th>change</th>")
    head += [
        f'<th class="inv" scope="col" title="{_e(statements.get(name, ""))}">'
        f"{_e(name)}</th>"
        for name in names
    ]
    prefix, short = short_names([learner.path for learner in learners])
    if prefix:
        facts.insert(0, f"learners under {prefix}/")
    rows = []
    lesson_blocks = []
    for row, learner in enumerate(learners):
        by_invariant: dict[str, list[Mapping[str, Any]]] = {}
        for lesson in learner.lessons:
            by_invariant.setdefault(str(lesson.get("invariant", "")), []).append(lesson)
        cells = [
            f'<th class="learner" scope="row" title="{_e(learner.path)}">'
            f"{_e(short[learner.path])}</th>"
        ]
        status = _e(learner.status)
        sections = []
        if learner.passed:
            cells.append(f'<td class="status s-pass">{status}</td>')
        else:
            anchor = f"learner-{row}"
            cells.append(
                f'<td class="status s-{status}" title="{_e(learner.detail)}">'
                f'<a href="#{anchor}">{status}</a></td>'
            )
        cells.append(f'<td class="num">{learner.seconds:.1f}</td>')
        if with_baseline:
            change = (learner.baseline or {}).get("change", "")
            cells.append(f'<td class="change">{_e(change)}</td>')
        marks = (learner.baseline or {}).get("invariants", {})
        for name in names:
            state = learner.invariant_status(name)
            if state is None:
                cells.append('<td class="cell"></td>')
                continue
            change = marks.get(name, "")
            classes = f"cell c-{state}" + (
                f" chg-{change.replace(' ', '-')}" if change else ""
            )
            tip = f"{name}: {state}" + (f" ({change})" if change else "")
            symbol = _SYMBOLS.get(state, "?")
            if state in _FAILING:
                lesson_id = _lesson_id(row, name)
                cells.append(
                    f'<td class="{classes} failing" title="{_e(tip)}"><a class="open"'
                    f' href="#{_e(lesson_id)}" data-invariant="{_e(name)}"'
                    f' data-learner="{_e(learner.path)}">{symbol}</a></td>'
                )
                sections.append(
                    _lesson_section(
                        lesson_id, learner, name, by_invariant.get(name, [])
                    )
                )
            else:
                cells.append(f'<td class="{classes}" title="{_e(tip)}">{symbol}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
        if not learner.passed:
            lesson_blocks.append(
                f'<article id="learner-{row}"><h3>{_e(learner.path)}: {status}</h3>'
                f"<p>{_e(learner.detail)}</p>"
                + (
                    "\n".join(sections)
                    if sections
                    else _lesson_section(
                        _lesson_id(row, ""), learner, "", by_invariant.get("", [])
                    )
                )
                + "</article>"
            )
    legend = "".join(
        f'<span><span class="c-{state}">{symbol}</span> {_e(state)}</span>'
        for state, symbol in _SYMBOLS.items()
    )
    if with_baseline:
        legend += (
            '<span><span class="chg-newly-failing">&nbsp;✗&nbsp;</span>'
            " newly failing</span>"
            '<span><span class="chg-fixed">&nbsp;✓&nbsp;</span> fixed</span>'
        )
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>",
            "<header><h1>day7-verify</h1>",
            f'<p class="verdict">{_e(title.split(": ", 1)[1])}</p>',
            f'<p class="settings">{_e(" · ".join(facts))}</p></header>',
            '<div class="wrap"><table class="grid">',
            "<thead><tr>" + "".join(head) + "</tr></thead>",
            "<tbody>" + "\n".join(rows) + "</tbody></table></div>",
            f'<p class="legend">{legend}</p>',
            '<p class="legend">Click a red or amber mark to read its lesson.</p>',
            '<h2 id="lessons">Lessons</h2>' if lesson_blocks else "",
            "\n".join(lesson_blocks),
            '<dialog id="lesson-view"><form method="dialog"><button class="close"'
            ' type="button">close</button></form><div class="body"></div></dialog>',
            f"<script>{_SCRIPT}</script>",
            "</body></html>",
            "",
        ]
    )
