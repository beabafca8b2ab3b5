"""Case specifications: invalid ones for every rejection rule, and valid near misses.

A specification is a recipe, not a target object: `make(target)` builds it
with the target's own case types, so these strategies never touch the target
while they are defined or drawn. An invalid one knows the rule it breaks and
the words its ValueError must use to name the field; a valid one knows the
values the built object must then hold (verbatim, or normalised).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from strategies.files import SPELLINGS, spelled

__all__ = [
    "ARGUMENT_FIELDS",
    "BLANK_FIELDS",
    "SUBCLASS_NAMES",
    "EXAMPLE_WRONG_ARGUMENTS",
    "Spec",
    "ValidSpec",
    "WrongArgument",
    "bad_paths",
    "example_invalid_specs",
    "example_valid_specs",
    "subclassed",
    "wrong_arguments",
    "wrong_type_specs",
    "blank_strings",
    "invalid_specs",
    "normalisable_paths",
    "valid_specs",
]

#: Whitespace a blank string may be made of; str.strip() removes all of them.
_WHITESPACE = " \t\n\r\x0b\x0c\u00a0\u2003\u3000"
_NAME_ALPHABET = "abcdefghijklmnopqrstuvwxyzé日"


def _make(code: str, target: Any, **judge: Any) -> Any:
    """Build a spec from its code: one recipe for the test and the lesson's
    snippet (the suite's own text, never a learner's); `judge`: `recast`."""
    return eval(code, {"target": target, **judge})  # noqa: S307


@dataclass(frozen=True)
class Spec:
    """An invalid specification: building it must raise ValueError.

    `code` builds it as Python, with the target loaded as `target` (a
    lesson's snippet makes it). `names` lists the words of which the error
    message must contain one.
    `binds` says whether the course level holds a learner to those words:
    only where the contract (blank strings, the uniqueness messages) or the
    course's own tests (a '..' file path, a bad exit_state) fix them; any
    other refusal's wording is the learner's at the course level, and only
    the hardened level asks it to name the field.
    """

    what: str
    names: tuple[str, ...]
    rule: str
    binds: bool = True
    code: str = field(default="", repr=False, compare=False)

    def __str__(self) -> str:
        return self.what

    def make(self, target: Any, **judge: Any) -> Any:
        return _make(self.code, target, **judge)


@dataclass(frozen=True)
class ValidSpec:
    """A valid specification and the attribute values its object must hold
    (`code` builds it as Python, as `Spec.code`, with `recast` in `make`'s)."""

    what: str
    holds: tuple[tuple[str, object], ...]
    rule: str
    code: str = field(default="", repr=False, compare=False)

    def __str__(self) -> str:
        return self.what

    def make(self, target: Any, **judge: Any) -> Any:
        return _make(self.code, target, **judge)


def blank_strings() -> st.SearchStrategy[str]:
    """Empty or whitespace-only strings; the empty one first."""
    return st.text(_WHITESPACE, max_size=4)


def _names() -> st.SearchStrategy[str]:
    return st.text(_NAME_ALPHABET, min_size=1, max_size=5)


def _relative() -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(_names(), min_size=1, max_size=3).map(tuple)


# --- one required string blank -------------------------------------------------------

# field words -> its call shown, with that field set to {!r}
_BLANKABLE: dict[str, str] = {
    "final substring": "EvaluationCase(final_contains={!r})",
    "file path": "FileExpectation(path={!r}, content='x')",
    "result tool": "ResultExpectation(tool={!r}, contains='x')",
    "result substring": "ResultExpectation(tool='read_file', contains={!r})",
    "receipt call id": "ReceiptExpectation(tool_call_id={!r}, ...)",
    "receipt tool": "ReceiptExpectation('call-1', tool={!r}, ...)",
    "receipt result substring": (
        "ReceiptExpectation('call-1', 'edit_file', 'ok', result_contains={!r})"
    ),
}
BLANK_FIELDS = tuple(_BLANKABLE)

# field words -> the Python that builds it with that field set to {!r}
_BLANK_CODE: dict[str, str] = {
    "final substring": "target.EvaluationCase({!r})",
    "file path": "target.FileExpectation({!r}, 'x')",
    "result tool": "target.ResultExpectation({!r}, 'x')",
    "result substring": "target.ResultExpectation('read_file', {!r})",
    "receipt call id": "target.ReceiptExpectation({!r}, 'edit_file', 'ok', 'x')",
    "receipt tool": "target.ReceiptExpectation('call-1', {!r}, 'ok', 'x')",
    "receipt result substring": (
        "target.ReceiptExpectation('call-1', 'edit_file', 'ok', {!r})"
    ),
}


def _blank_spec(name: str, value: str) -> Spec:
    shown = _BLANKABLE[name]
    return Spec(
        shown.format(value),
        (name,),
        f"a blank or whitespace-only {name} is refused",
        code=_BLANK_CODE[name].format(value),
    )


# --- paths ---------------------------------------------------------------------


@st.composite
def bad_paths(draw: Any) -> str:
    """Paths a case must refuse: absolute, '.', with a '..' component, with NUL."""
    parts = list(draw(_relative()))
    how = draw(st.sampled_from(("absolute", "dot", "dotdot", "nul")))
    if how == "absolute":
        return "/" + "/".join(parts)
    if how == "dot":  # '.' any number of times, each with 0-2 slashes after
        slashes = draw(st.lists(st.integers(0, 2), min_size=1, max_size=4))
        return "/".join("." + "/" * n for n in slashes)
    if how == "dotdot":
        at = draw(st.integers(0, len(parts)))
        return "/".join([*parts[:at], "..", *parts[at:]])
    text = "/".join(parts)
    at = draw(st.integers(0, len(text)))
    return text[:at] + "\0" + text[at:]


def _file_path_spec(path: str) -> Spec:
    # The course's tests name 'file path' for a relative path with a '..'
    # component; an absolute, '.' or NUL path may be refused in other words.
    climbs = not path.startswith("/") and "\0" not in path and ".." in path.split("/")
    return Spec(
        f"FileExpectation(path={path!r}, content='x')",
        ("file path",),
        "a file path that is absolute, '.', has a '..' component or a NUL is refused",
        binds=climbs,
        code=f"target.FileExpectation({path!r}, 'x')",
    )


def _artifact_spec(path: str, before: tuple[str, ...]) -> Spec:
    artifacts = (*before, path)
    return Spec(
        f"ReceiptExpectation('call-1', 'edit_file', 'ok', 'x',"
        f" changed_artifacts={artifacts!r})",
        ("changed artifact",),
        "a changed artifact that is absolute, '.', has a '..' component or a NUL"
        " is refused",
        binds=False,
        code="target.ReceiptExpectation('call-1', 'edit_file', 'ok', 'x',"
        f" {artifacts!r})",
    )


def normalisable_paths() -> st.SearchStrategy[tuple[tuple[str, ...], str]]:
    """A normalised path (as parts) and one spelling of it."""
    return st.tuples(_relative(), st.sampled_from(SPELLINGS))


# --- exit states, groups, duplicates ------------------------------------------------

_BAD_EXIT_STATES = ("", "OK", "Ok", " ok", "ok ", "error\n", "ERROR", "success", "err")


def _exit_spec(value: str) -> Spec:
    return Spec(
        f"ReceiptExpectation('call-1', 'edit_file', exit_state={value!r}, 'x')",
        ("exit_state", "exit state"),
        "an exit state other than 'ok' or 'error' is refused",
        code=f"target.ReceiptExpectation('call-1', 'edit_file', {value!r}, 'x')",
    )


def _group_item_code(kind: str, i: int) -> str:
    """`_group_item` as Python."""
    if kind == "file":
        return f"target.FileExpectation('f{i}.txt', 'x')"
    if kind == "result":
        return f"target.ResultExpectation('read_file', 'r{i}')"
    return f"target.ReceiptExpectation('call-{i}', 'edit_file', 'ok', 'x')"


_GROUP_KINDS = {"files": "file", "results": "result", "receipts": "receipt"}
# Wrong items: (shown, as Python)
_WRONG_ITEMS: tuple[tuple[str, str], ...] = (
    ("None", "None"),
    ("'a.txt'", "'a.txt'"),
    ("a FileExpectation", "target.FileExpectation('w.txt', 'x')"),
    ("a ResultExpectation", "target.ResultExpectation('read_file', 'w')"),
    (
        "a ReceiptExpectation",
        "target.ReceiptExpectation('call-w', 'edit_file', 'ok', 'w')",
    ),
    ("a tuple", "('w.txt', 'x')"),
)
# A group that is not a tuple: (shown, as Python around its items: {items}
# as written in a call, {tuple} as a tuple). A bare expectation is the
# group's one item as is, not inside anything.
_NOT_TUPLES = {
    "list": ("a list", "[{items}]"),
    "bare": ("one bare expectation, not in a tuple", "{items}"),
    "frozenset": ("a frozenset", "frozenset({tuple})"),
    "generator": ("a generator", "(item for item in {tuple})"),
    "mapping": ("a dict keyed by index", "dict(enumerate({tuple}))"),
}


def _group_spec(group: str, shape: str, size: int) -> Spec:
    """A group given as something other than a tuple of its type."""
    kind = _GROUP_KINDS[group]
    shown, around = _NOT_TUPLES[shape]
    items = [_group_item_code(kind, i) for i in range(1 if shape == "bare" else size)]
    written = ", ".join(items)
    group_code = around.format(items=written, tuple=f"({written},)" if items else "()")
    code = f"target.EvaluationCase('done', {group}={group_code})"
    return Spec(
        f"{code.removeprefix('target.')} ({shown})",
        (group,),
        f"{group} must be a tuple of {kind} expectations: {shown} is refused",
        binds=False,
        code=code,
    )


# A look-alike of a group's own expectation: its contract fields under its
# very type name (a namespace, a same-named class or dataclass, a dict), so
# an evaluator that duck-types the items, or checks type(x).__name__, is met.
_ITEM_FIELDS = {
    "file": ("FileExpectation", (("path", "w.txt"), ("content", "x"))),
    "result": ("ResultExpectation", (("tool", "read_file"), ("contains", "w"))),
    "receipt": (
        "ReceiptExpectation",
        (
            ("tool_call_id", "call-w"),
            ("tool", "edit_file"),
            ("exit_state", "ok"),
            ("result_contains", "w"),
            ("changed_artifacts", ()),
        ),
    ),
}
_ITEM_SHAPES = {
    "namespace": "__import__('types').SimpleNamespace(**{values})",
    "class": "type({name!r}, (), {values})()",
    "dataclass": "__import__('dataclasses')"
    ".make_dataclass({name!r}, {names})(**{values})",
    "mapping": "{values}",
}


def _lookalike_item(kind: str, shape: str) -> tuple[str, str]:
    """(shown, as Python) for a `shape` look-alike of `kind`'s expectation."""
    name, fields = _ITEM_FIELDS[kind]
    values = dict(fields)
    code = _ITEM_SHAPES[shape].format(name=name, names=list(values), values=values)
    return f"a {shape} look-alike of {name}", code


def _wrong_item_spec(group: str, wrong: int, size: int, at: int) -> Spec:
    kind = _GROUP_KINDS[group]
    if wrong < len(_WRONG_ITEMS):
        shown, wrong_code = _WRONG_ITEMS[wrong]
    else:
        shown, wrong_code = _lookalike_item(
            kind, tuple(_ITEM_SHAPES)[wrong - len(_WRONG_ITEMS)]
        )
    at = min(at, size)
    codes = [_group_item_code(kind, i) for i in range(size)]
    codes.insert(at, wrong_code)
    code = f"target.EvaluationCase('done', {group}=({', '.join(codes)},))"
    # An item of the right type is not wrong: skip those pairs by construction.
    return Spec(
        f"EvaluationCase('done', {group}=(... {shown} at index {at} ...))",
        (group,),
        f"{group} must hold only {kind} expectations",
        binds=False,
        code=code,
    )


def _wrong_items(group: str) -> list[int]:
    """The wrong items for `group`: every other kind of value, then every
    look-alike of its own expectation (numbered after _WRONG_ITEMS)."""
    own = {"files": 2, "results": 3, "receipts": 4}[group]
    others = [i for i in range(len(_WRONG_ITEMS)) if i != own]
    return others + [len(_WRONG_ITEMS) + i for i in range(len(_ITEM_SHAPES))]


def _others(count: int, start: int) -> tuple[int, ...]:
    # Indexes of unrelated expectations; "_" and digits are in no drawn name,
    # so `_other<i>` never equals a duplicated path or call id.
    return tuple(range(start, start + count))


def _duplicate_path_spec(
    parts: tuple[str, ...], first: str, second: str, between: int = 0, after: int = 0
) -> Spec:
    """Two expectations for one path, `between` other files apart.

    Uniqueness is a property of the whole tuple: a check that compares each
    path with its neighbour only accepts `(a, b, a)`, so the duplicate is
    drawn at non-adjacent positions too.
    """
    a, b = spelled(parts, first), spelled(parts, second)
    middle, tail = _others(between, 0), _others(after, between)
    shown = [f"FileExpectation({a!r}, '1')"]
    shown += [f"FileExpectation('_other{i}', 'x')" for i in middle]
    shown += [f"FileExpectation({b!r}, '2')"]
    shown += [f"FileExpectation('_other{i}', 'x')" for i in tail]
    return Spec(
        f"EvaluationCase('done', files=({', '.join(shown)}))",
        ("file paths must be unique",),
        "two file expectations for one path (after normalisation) are refused,"
        " wherever they stand in the tuple",
        code="target.EvaluationCase('done', files=("
        + ", ".join(f"target.{item}" for item in shown)
        + "))",
    )


def _duplicate_call_spec(call_id: str, before: int, between: int = 0) -> Spec:
    """Two receipt expectations under one call id, `between` others apart
    (non-adjacent duplicates as much as adjacent ones)."""

    other_code = "target.ReceiptExpectation('_other{}', 'edit_file', 'ok', 'x')"
    codes = [
        *(other_code.format(i) for i in _others(before, 0)),
        f"target.ReceiptExpectation({call_id!r}, 'edit_file', 'ok', 'edited')",
        *(other_code.format(i) for i in _others(between, before)),
        f"target.ReceiptExpectation({call_id!r}, 'run_command', 'error', 'status')",
    ]

    return Spec(
        f"EvaluationCase('done', receipts=({before} other, {call_id!r},"
        f" {between} other, {call_id!r}))",
        ("receipt call ids must be unique",),
        "two receipt expectations under one call id are refused, wherever they"
        " stand in the tuple",
        code=f"target.EvaluationCase('done', receipts=({', '.join(codes)}))",
    )


def invalid_specs() -> st.SearchStrategy[Spec]:
    """Specifications breaking exactly one rejection rule; simplest rules first."""
    return st.one_of(
        st.builds(_blank_spec, st.sampled_from(BLANK_FIELDS), blank_strings()),
        st.builds(_file_path_spec, bad_paths()),
        st.builds(
            _artifact_spec,
            bad_paths(),
            st.lists(_relative().map("/".join), max_size=2).map(tuple),
        ),
        st.builds(
            _exit_spec,
            st.one_of(
                st.sampled_from(_BAD_EXIT_STATES),
                st.text(max_size=6).filter(lambda s: s not in ("ok", "error")),
            ),
        ),
        st.builds(
            _group_spec,
            st.sampled_from(tuple(_GROUP_KINDS)),
            st.sampled_from(tuple(_NOT_TUPLES)),
            st.integers(0, 2),
        ),
        st.sampled_from(tuple(_GROUP_KINDS)).flatmap(
            lambda group: st.builds(
                _wrong_item_spec,
                st.just(group),
                st.sampled_from(_wrong_items(group)),
                st.integers(0, 2),
                st.integers(0, 2),
            )
        ),
        st.builds(
            _duplicate_path_spec,
            _relative(),
            st.sampled_from(SPELLINGS),
            st.sampled_from(SPELLINGS),
            st.integers(0, 2),
            st.integers(0, 1),
        ),
        st.builds(
            _duplicate_call_spec,
            st.text(_NAME_ALPHABET + "-0123456789 ", min_size=1, max_size=8).filter(
                lambda s: s.strip() != ""
            ),
            st.integers(0, 2),
            st.integers(0, 2),
        ),
    )


#: One hand-written invalid specification per rule, for explicit examples.
def example_invalid_specs() -> list[Spec]:
    return [
        *(_blank_spec(name, value) for name in BLANK_FIELDS for value in ("", " \t")),
        _file_path_spec("/etc/passwd"),
        _file_path_spec("."),
        _file_path_spec("./."),
        _file_path_spec("a/../b"),
        _file_path_spec("../escape"),
        _file_path_spec("a\0b"),
        _artifact_spec("/abs.txt", ("ok.txt",)),
        _artifact_spec(".", ()),
        _artifact_spec(".//", ()),
        _artifact_spec("x/../y", ()),
        _artifact_spec("a\0b", ()),
        *(_exit_spec(v) for v in ("maybe", "OK", " ok", "")),
        *(
            _group_spec(group, shape, 1)
            for group in _GROUP_KINDS
            for shape in _NOT_TUPLES
        ),
        _group_spec("files", "list", 0),
        *(_wrong_item_spec(g, w, 1, 1) for g in _GROUP_KINDS for w in _wrong_items(g)),
        _duplicate_path_spec(("a", "b"), "plain", "double_slash"),
        _duplicate_path_spec(("a", "b"), "plain", "dot_slash"),
        _duplicate_path_spec(("a", "b"), "plain", "trailing_slash"),
        _duplicate_path_spec(("a", "b"), "plain", "plain"),
        _duplicate_call_spec("call-1", 0),
        # Not neighbours: (a, b, a) and (x, a, b, c, a), refused as (a, a, b) is.
        _duplicate_path_spec(("a", "b"), "plain", "plain", between=1),
        _duplicate_path_spec(("a", "b"), "plain", "dot_slash", between=2, after=1),
        _duplicate_call_spec("call-1", 0, between=1),
        _duplicate_call_spec("call-1", 1, between=2),
    ]


# --- values of the wrong type ---------------------------------------------

_NON_STRINGS: tuple[tuple[str, object], ...] = (
    ("None", None),
    ("1", 1),
    ("b'x'", b"x"),
)


def _non_string_spec(name: str, shown: str, value: object) -> Spec:
    call = _BLANKABLE[name]
    return Spec(
        call.replace("{!r}", shown),
        (name,),
        f"a {name} that is not a string is refused",
        binds=False,
        code=_BLANK_CODE[name].replace("{!r}", shown),
    )


def wrong_type_specs() -> list[Spec]:
    """Values of a type the contract's annotations exclude, one per field.

    The contract's list of rejections names blank strings and bad paths; its
    annotations (``content: str``, ``changed_artifacts: tuple[str, ...]``)
    exclude the rest, and the course's reference refuses each of these with a
    ValueError, so the refusal holds at the course level too; the words of
    the message bind only at the hardened level (`Spec.binds`).
    """
    specs = [
        _non_string_spec(name, shown, value)
        for name in BLANK_FIELDS
        for shown, value in _NON_STRINGS
    ]
    specs += [
        Spec(
            f"FileExpectation('a.txt', content={shown})",
            ("file content",),
            "file content that is not a string is refused",
            binds=False,
            code=f"target.FileExpectation('a.txt', {shown})",
        )
        for shown, value in _NON_STRINGS
    ]
    specs += [
        Spec(
            "ReceiptExpectation('call-1', 'edit_file', 'ok', 'x', ['a.txt']) (a list)",
            ("changed artifacts", "changed_artifacts"),
            "changed artifacts must be a tuple: a list is refused",
            binds=False,
            code="target.ReceiptExpectation('call-1', 'edit_file', 'ok', 'x',"
            " ['a.txt'])",
        ),
        Spec(
            "ReceiptExpectation('call-1', 'edit_file', None, 'x')",
            ("exit_state", "exit state"),
            "an exit state that is not a string is refused",
            binds=False,
            code="target.ReceiptExpectation('call-1', 'edit_file', None, 'x')",
        ),
    ]
    return specs


# --- arguments of the wrong type ------------------------------------------------


@dataclass(frozen=True)
class WrongArgument:
    """Something that is not the argument evaluate_run needs at position `p`.

    `code` makes it as Python, with `arguments` (the right ones), `p` and
    `fields` (the right type's name and contract fields) in scope, by setting
    `arguments[p]`; `make` runs that code, so the lesson's snippet is the
    test's own recipe.
    """

    what: str
    code: str

    def __str__(self) -> str:
        return self.what

    def make(self, arguments: list[Any], position: int) -> Any:
        fields = ARGUMENT_FIELDS[position]
        scope = {"arguments": list(arguments), "p": position, "fields": fields}
        exec(self.code, scope)  # the suite's own recipe, never a learner's text
        return scope["arguments"][position]


#: Each argument's type and fields as the contract names them: a look-alike
#: is built from these (a target's objects may live in a worker, where only
#: their attributes can be read).
ARGUMENT_FIELDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("AgentRun", ("completed", "reason", "final", "events", "modified_files")),
    ("Workspace", ("policy", "confirm_tool", "receipt_store")),
    ("ReceiptStore", ("path",)),
    ("EvaluationCase", ("final_contains", "files", "results", "receipts")),
)
# A look-alike holds the right argument's fields under its type's very name,
# so an evaluator that checks type(x).__name__ or duck-types is met too.
_LOOKALIKES = {
    "namespace": "types.SimpleNamespace(**values)",
    "class": "type(name, (), values)()",
    "dataclass": "dataclasses.make_dataclass(name, list(values))(**values)",
    "mapping": "values",
}


def _lookalike(shape: str, dropped: int) -> WrongArgument:
    less = f" but its last {dropped}" if dropped else ""
    return WrongArgument(
        f"a {shape} look-alike with the right argument's fields{less}",
        "import dataclasses, types\nname, names = fields\n"
        f"names = names[: len(names) - {dropped}]\n"
        "values = {k: getattr(arguments[p], k) for k in names}\n"
        f"arguments[p] = {_LOOKALIKES[shape]}",
    )


def wrong_arguments() -> st.SearchStrategy[WrongArgument]:
    """Anything that is not the argument a position needs: a bare value, the
    right argument in a list or tuple, another argument, or a look-alike (a
    namespace, a same-named class or dataclass, a dict) of its fields."""
    bare = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
    return st.one_of(
        (bare | st.binary(max_size=4)).map(
            lambda v: WrongArgument(repr(v), f"arguments[p] = {v!r}")
        ),
        st.builds(_lookalike, st.sampled_from(tuple(_LOOKALIKES)), st.integers(0, 2)),
        st.sampled_from(("[arguments[p]]", "(arguments[p],)")).map(
            lambda code: WrongArgument(code, f"arguments[p] = {code}")
        ),
        st.integers(1, 3).map(
            lambda n: WrongArgument(
                f"another argument ({n} on)", f"arguments[p] = arguments[(p + {n}) % 4]"
            )
        ),
    )


#: Written-out wrong arguments with their positions, met under any seed:
#: a few bare ones, and every look-alike in place of every argument.
EXAMPLE_WRONG_ARGUMENTS: tuple[tuple[int, WrongArgument], ...] = (
    (0, WrongArgument("None", "arguments[p] = None")),
    (1, WrongArgument("{}", "arguments[p] = {}")),
    (2, WrongArgument("another argument", "arguments[p] = arguments[(p + 1) % 4]")),
    *((p, _lookalike(shape, 0)) for shape in _LOOKALIKES for p in range(4)),
)


# --- an instance of a subclass of the right type: valid ------------------------


def subclassed(value: str, base: str, name: str) -> str:
    """Python recasting `value` as a subclass `name` of `base`, adding nothing."""
    return f"recast({value}, {base!r}, {name!r})"


#: A subclass's name: any capitalised word (its base's own name is one too).
SUBCLASS_NAMES = st.from_regex(r"[A-Z][A-Za-z]{0,11}", fullmatch=True)


# --- valid near misses ---------------------------------------------------------------


def _valid_strings(inner: str) -> list[ValidSpec]:
    value = f" {inner} x\t"  # whitespace inside and around, never only
    return [
        ValidSpec(
            f"EvaluationCase(final_contains={value!r})",
            (("final_contains", value),),
            "a final substring with whitespace in it is kept verbatim",
            code=f"target.EvaluationCase({value!r})",
        ),
        ValidSpec(
            f"ResultExpectation(tool={value!r}, contains={value!r})",
            (("tool", value), ("contains", value)),
            "result strings with whitespace in them are kept verbatim",
            code=f"target.ResultExpectation({value!r}, {value!r})",
        ),
        ValidSpec(
            f"ReceiptExpectation({value!r}, {value!r}, 'error', {value!r})",
            (
                ("tool_call_id", value),
                ("tool", value),
                ("exit_state", "error"),
                ("result_contains", value),
                ("changed_artifacts", ()),
            ),
            "receipt strings with whitespace in them are kept verbatim",
            code=f"target.ReceiptExpectation({value!r}, {value!r}, 'error', {value!r})",
        ),
    ]


# "cafe\u0301" spells é as e + a combining accent: a path is kept byte for
# byte, never Unicode-normalised (NFC would name another file).
_ODD_NAMES = (
    "a/..b",
    "...",
    "..a",
    "a..",
    ".hidden",
    "a/.b",
    "a b/c d.txt",
    "日本/é",
    "cafe\u0301.txt",
)


def _valid_file(path: str, content: str) -> ValidSpec:
    return ValidSpec(
        f"FileExpectation({path!r}, {content!r})",
        (("path", path), ("content", content)),
        "a relative path whose names merely contain dots, spaces or any Unicode"
        " is valid and kept as written, and content may be empty or blank",
        code=f"target.FileExpectation({path!r}, {content!r})",
    )


def _valid_repeats(result: tuple[str, str], times: int) -> ValidSpec:
    return ValidSpec(
        f"EvaluationCase('done', results=({times} x ResultExpectation{result!r}))",
        (("len(results)", times),),
        "result expectations may repeat",
        code=f"target.EvaluationCase('done', results=(target.ResultExpectation"
        f"{result!r},) * {times})",
    )


def _valid_case_sensitive(name: str) -> ValidSpec:
    upper = name.upper()
    return ValidSpec(
        f"EvaluationCase('done', files for {name!r} and {upper!r}, receipts under"
        f" {name!r} and {upper!r})",
        (("len(files)", 2), ("len(receipts)", 2)),
        "paths and call ids that differ only in case are different",
        code=f"target.EvaluationCase('done', files=(target.FileExpectation({name!r},"
        f" '1'), target.FileExpectation({upper!r}, '2')), receipts=("
        f"target.ReceiptExpectation({name!r}, 'edit_file', 'ok', 'x'),"
        f" target.ReceiptExpectation({upper!r}, 'edit_file', 'ok', 'x')))",
    )


def _valid_empty() -> ValidSpec:
    return ValidSpec(
        "EvaluationCase('done') with every group empty",
        (("len(files)", 0), ("len(results)", 0), ("len(receipts)", 0)),
        "empty groups are valid",
        code="target.EvaluationCase('done', files=(), results=(), receipts=())",
    )


def _valid_subclass_item(group: str, name: str) -> ValidSpec:
    kind = _GROUP_KINDS[group]
    base = _ITEM_FIELDS[kind][0]
    made = subclassed(_group_item_code(kind, 0), base, name)
    return ValidSpec(
        f"EvaluationCase('done', {group}=({name}(...),)), {name} a subclass of {base}",
        ((f"len({group})", 1),),
        f"an instance of a subclass of {base} is one: {group} may hold it",
        code=f"target.EvaluationCase('done', {group}=({made},))",
    )


def valid_specs() -> st.SearchStrategy[ValidSpec]:
    """Valid specifications close to invalid ones; each must be accepted as is."""
    return st.one_of(
        st.builds(_valid_strings, st.text(_NAME_ALPHABET, max_size=4)).flatmap(
            st.sampled_from
        ),
        st.builds(
            _valid_file,
            st.sampled_from(_ODD_NAMES),
            st.one_of(st.just(""), blank_strings(), st.text(max_size=8)),
        ),
        st.builds(
            _valid_repeats,
            st.tuples(st.sampled_from(("read_file", "run_command")), _names()),
            st.integers(2, 3),
        ),
        st.builds(_valid_case_sensitive, _names().filter(lambda s: s != s.upper())),
        st.just(_valid_empty()),
        st.builds(
            _valid_subclass_item, st.sampled_from(tuple(_GROUP_KINDS)), SUBCLASS_NAMES
        ),
    )


def example_valid_specs() -> list[ValidSpec]:
    return [
        *_valid_strings("a b"),
        *(_valid_file(name, "") for name in _ODD_NAMES),
        _valid_file("notes.txt", "   \n"),
        _valid_repeats(("read_file", "x"), 2),
        _valid_case_sensitive("a.txt"),
        _valid_empty(),
        *(_valid_subclass_item(group, "Mine") for group in _GROUP_KINDS),
    ]
