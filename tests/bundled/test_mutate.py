"""The mutation runner: its mutants, its verdicts, and one real run.

``python -m planted.mutate`` is slow, so it is not part of the ordinary run;
these tests keep its parts honest in seconds: every operator makes the
variants it promises, ids stay put, every mutant is a distinct program that
compiles, pytest's exit statuses become the right verdicts, and one small
run over a copy of the bundled evaluator kills the mutant it must kill and
reports the one it cannot see as an unexplained survivor.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from planted import mutate
from planted._runs import RunResult
from planted.equivalent import REGISTERS, Equivalent, Register, lookup
from planted.mutants import OPERATORS, MutationError, generate, roundtrip

# The mutation harness judges copies of evaluation.py in subprocesses:
# minutes, and nothing of it is the interpreter's; run once (tox: py311).
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parents[2]

SAMPLE = textwrap.dedent(
    '''\
    """A module docstring is not behaviour."""

    from __future__ import annotations


    def check(a: "int", b: int, items: list[str]) -> "str | None":
        """Nor is a function's."""
        if a == b and not items:
            raise ValueError("bad")
        try:
            found = lookup(a, b)
        except (KeyError, OSError):
            log("lookup failed")
            raise
        while a < 3:
            a += 1
        strict = True
        chosen = any(items) if a in items else found.startswith("p")
        log(a)
        return f"v{a}!" if strict and chosen else None
    '''
)


def _plain(text: str) -> str:
    """Unparsed code without the parentheses and quotes Pythons differ on."""
    return (
        text.replace("(not ", "not ")
        .replace(")", "")
        .replace("(", "")
        .replace('"', "'")
    )


def _by_operator(source: str = SAMPLE) -> dict[str, list[str]]:
    """Each operator slug, with the `before -> after` of its mutants."""
    found: dict[str, list[str]] = {}
    for mutant in generate(source):
        found.setdefault(mutant.operator, []).append(_plain(mutant.description))
    return found


@pytest.mark.parametrize(
    ("operator", "description"),
    [
        ("cmp-Eq-NotEq", "a == b -> a != b"),
        ("cmp-Lt-LtE", "a < 3 -> a <= 3"),
        ("cmp-In-NotIn", "a in items -> a not in items"),
        ("boolop-And-Or", "a == b and not items -> a == b or not items"),
        ("boolop-drop0", "and a == b -> (operand removed)"),
        ("boolop-drop1", "and not items -> (operand removed)"),
        ("not-remove", "not items -> items"),
        ("not-insert", "a < 3 -> not a < 3"),
        ("bool-True-False", "True -> False"),
        ("num-plus1", "3 -> 4"),
        ("num-minus1", "3 -> 2"),
        ("num-plus1", "1 -> 2"),
        ("str-wrap", "'bad' -> 'XXbadXX'"),
        ("str-empty", "'bad' -> ''"),
        ("str-wrap", "'p' -> 'XXpXX'"),
        ("fstr0-wrap", "'v' -> 'XXvXX'"),
        ("fstr2-empty", "'!' -> ''"),
        ("except-drop-KeyError", "(KeyError, OSError) -> OSError"),
        ("except-drop-OSError", "(KeyError, OSError) -> KeyError"),
        ("if-True", "a == b and not items -> True"),
        ("if-False", "a == b and not items -> False"),
        (
            "return-None",
            "return f'v{a}!' if strict and chosen else None -> return None",
        ),
        ("call-remove", "log(a) -> pass"),
        ("raise-remove", "raise -> pass"),
        ("args-swap-0-1", "lookup(a, b) -> lookup(b, a)"),
        ("any-all-any-all", "any(items) -> all(items)"),
        ("method-startswith-endswith", "found.startswith('p') -> found.endswith('p')"),
        ("binop-Add-Sub", "a += 1 -> a -= 1"),
    ],
)
def test_each_operator_makes_its_variant(operator: str, description: str) -> None:
    """Every operator the runner promises produces its variant of the sample."""
    made = _by_operator().get(operator, [])
    assert _plain(description) in made, f"{operator} made {made}, not {description!r}"


def test_every_operator_family_is_exercised_by_the_sample() -> None:
    """The sample meets every operator family (so the test above covers them)."""
    families = {slug.split("-")[0].rstrip("0123456789") for slug in _by_operator()}
    expected = {name.split("-")[0] for name in OPERATORS}
    assert expected <= families, f"never made: {sorted(expected - families)}"


def test_redundant_variants_are_not_made() -> None:
    """A raise alone under an if is left to if-False; `not` is not doubled."""
    made = _by_operator()
    assert made["raise-remove"] == ["raise -> pass"], "only the re-raise"
    doubled = [text for text in made.get("not-insert", []) if "not not" in text]
    assert not doubled
    negated_swaps = [
        text for text in made["not-insert"] if text.startswith("a == b ->")
    ]
    assert not negated_swaps, "not (a == b) is the cmp swap already"


def test_docstrings_and_annotations_are_not_mutated() -> None:
    """No mutant touches a docstring or an annotation: neither is behaviour."""
    for mutant in generate(SAMPLE):
        assert "docstring" not in mutant.before, mutant.id
        assert "Nor is" not in mutant.before, mutant.id
        assert mutant.before not in ("'int'", "'str | None'"), mutant.id


def test_every_mutant_compiles_and_is_a_distinct_program() -> None:
    """Each mutant compiles and differs from the original and every other."""
    mutants = generate(SAMPLE)
    sources = [mutant.source for mutant in mutants]
    assert roundtrip(SAMPLE) not in sources
    assert len(set(sources)) == len(sources)
    for mutant in mutants:
        compile(mutant.source, mutant.id, "exec")


def test_ids_are_unique_stable_and_numbered_in_source_order() -> None:
    """Same source, same ids; ids unique; numbers run 1..n down the file."""
    first, second = generate(SAMPLE), generate(SAMPLE)
    assert [m.id for m in first] == [m.id for m in second]
    ids = [m.id for m in first]
    assert len(set(ids)) == len(ids)
    assert [m.number for m in first] == list(range(1, len(first) + 1))
    places = [(m.line, m.col) for m in first]
    assert places == sorted(places)


def test_an_id_depends_only_on_its_place_and_operator() -> None:
    """Editing below a mutant leaves its id (and the ids above) unchanged."""
    edited = SAMPLE.replace("log(a)", 'log(a, "edited")')
    cut = SAMPLE.splitlines().index("    log(a)") + 1
    before = [m.id for m in generate(SAMPLE) if m.line < cut]
    after = [m.id for m in generate(edited) if m.line < cut]
    assert before == after


def test_fstring_parts_are_placed_at_the_fstring() -> None:
    """f-string parts take the f-string's place, the same on every Python."""
    (fstring_line,) = [
        number
        for number, line in enumerate(SAMPLE.splitlines(), start=1)
        if 'f"v{a}!"' in line
    ]
    parts = [m for m in generate(SAMPLE) if m.operator.startswith("fstr")]
    assert parts
    assert {(m.line, m.col) for m in parts} == {(fstring_line, 12)}


def test_a_mutant_shows_its_line_before_and_after() -> None:
    """A one-line change reads as the source line and the same line mutated."""
    (mutant,) = [m for m in generate(SAMPLE) if m.operator == "cmp-Lt-LtE"]
    assert mutant.line_before.strip() == "while a < 3:"
    assert mutant.line_after.strip() == "while a <= 3:"


def test_a_dropped_operand_is_gone_from_the_mutated_line() -> None:
    """boolop-drop shows the operand it removes; the line really lacks it."""
    (mutant,) = [
        m for m in generate(SAMPLE) if m.operator == "boolop-drop0" and m.line == 8
    ]
    assert mutant.line_before.strip() == "if a == b and not items:"
    assert mutant.line_after.strip() == "if not items:"


def test_unparseable_source_is_one_clear_error() -> None:
    """A module that does not parse is refused with its line, not a traceback."""
    with pytest.raises(MutationError, match=r"evaluation.py line 2: does not parse"):
        generate("x = 1\ndef broken(:\n")


# ---------------------------------------------------------------------------
# Verdicts


@pytest.mark.parametrize(
    ("exit_code", "output", "status", "killed_by"),
    [
        (0, "64 passed", mutate.SURVIVED, ""),
        (
            1,
            "FAILED ../../r/tests/invariants/test_truth.py::test_x - boom\n",
            mutate.KILLED,
            "tests/invariants/test_truth.py::test_x",
        ),
        (None, "", mutate.TIMEOUT, "timeout"),
        (
            4,
            "ERROR: --impl-path X: importing evaluation.py failed: E",
            mutate.KILLED,
            "import",
        ),
        (4, "ERROR: unrecognized arguments: --bogus", mutate.ERROR, "usage error"),
        (
            2,
            "Interrupted: 1 error during collection",
            mutate.ERROR,
            "interrupted or a collection error",
        ),
        (5, "no tests ran", mutate.ERROR, "no tests collected"),
    ],
)
def test_exit_statuses_become_verdicts(
    exit_code: int | None, output: str, status: str, killed_by: str
) -> None:
    """1 kills, 0 survives, a timeout kills apart, anything else is an error."""
    verdict = mutate.classify(RunResult(exit_code, output, 1.0))
    assert (verdict.status, verdict.killed_by) == (status, killed_by)


# ---------------------------------------------------------------------------
# The register


def test_the_register_refuses_malformed_entries() -> None:
    """Ids, kinds, reasons and digests are checked when an entry is built."""
    with pytest.raises(ValueError, match="not LINE:COL:OP"):
        Equivalent("17-8-cmp", "same-behaviour", "why")
    with pytest.raises(ValueError, match="kind"):
        Equivalent("17:8:cmp-Eq-NotEq", "harmless", "why")
    with pytest.raises(ValueError, match="needs a reason"):
        Equivalent("17:8:cmp-Eq-NotEq", "same-behaviour", "  ")
    entry = Equivalent("17:8:cmp-Eq-NotEq", "same-behaviour", "why")
    with pytest.raises(ValueError, match="sha256"):
        Register("x", "abc", "course", (entry,))
    with pytest.raises(ValueError, match="listed twice"):
        Register("x", "0" * 64, "course", (entry, entry))


def test_registers_are_unique_per_file_and_level() -> None:
    """One register per (digest, level), and lookup finds each of them."""
    keys = [(register.sha256, register.level) for register in REGISTERS]
    assert len(set(keys)) == len(keys)
    for register in REGISTERS:
        assert lookup(register.sha256, register.level) is register


# ---------------------------------------------------------------------------
# One real run


def test_a_small_run_kills_what_it_must_and_reports_what_it_cannot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On a copy of the bundled evaluator, judged by specification-refused only:
    accepting a blank required string is killed; changing a report detail,
    which that invariant never looks at, survives unexplained (exit 1)."""
    package = tmp_path / "evaluator"
    shutil.copytree(
        ROOT / "evaluator", package, ignore=shutil.ignore_patterns("__pycache__")
    )
    before = sorted(path.name for path in package.iterdir())
    mutants = generate((package / "evaluation.py").read_text(encoding="utf-8"))
    (accepts_blank,) = [
        m
        for m in mutants
        if m.operator == "if-False" and m.before == "not value.strip()"
    ]
    (detail,) = [
        m
        for m in mutants
        if m.operator == "str-wrap" and m.before == "'required final observed'"
    ]
    report = tmp_path / "mutate.json"

    status = mutate.main(
        [
            "--impl-path",
            str(package),
            "--level",
            "hardened",
            "--invariants",
            "specification-refused",
            "--only",
            f"{accepts_blank.id},{detail.number}",
            "--json",
            str(report),
        ]
    )

    out = capsys.readouterr().out
    assert status == 1, out
    data = json.loads(report.read_text(encoding="utf-8"))
    verdicts = {m["id"]: m for m in data["mutants"]}
    assert verdicts[accepts_blank.id]["status"] == mutate.KILLED
    assert "test_specification.py" in verdicts[accepts_blank.id]["killed_by"]
    assert verdicts[detail.id]["status"] == mutate.SURVIVED
    assert data["unexplained"] == [detail.id]
    assert data["summary"]["killed"] == 1
    assert "UNEXPLAINED" in out
    assert sorted(path.name for path in package.iterdir()) == before


def test_a_folder_without_evaluation_py_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No evaluation.py: exit 2 and one line naming the folder, no traceback."""
    assert mutate.main(["--impl-path", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"mutate: --impl-path {tmp_path.resolve()}: holds no evaluation.py"


def test_a_seed_is_obeyed_under_every_profile() -> None:
    """--seed under the ci profile is no longer ignored (a seeded run is not
    derandomized: strategies/profiles.py), so it is taken as given."""
    args = mutate._parse(["--impl-path", "evaluator", "--seed", "3"])
    assert (args.profile, args.seed) == ("ci", 3)


def test_list_numbers_every_mutant_without_running_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--list prints each mutant's number, id, scope and change, and exits 0."""
    (tmp_path / "evaluation.py").write_text(SAMPLE, encoding="utf-8")
    assert mutate.main(["--impl-path", str(tmp_path), "--list"]) == 0
    out = capsys.readouterr().out
    mutants = generate(SAMPLE)
    assert out.count("\n") == 2 * len(mutants)
    first = mutants[0]
    assert f"   1 {first.id}  ({first.scope})\n       {first.description}\n" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--only", "nope,9999"], "--only: no mutant nope, 9999 (of "),
        (["--suite", "{tmp}"], "--suite {tmp}: not a checkout of this project (no"),
    ],
)
def test_a_bad_choice_is_one_line(
    argv: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An unknown mutant or a folder that is no checkout: exit 2, one line."""
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in argv]
    message = message.replace("{tmp}", str(tmp_path))
    assert mutate.main(["--impl-path", str(ROOT / "evaluator"), *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
