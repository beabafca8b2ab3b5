"""Mutants of one Python module, generated from its syntax tree.

``generate(source)`` returns every single-point change the operators below
make to a module, each as a ``Mutant``: a stable id, where it is, what it
changes, and the whole mutated module (``ast.unparse`` of the tree with that
one node replaced). It is pure and deterministic: the same source gives the
same mutants, in the same order, with the same ids, on Python 3.10 to 3.13.

A mutant's id is ``LINE:COL:OPERATOR`` (1-based line and column of the node
the operator changes, as the parser counts them) with ``~2``, ``~3``, ...
appended when one place gets the same operator twice. Inside an f-string the
place is the f-string's own start and the operator names the part
(``fstr1-wrap``): the parser has placed f-string parts differently since
Python 3.12, and ids must not depend on the interpreter.

Docstrings, annotations and f-string format specs are not mutated: none of
them is behaviour. A change whose module unparses exactly like the original
or like an earlier mutant is dropped, so every mutant is a distinct program.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = ["OPERATORS", "Mutant", "MutationError", "generate", "roundtrip"]

#: Every operator, by the prefix of the slug it gives, and what it does.
OPERATORS: dict[str, str] = {
    "cmp": "a comparison swapped: == !=, < <=, > >=, in / not in, is / is not",
    "boolop": "and / or swapped",
    "boolop-drop": "one operand of an and / or removed",
    "not-remove": "a `not` removed",
    "not-insert": "a condition negated (if, while, ternary, assert, comprehension)",
    "bool": "True / False flipped",
    "num": "a number plus or minus one",
    "str": "a string wrapped in XX...XX, emptied, or an empty one filled",
    "fstr": "a literal part of an f-string wrapped, emptied or filled",
    "except-drop": "one exception removed from an `except (A, B)` tuple",
    "return-None": "a returned value replaced by None",
    "raise-remove": "a raise statement replaced by pass",
    "if": "an if condition forced to True or False",
    "call-remove": "a call made as a statement removed",
    "args-swap": "two adjacent positional arguments of a call swapped",
    "any-all": "any() and all() swapped",
    "method": "a string method swapped for its twin (startswith / endswith, ...)",
    "binop": "an arithmetic operator swapped: + -, * /, // /",
}

_COMPARE_SWAPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}

_BINOP_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
}

_METHOD_SWAPS: dict[str, tuple[str, ...]] = {
    "startswith": ("endswith",),
    "endswith": ("startswith",),
    "strip": ("lstrip", "rstrip"),
    "lstrip": ("strip",),
    "rstrip": ("strip",),
    "lower": ("upper",),
    "upper": ("lower",),
    "find": ("rfind",),
    "rfind": ("find",),
    "index": ("rindex",),
    "rindex": ("index",),
    "split": ("rsplit",),
    "rsplit": ("split",),
    "removeprefix": ("removesuffix",),
    "removesuffix": ("removeprefix",),
}

_NO_SWAP = ("isinstance", "issubclass")

_CONDITION_OWNERS = (ast.If, ast.While, ast.IfExp, ast.Assert)

# Comparisons whose swap is their exact negation.
_NEGATED_BY_SWAP = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)

# Shown in a mutant's description; long expressions are cut to this.
_SHOWN = 72


class MutationError(ValueError):
    """The source cannot be mutated (it does not parse); one line says why."""


@dataclass(frozen=True)
class Mutant:
    """One single-point change of a module.

    ``before`` and ``after`` are the changed node unparsed, for a reader;
    ``source`` is the whole mutated module.
    """

    number: int
    id: str
    line: int
    col: int
    operator: str
    scope: str
    before: str
    after: str
    line_before: str  # the source line the mutant is on
    line_after: str  # that line mutated; "" when the node spans lines
    source: str

    @property
    def description(self) -> str:
        return f"{self.before} -> {self.after}"

    def to_dict(self) -> dict[str, object]:
        return {
            "number": self.number,
            "id": self.id,
            "line": self.line,
            "col": self.col,
            "operator": self.operator,
            "scope": self.scope,
            "before": self.before,
            "after": self.after,
            "line_before": self.line_before,
            "line_after": self.line_after,
        }


@dataclass(frozen=True)
class _Change:
    """What one operator proposes at one node: a slug and the replacement.

    ``shown`` overrides the ``before -> after`` a reader sees, where the
    whole node would hide the change (an operand dropped from a long chain).
    """

    slug: str
    replacement: ast.AST
    shown: tuple[str, str] | None = None


@dataclass(frozen=True)
class _Site:
    """A node, where it hangs in the tree, and the names around it."""

    node: ast.AST
    parent: ast.AST | None
    field: str
    index: int | None  # the position in the parent's list field, if any
    scope: str
    fstring: ast.JoinedStr | None  # the f-string a literal part belongs to
    part: int  # that part's index in the f-string

    def replace(self, new: ast.AST) -> None:
        if self.index is None:
            setattr(self.parent, self.field, new)
        else:
            getattr(self.parent, self.field)[self.index] = new


def _shown(node: ast.AST) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _is_docstring(body: list[ast.stmt], index: int) -> bool:
    statement = body[index]
    return (
        index == 0
        and isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _skipped(parent: ast.AST, field: str) -> bool:
    """Fields that are not behaviour: annotations and format specs."""
    if field in ("annotation", "returns", "type_comment", "format_spec"):
        return True
    return isinstance(parent, ast.AnnAssign) and field == "target"


def _sites(tree: ast.Module) -> Iterator[_Site]:
    """Every mutable node, parents before children, in source order."""

    def visit(
        node: ast.AST,
        parent: ast.AST | None,
        field: str,
        index: int | None,
        scope: str,
        fstring: ast.JoinedStr | None,
        part: int,
    ) -> Iterator[_Site]:
        yield _Site(node, parent, field, index, scope, fstring, part)
        inner = scope
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            inner = f"{scope}.{node.name}" if scope else node.name
        for name, value in ast.iter_fields(node):
            if _skipped(node, name):
                continue
            if isinstance(value, list):
                for position, child in enumerate(value):
                    if not isinstance(child, ast.AST):
                        continue
                    if name == "body" and _is_docstring(value, position):
                        continue
                    if isinstance(node, ast.JoinedStr):
                        yield from visit(
                            child, node, name, position, inner, node, position
                        )
                    else:
                        yield from visit(child, node, name, position, inner, None, 0)
            elif isinstance(value, ast.AST):
                yield from visit(value, node, name, None, inner, None, 0)

    for index, statement in enumerate(tree.body):
        if _is_docstring(tree.body, index):
            continue
        yield from visit(statement, tree, "body", index, "", None, 0)


# ---------------------------------------------------------------------------
# The operators. Each looks at one site and proposes zero or more changes to
# that site's node; none of them touches the tree.


def _compare(site: _Site) -> Iterator[_Change]:
    node = site.node
    if not isinstance(node, ast.Compare):
        return
    for position, op in enumerate(node.ops):
        swapped = _COMPARE_SWAPS.get(type(op))
        if swapped is None:
            continue
        new = copy.copy(node)
        new.ops = [*node.ops[:position], swapped(), *node.ops[position + 1 :]]
        where = "cmp" if position == 0 else f"cmp{position}"
        yield _Change(f"{where}-{type(op).__name__}-{swapped.__name__}", new)


def _boolop(site: _Site) -> Iterator[_Change]:
    node = site.node
    if not isinstance(node, ast.BoolOp):
        return
    other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    yield _Change(
        f"boolop-{type(node.op).__name__}-{type(other).__name__}",
        ast.BoolOp(op=other, values=list(node.values)),
    )
    for position in range(len(node.values)):
        rest = [value for index, value in enumerate(node.values) if index != position]
        kept = rest[0] if len(rest) == 1 else ast.BoolOp(op=node.op, values=rest)
        word = "and" if isinstance(node.op, ast.And) else "or"
        shown = (f"{word} {_shown(node.values[position])}", "(operand removed)")
        yield _Change(f"boolop-drop{position}", kept, shown)


def _not(site: _Site) -> Iterator[_Change]:
    node = site.node
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield _Change("not-remove", node.operand)
    is_condition = (
        isinstance(site.parent, _CONDITION_OWNERS) and site.field == "test"
    ) or (isinstance(site.parent, ast.comprehension) and site.field == "ifs")
    if is_condition and isinstance(node, ast.expr) and not _negation_elsewhere(node):
        yield _Change("not-insert", ast.UnaryOp(op=ast.Not(), operand=node))


def _negation_elsewhere(node: ast.expr) -> bool:
    """Whether another operator already makes ``not (node)``.

    Negating ``not x`` is ``x`` (not-remove), and negating ``a == b``,
    ``a in b`` or ``a is b`` is its comparison swap; a second, identical
    program under another name would only be counted twice.
    """
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True
    return (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], _NEGATED_BY_SWAP)
    )


def _constant(site: _Site) -> Iterator[_Change]:
    node = site.node
    if not isinstance(node, ast.Constant):
        return
    value = node.value
    prefix = "str" if site.fstring is None else f"fstr{site.part}"
    if isinstance(value, bool):
        yield _Change(f"bool-{value}-{not value}", ast.Constant(not value))
    elif isinstance(value, (int, float)):
        yield _Change("num-plus1", ast.Constant(value + 1))
        yield _Change("num-minus1", ast.Constant(value - 1))
    elif isinstance(value, (str, bytes)):
        mark = "XX" if isinstance(value, str) else b"XX"
        yield _Change(f"{prefix}-wrap", ast.Constant(mark + value + mark))
        if value:
            yield _Change(f"{prefix}-empty", ast.Constant(value[:0]))


def _except(site: _Site) -> Iterator[_Change]:
    node = site.node
    if not (
        isinstance(site.parent, ast.ExceptHandler)
        and site.field == "type"
        and isinstance(node, ast.Tuple)
        and len(node.elts) > 1
    ):
        return
    for position, dropped in enumerate(node.elts):
        rest = [elt for index, elt in enumerate(node.elts) if index != position]
        kept = rest[0] if len(rest) == 1 else ast.Tuple(elts=rest, ctx=ast.Load())
        yield _Change(f"except-drop-{_name(dropped)}", kept)


def _name(node: ast.AST) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in ast.unparse(node))


def _statement(site: _Site) -> Iterator[_Change]:
    node = site.node
    if isinstance(node, ast.Return) and node.value is not None:
        if not (isinstance(node.value, ast.Constant) and node.value.value is None):
            yield _Change("return-None", ast.Return(value=ast.Constant(None)))
    elif isinstance(node, ast.Raise) and not _guarded_alone(site):
        yield _Change("raise-remove", ast.Pass())
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        yield _Change("call-remove", ast.Pass())
    if (
        isinstance(site.parent, ast.If)
        and site.field == "test"
        and not isinstance(node, ast.Constant)
    ):
        yield _Change("if-True", ast.Constant(True))
        yield _Change("if-False", ast.Constant(False))


def _guarded_alone(site: _Site) -> bool:
    """Whether the statement is all an ``if`` without ``else`` does.

    Removing it is then the same program as forcing the condition to False
    (if-False), which is kept: it names the check rather than the raise.
    """
    parent = site.parent
    return (
        isinstance(parent, ast.If)
        and site.field == "body"
        and len(parent.body) == 1
        and not parent.orelse
    )


def _call(site: _Site) -> Iterator[_Change]:
    node = site.node
    if not isinstance(node, ast.Call):
        return
    func = node.func
    args = node.args
    # Swapping isinstance's arguments only ever raises TypeError: no one
    # writes that, and its kill would say nothing about the suite.
    swappable = not (isinstance(func, ast.Name) and func.id in _NO_SWAP)
    for position in range(len(args) - 1 if swappable else 0):
        first, second = args[position], args[position + 1]
        if isinstance(first, ast.Starred) or isinstance(second, ast.Starred):
            continue
        new = copy.copy(node)
        new.args = [*args[:position], second, first, *args[position + 2 :]]
        yield _Change(f"args-swap-{position}-{position + 1}", new)
    if isinstance(func, ast.Name) and func.id in ("any", "all"):
        twin = "all" if func.id == "any" else "any"
        new = copy.copy(node)
        new.func = ast.Name(id=twin, ctx=ast.Load())
        yield _Change(f"any-all-{func.id}-{twin}", new)
    if isinstance(func, ast.Attribute):
        for twin in _METHOD_SWAPS.get(func.attr, ()):
            new = copy.copy(node)
            new.func = ast.Attribute(value=func.value, attr=twin, ctx=ast.Load())
            yield _Change(f"method-{func.attr}-{twin}", new)


def _binop(site: _Site) -> Iterator[_Change]:
    node = site.node
    if not isinstance(node, (ast.BinOp, ast.AugAssign)):
        return
    swapped = _BINOP_SWAPS.get(type(node.op))
    if swapped is None:
        return
    new = copy.copy(node)
    new.op = swapped()
    yield _Change(f"binop-{type(node.op).__name__}-{swapped.__name__}", new)


_OPERATOR_FUNCTIONS: tuple[Callable[[_Site], Iterator[_Change]], ...] = (
    _compare,
    _boolop,
    _not,
    _constant,
    _except,
    _statement,
    _call,
    _binop,
)


def _anchor(site: _Site) -> ast.AST:
    """The node whose place names a mutant: an f-string for its parts."""
    return site.fstring if site.fstring is not None else site.node


def _line_after(lines: list[bytes], anchor: ast.AST, written: str) -> str:
    """The anchor's source line with the anchor rewritten, if it is one line.

    Column offsets count UTF-8 bytes, hence the byte lines.
    """
    line = anchor.lineno  # type: ignore[attr-defined]
    if anchor.end_lineno != line:  # type: ignore[attr-defined]
        return ""
    text = lines[line - 1]
    start = anchor.col_offset  # type: ignore[attr-defined]
    end = anchor.end_col_offset  # type: ignore[attr-defined]
    return (text[:start] + written.encode() + text[end:]).decode().rstrip()


def roundtrip(source: str, filename: str = "evaluation.py") -> str:
    """The module as every mutant is written: unparsed from its tree.

    Raises MutationError when the source does not parse, or when unparsing
    would change its meaning (the trees differ), which would make every
    verdict about the mutants meaningless.
    """
    tree = _parse(source, filename)
    written = ast.unparse(tree)
    if ast.dump(ast.parse(written)) != ast.dump(tree):
        raise MutationError(f"{filename}: ast.unparse does not reproduce its tree")
    return written


def _parse(source: str, filename: str) -> ast.Module:
    try:
        return ast.parse(source, filename=filename)
    except (SyntaxError, ValueError) as error:
        detail = error.msg if isinstance(error, SyntaxError) else str(error)
        line = getattr(error, "lineno", None)
        where = f" line {line}" if line else ""
        raise MutationError(f"{filename}{where}: does not parse: {detail}") from None


def generate(source: str, filename: str = "evaluation.py") -> tuple[Mutant, ...]:
    """Every distinct single-point mutant of ``source``, in source order."""
    original = roundtrip(source, filename)
    tree = _parse(source, filename)
    lines = source.encode().splitlines()
    seen_sources = {original}
    seen_ids: dict[str, int] = {}
    mutants: list[Mutant] = []
    for site in list(_sites(tree)):
        anchor = _anchor(site)
        for operator in _OPERATOR_FUNCTIONS:
            for change in operator(site):
                site.replace(change.replacement)
                try:
                    mutated = ast.unparse(tree)
                    anchor_after = ast.unparse(
                        change.replacement if anchor is site.node else anchor
                    )
                finally:
                    site.replace(site.node)
                if mutated in seen_sources:
                    continue
                seen_sources.add(mutated)
                try:
                    compile(mutated, filename, "exec", dont_inherit=True)
                except (SyntaxError, ValueError):
                    # None is known; a mutant that did not compile would be
                    # "killed" by the loader and inflate the score.
                    continue
                before, after = change.shown or (
                    _shown(site.node),
                    _shown(change.replacement),
                )
                line = anchor.lineno  # type: ignore[attr-defined]
                col = anchor.col_offset + 1  # type: ignore[attr-defined]
                base = f"{line}:{col}:{change.slug}"
                seen_ids[base] = seen_ids.get(base, 0) + 1
                mutant_id = base if seen_ids[base] == 1 else f"{base}~{seen_ids[base]}"
                mutants.append(
                    Mutant(
                        number=0,  # numbered once sorted
                        id=mutant_id,
                        line=line,
                        col=col,
                        operator=change.slug,
                        scope=site.scope or "<module>",
                        before=before,
                        after=after,
                        line_before=lines[line - 1].decode().rstrip(),
                        line_after=_line_after(lines, anchor, anchor_after),
                        source=mutated,
                    )
                )
    # Source order (a class's decorators are visited after its body); the
    # sort is stable, so one place keeps its operators' order and ordinals.
    mutants.sort(key=lambda mutant: (mutant.line, mutant.col))
    return tuple(
        dataclasses.replace(mutant, number=number)
        for number, mutant in enumerate(mutants, start=1)
    )
