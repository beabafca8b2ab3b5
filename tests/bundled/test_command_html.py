"""The class page in a real headless browser: every failure opens its lesson.

The page's own script has a self-test mode (`page.html#selftest`): it clicks
every failing mark, checks that the dialog shows that learner's lesson for
that invariant, and writes what it found into `<pre id="selftest">`, which
`chromium --dump-dom` prints. Skipped, saying so, where no Chromium is
installed (.ci/run installs Debian's `chromium` when it can).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from day7_verify._baseline import compare
from day7_verify._html import html_page
from day7_verify._report import ClassReport, LearnerVerdict, lesson

_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
BROWSER = next((found for name in _BROWSERS if (found := shutil.which(name))), None)
needs_browser = pytest.mark.skipif(
    BROWSER is None, reason="no headless Chromium installed (apt-get install chromium)"
)

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
    dumped = subprocess.run(
        [
            BROWSER,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--dump-dom",
            f"{page.as_uri()}#selftest",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    match = re.search(r'<pre id="selftest">(.*?)</pre>', dumped.stdout, re.S)
    assert match, f"no self-test in the page the browser ran: {dumped.stderr[-2000:]}"
    found = json.loads(html.unescape(match.group(1)))
    assert found["problems"] == []
    assert found["links"] == found["opened"] == found["failing_cells"] == 3
    # What a learner wrote was shown, never run.
    assert "<title>day7-verify: 1 of 4 learner(s) pass</title>" in dumped.stdout
    assert "owned()" not in re.sub(r"&lt;script&gt;owned\(\)", "", dumped.stdout)
