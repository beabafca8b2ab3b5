"""The class as JUnit XML, for CI systems: a test suite per learner.

Each invariant is a test case (its failure carries the lesson as text); an
invariant skipped at the level, or never reached, is skipped; one that was
running when the learner timed out, crashed or ran out of memory is an
error. A learner that could not be judged at all (status `error`) has one
test case, `load`, in error.

A test case's classname is a dotted identifier made from the learner's path
(`../class/ada` is `day7.class.ada`), because CI tools split classnames on
dots and trip on slashes; it is unique within the report, and the real path
is kept in the suite's `path` property.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from day7_verify.reports._report import (
    ClassReport,
    LearnerVerdict,
    lesson_text,
    lessons_by_invariant,
)

__all__ = ["junit_xml"]

# Characters XML 1.0 cannot hold at all; a learner's output may have them
# (a lone surrogate never reaches here: ClassReport shows it as an escape).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_ERRORS = frozenset({"timeout", "crashed", "out-of-memory"})
_NOT_NAME = re.compile(r"[^A-Za-z0-9_]")
_PREFIX = "day7"


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def classname(path: str) -> str:
    """`path` as a dotted identifier: `day7.` and its parts, `_` for the rest.

    `.` and `..` parts say where the folder is from here, not which learner it
    is, so they are left out; a part that starts with a digit gets a `_`.
    """
    parts = [part for part in path.split("/") if part not in ("", ".", "..")]
    names = []
    for part in parts:
        name = _NOT_NAME.sub("_", part)
        names.append(f"_{name}" if name[0].isdigit() else name)
    return ".".join([_PREFIX, *names])


def classnames(paths: list[str]) -> dict[str, str]:
    """Each path's classname, made unique by a `_2`, `_3`, ... where two agree."""
    given: dict[str, str] = {}
    taken: set[str] = set()
    for path in paths:
        name = base = classname(path)
        number = 1
        while name in taken:
            number += 1
            name = f"{base}_{number}"
        taken.add(name)
        given[path] = name
    return given


def _suite(
    learner: LearnerVerdict,
    classname: str,
    isolation: str,
    seed: object = None,
    not_for_grading: object = None,
) -> ET.Element:
    suite = ET.Element("testsuite", name=_clean(learner.path))
    suite.set("time", f"{learner.seconds:.3f}")
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="path", value=_clean(learner.path))
    ET.SubElement(properties, "property", name="isolation", value=isolation)
    if not_for_grading:
        why = _clean(str(not_for_grading))
        ET.SubElement(properties, "property", name="not_for_grading", value=why)
    if seed is not None:
        # The run's seed: `day7-verify PATH --seed N` judges it again alike.
        ET.SubElement(properties, "property", name="seed", value=_clean(str(seed)))
    if learner.score is not None:
        # The score (docs/score.md): the percent, and the points behind it.
        for key in ("percent", "earned", "possible"):
            ET.SubElement(
                properties,
                "property",
                name="score" if key == "percent" else f"score.{key}",
                value=f"{learner.score[key]:g}",
            )
    failures = errors = skipped = 0
    cases: list[ET.Element] = []
    if learner.status == "error":
        case = ET.Element("testcase", classname=classname, name="load")
        error = ET.SubElement(
            case, "error", type="error", message=_clean(learner.detail)
        )
        error.text = _clean(learner.output_tail or learner.detail)
        cases.append(case)
        errors += 1
    lessons = lessons_by_invariant(learner.lessons)
    for name, status in learner.invariants:
        case = ET.Element("testcase", classname=classname, name=_clean(name))
        text = "\n\n".join(lesson_text(lesson) for lesson in lessons.get(name, ()))
        if status == "fail" or status == "incomplete":
            headline = (
                str(lessons[name][0].get("headline", "")) if name in lessons else status
            )
            node = ET.SubElement(case, "failure", type=status, message=_clean(headline))
            node.text = _clean(text or status)
            failures += 1
        elif status in _ERRORS:
            # A call that hung or crashed in a run that went on has its own
            # lesson; the learner's detail says where a stopped run stopped.
            said = (
                str(lessons[name][0].get("headline", ""))
                if learner.status == "fail" and name in lessons
                else learner.detail
            )
            node = ET.SubElement(case, "error", type=status, message=_clean(said))
            node.text = _clean(text or learner.detail)
            errors += 1
        elif status in ("skip", "not-run"):
            reason = "not judged at this level" if status == "skip" else "not reached"
            ET.SubElement(case, "skipped", message=reason)
            skipped += 1
        cases.append(case)
    suite.extend(cases)
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", str(skipped))
    if learner.status in _ERRORS and learner.output_tail:
        out = ET.SubElement(suite, "system-out")
        out.text = _clean(learner.output_tail)
    return suite


def junit_xml(report: ClassReport) -> str:
    """The report as a JUnit XML document."""
    root = ET.Element("testsuites", name="day7-verify")
    names = classnames([learner.path for learner in report.learners])
    isolation = str(report.settings.get("isolation", "process"))
    seed = report.settings.get("seed")
    grading = report.settings.get("not_for_grading")
    suites = [
        _suite(learner, names[learner.path], isolation, seed, grading)
        for learner in report.learners
    ]
    root.extend(suites)
    for total in ("tests", "failures", "errors", "skipped"):
        root.set(total, str(sum(int(suite.get(total, "0")) for suite in suites)))
    root.set("time", f"{report.seconds:.3f}")
    ET.indent(root)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        + ET.tostring(root, encoding="unicode")
        + "\n"
    )
