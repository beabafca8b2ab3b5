"""What the terminal shows lines up and says the isolation.

- The class table pads and clips learner names by the columns a terminal
  gives them (day7_verify.reports._width), so an accented (composed or not), CJK or
  emoji name keeps its row's status, seconds and marks under their headers.
- `--quiet`'s one line and each class progress line name the isolation the
  learner was judged under.
"""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from day7_verify._cli import _progress_line
from day7_verify.cohort._judge import Judged
from day7_verify.reports._report import ClassReport, LearnerVerdict
from day7_verify.reports._text import class_lines, learner_lines
from day7_verify.reports._width import clip_left, pad, width

SETTINGS = {
    "level": "course",
    "profile": "ci",
    "timeout": 60.0,
    "memory_mib": 2048,
    "isolation": "sandbox",
}

NAMES = {
    "composed": unicodedata.normalize("NFC", "zoé"),
    "decomposed": unicodedata.normalize("NFD", "zoé"),
    "cjk": "李雷",
    "emoji": "🙂ana",
    "emoji-presentation": "❤️bo",
    "ascii": "bob",
}


def _learner(name: str, status: str = "fail") -> LearnerVerdict:
    return LearnerVerdict(
        path=f"class/{name}",
        status=status,
        seconds=1.5,
        detail="1 of 2 invariants hold",
        invariants=(("surface", "pass"), ("truth", "fail")),
    )


def test_width_counts_terminal_columns() -> None:
    """Combining marks take no column, wide characters and emoji two."""
    assert width(NAMES["composed"]) == width(NAMES["decomposed"]) == 3
    assert width(NAMES["cjk"]) == 4
    assert width(NAMES["emoji"]) == 5
    assert width(NAMES["emoji-presentation"]) == 4
    assert width("bob") == 3


def _columns_before(row: str, match: re.Match[str]) -> int:
    return width(row[: match.start()])


def test_every_row_of_the_class_table_lines_up_whatever_the_names() -> None:
    """Status, seconds and marks start at the same column in every row."""
    learners = tuple(
        sorted((_learner(name) for name in NAMES.values()), key=lambda v: v.path)
    )
    lines = class_lines(ClassReport(SETTINGS, learners))
    header = next(line for line in lines if line.startswith("learner "))
    rows = [line for line in lines if re.search(r"  fail +1\.5  ", line)]
    assert len(rows) == len(NAMES), lines
    status_at = {width(row[: row.index("  fail")]) for row in rows}
    marks_at = {width(row[: row.index(".x")]) for row in rows}
    assert status_at == {header.index("  status")}, lines
    assert len(marks_at) == 1, lines


def test_a_long_wide_name_is_clipped_to_the_column() -> None:
    """A name wider than the column keeps its end, within the column."""
    long = "学生" * 30 + "é"
    other = "bob"
    learners = tuple(sorted((_learner(long), _learner(other)), key=lambda v: v.path))
    lines = class_lines(ClassReport(SETTINGS, learners))
    rows = [line for line in lines if "  fail" in line]
    assert {width(row[: row.index("  fail")]) for row in rows} == {40}, lines
    assert any(row.startswith("…") and "生é" in row for row in rows), rows


@given(st.text(), st.integers(min_value=1, max_value=60))
def test_pad_and_clip_keep_to_the_columns(text: str, columns: int) -> None:
    """clip_left fits the columns and keeps the text's end; pad fills them."""
    clipped = clip_left(text, columns)
    assert width(clipped) <= max(columns, 1)
    if width(text) <= columns:
        assert clipped == text
    else:
        assert clipped.startswith("…") and text.endswith(clipped[1:])
    assert width(pad(clipped, columns)) == columns or width(clipped) > columns


def test_quiet_and_progress_lines_name_the_isolation() -> None:
    """The one line of --quiet, and each progress line, say the isolation."""
    learner = _learner("ada")
    quiet = learner_lines(learner, "course", quiet=True, isolation="user")
    assert len(quiet) == 1 and quiet[0].endswith("(1.5 s, user isolation)")
    line = _progress_line(3, 300, Judged(learner, 0.0, 0), "sandbox")
    assert line.startswith("[3/300] day7-verify: FAIL  class/ada:")
    assert line.endswith("(1.5 s, sandbox isolation)")
