"""The JSON schema documented in docs/checking-a-class.md, and a checker for it.

The schema is read from the document itself (the ```json block after the
`<!-- schema: day7-verify/1 -->` line), so the document and the command
cannot drift apart unnoticed. The checker knows the few JSON Schema words the
document uses (type, const, enum, required, properties, additionalProperties,
items, minimum, $ref into $defs) and refuses any other, so a word added to the
document without support here fails loudly instead of checking nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "docs" / "checking-a-class.md"

_BLOCK = re.compile(r"<!-- schema: day7-verify/1 -->\s*```json\n(.*?)\n```", re.S)
_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}
_KNOWN = {
    "$schema",
    "title",
    "description",
    "type",
    "const",
    "enum",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "minimum",
    "$ref",
    "$defs",
}


def documented_schema() -> dict[str, Any]:
    match = _BLOCK.search(DOCUMENT.read_text(encoding="utf-8"))
    if match is None:
        raise AssertionError(f"no day7-verify/1 schema block in {DOCUMENT}")
    return json.loads(match.group(1))


def _is(value: Any, name: str) -> bool:
    if name in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[name])


def problems(
    value: Any, schema: dict[str, Any], root: dict[str, Any], at: str = "$"
) -> list[str]:
    """Where `value` breaks `schema` (an empty list when it does not)."""
    unknown = set(schema) - _KNOWN
    if unknown:
        raise AssertionError(f"the checker does not know {sorted(unknown)} (at {at})")
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return problems(value, root["$defs"][name], root, at)
    found: list[str] = []
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(value, name) for name in names):
            return [f"{at}: {value!r:.60} is not {' or '.join(names)}"]
    if "const" in schema and value != schema["const"]:
        found.append(f"{at}: {value!r:.60} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{at}: {value!r:.60} is not one of {schema['enum']}")
    if "minimum" in schema and _is(value, "number") and value < schema["minimum"]:
        found.append(f"{at}: {value} is below {schema['minimum']}")
    if isinstance(value, dict):
        for name in schema.get("required", ()):
            if name not in value:
                found.append(f"{at}: {name!r} is missing")
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                found += problems(item, properties[name], root, f"{at}.{name}")
            elif extra is False:
                found.append(f"{at}: {name!r} is not allowed")
            elif isinstance(extra, dict):
                found += problems(item, extra, root, f"{at}.{name}")
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            found += problems(item, schema["items"], root, f"{at}[{index}]")
    return found


def report_problems(report: Any) -> list[str]:
    """Where a report breaks the documented schema."""
    schema = documented_schema()
    return problems(report, schema, schema)
