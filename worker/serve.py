"""The worker: the only process where a learner's code runs.

Run by judge/remote.py as one script with audit.py (judge/script.py), in the
sandbox when there is one: loads the target, answers requests one JSON object a
line (docs/worker-protocol.md), sees no truth or verdict, and names no judge."""

import base64
import builtins
import contextlib
import dataclasses
import faulthandler
import functools
import importlib.util
import inspect
import itertools
import json
import os
import signal
import sys
import traceback
import types
from pathlib import Path, PurePath
from typing import Any

from worker.audit import AccessRecorder

PROTOCOL = 1
#: The longest line either side sends; how deep and wide a value is followed.
MAX_LINE, MAX_DEPTH, MAX_ITEMS = 8 << 20, 12, 20_000
CHECK_FIELDS = (("name", str), ("passed", bool), ("detail", str))  # judge/shape.py's
READ = ("raised", "rows", "passed", "render", "text", "text_raised")  # (not repr)
PACKAGE = "agent"  # a learner's folder, as a package (its relative imports work)


def short_repr(value: object, limit: int = 80) -> str:
    try:
        text = repr(value)
    except Exception as error:  # the target's own __repr__ may raise
        text = f"<{type(value).__name__} whose repr() raised {type(error).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _fields(owner: Any, fields: Any) -> list[Any]:  # the wrong type: [repr]
    read = []
    for name, kind in fields:
        read.append(value := getattr(owner, name, None))
        if not isinstance(value, kind):
            read[-1] = [short_repr(value)]
            break
    return read


def describe_name(value: Any) -> dict[str, Any]:
    """What the surface invariant asks of one Day 7 name, as plain data."""
    info: dict[str, Any] = {"repr": short_repr(value), "parameters": None}
    info["is_class"] = is_class = isinstance(value, type)
    info["attributes"] = {name: hasattr(value, name) for name in ("passed", "render")}
    if is_class:
        info.update(name=value.__name__, value_error=issubclass(value, ValueError))
        info["bases"] = [base.__name__ for base in value.__bases__]
        slots = vars(value).get("__slots__")
        info["slots"] = None if slots is None else short_repr(slots)
        if info.setdefault("dataclass", dataclasses.is_dataclass(value)):
            info["init_fields"] = [f.name for f in dataclasses.fields(value) if f.init]
            params = getattr(value, "__dataclass_params__", None)
            info["frozen"] = bool(getattr(params, "frozen", False))
    with contextlib.suppress(TypeError, ValueError):
        signature = inspect.signature(value)
        info["parameters"] = [
            [p.name, int(p.kind), p.default is not inspect.Parameter.empty]
            for p in signature.parameters.values()
        ]
        info["signature"] = str(signature)
    return info


def canon(value: object, depth: int = 0) -> Any:
    """`value` as plain data, equal exactly when a deep copy would be; callables
    left out of an object's attributes (spies are the judge's, not its state)."""
    kind, deeper = type(value).__name__, depth + 1
    if depth > MAX_DEPTH:
        return ["deep", kind]
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return [kind, value.hex() if isinstance(value, bytes) else value]
    if isinstance(value, PurePath):
        return ["path", str(value)]
    if isinstance(value, (tuple, list)):
        return [kind, [canon(item, deeper) for item in value[:MAX_ITEMS]]]
    if isinstance(value, (set, frozenset)):
        return [kind, sorted((canon(item, deeper) for item in value), key=repr)]
    if isinstance(value, dict):
        return [kind, [[canon(k, deeper), canon(v, deeper)] for k, v in value.items()]]
    if isinstance(value, type):
        return ["class", value.__module__, value.__qualname__]
    try:
        attributes = vars(value)
    except TypeError:
        return ["object", kind, short_repr(value, 200)]
    kept = (n for n, v in attributes.items() if not callable(v) or isinstance(v, type))
    return ["object", kind, sorted((n, canon(attributes[n], deeper)) for n in kept)]


def load(config: dict[str, Any]) -> tuple[dict[str, object], dict[str, Any] | None]:
    """The target's Day 7 names (the judge's `names`), from its folder's
    `modules` or its `module`; or none, and the error its import raised."""
    folder, modules, at = config.get("folder"), [], "it"
    try:
        if folder:
            spec = importlib.machinery.ModuleSpec(PACKAGE, None, is_package=True)
            spec.submodule_search_locations = [folder]
            sys.modules[PACKAGE] = importlib.util.module_from_spec(spec)
            for at in (f"{name}.py" for name in config["modules"]):
                if os.path.isfile(os.path.join(folder, at)):
                    modules.append(importlib.import_module(f"{PACKAGE}.{at[:-3]}"))
        else:
            modules.append(importlib.import_module(config["module"]))
    except BaseException as error:  # a learner's import may raise anything
        missing = getattr(error, "name", None)  # the module not found, if one
        return {}, {"at": at, "name": missing, **_error_data(error)}
    names = config["names"]
    return {n: getattr(m, n) for m in modules for n in names if hasattr(m, n)}, None


class Server:
    """The handle table, the channel, and the requests it serves."""

    def __init__(self, reader: Any, writer: Any) -> None:
        self.reader, self.writer = reader, writer
        self.names: dict[str, object] = {}
        self.objects: dict[int, object] = {}
        self.numbers, self.callbacks = itertools.count(1), itertools.count(1)
        self.batch: list[Any] = []
        self.seen = 0  # the modules a report's reading already named
        into = self.into
        # One class per name and base (as judge.recast): alike, they compare equal.
        sub = functools.cache(lambda n, b: type(n, (b,), {"__slots__": ()}))
        self.tags = {  # what each tag of a value the judge sends becomes here
            "$t": lambda items: tuple(into(items)),
            "$d": lambda pairs: {into(k): into(v) for k, v in pairs},
            "$h": lambda number: self.objects[number],
            "$n": lambda name: self.names[name],
            "$p": Path,
            "$b": base64.b64decode,
            "$fs": lambda items: frozenset(into(items)),
            "$set": lambda items: set(into(items)),
            "$ns": lambda fields: types.SimpleNamespace(**into(fields)),
            "$sub": lambda nb: sub(nb[0], into(nb[1])),
            "$bi": lambda name: getattr(builtins, name),
            "$cb": lambda number: functools.partial(self.call_back, number),
            "$opaque": lambda n: object() if n == "object" else type(str(n), (), {})(),
            "$r": lambda index: self.batch[index],
            "$w": lambda name: self.own[name],
        }
        self.own = {  # what the judge may call here besides the target's names
            "getattr": getattr,
            "setattr": setattr,
            "force": object.__setattr__,  # past a frozen dataclass's own __setattr__
            "special": lambda it, name, *args: getattr(type(it), name)(it, *args),
            "items": lambda target: list(itertools.islice(iter(target), MAX_ITEMS)),
            "repr": lambda target: short_repr(target, 400),
            "replace": dataclasses.replace,
            "report": self.view,
            "describe": lambda: {n: describe_name(v) for n, v in self.names.items()},
            "state": lambda objects: {k: canon(v) for k, v in objects.items()},
            "getcwd": os.getcwd,
            "environ": os.environ.copy,
            "audit": self.audited,
        }

    def out(self, value: Any, depth: int = 0) -> Any:
        """`value` as tagged data; what is not data stays here, as a handle."""
        if value is None or isinstance(value, (bool, int, float, str)):
            return value  # a subclass is sent as its base: json.dumps reads it so
        kind, out = type(value), lambda item: self.out(item, depth + 1)
        if depth <= 4 * MAX_DEPTH:  # deeper than any report: a handle
            plain = isinstance(value, tuple) and not hasattr(value, "_fields")
            if kind is list or plain:  # a named tuple stays here
                items = [out(item) for item in value[:MAX_ITEMS]]
                return items if kind is list else {"$t": items}
            if kind is dict:
                pairs = itertools.islice(value.items(), MAX_ITEMS)
                return {"$d": [[out(k), out(v)] for k, v in pairs]}
            if kind in (set, frozenset):
                return {"$fs" if kind is frozenset else "$set": [out(i) for i in value]}
            if isinstance(value, bytes):
                return {"$b": base64.b64encode(value).decode("ascii")}
            if isinstance(value, PurePath):
                return {"$p": os.fspath(value)}
        self.objects[number := next(self.numbers)] = value
        return {"$h": number, "type": kind.__name__}

    def into(self, value: Any) -> Any:
        """The judge's tagged data as values here (a dict is one tag, its data)."""
        if isinstance(value, list):
            return [self.into(item) for item in value]
        if not isinstance(value, dict):
            return value
        [(tag, data)] = value.items()
        return self.tags[tag](data)  # type: ignore[operator]

    def send(self, message: dict[str, Any]) -> None:
        # A line over MAX_LINE is the judge's to refuse (as a crash), never raised.
        data = json.dumps(message, separators=(",", ":")) + "\n"
        self.writer.write(data.encode("utf-8", "surrogatepass"))
        self.writer.flush()

    def serve(self, until_callback: int | None = None) -> Any:
        """Answer requests until the judge is gone, or with `until_callback`
        until that callback's answer, which it returns."""
        while line := self.reader.readline(MAX_LINE + 1):
            message = json.loads(line)  # bytes: decoded with surrogatepass
            if "cb" in message:
                if message["cb"] != until_callback:
                    continue  # an answer nobody waits for any more
                if "raise" in message:  # the exception, made as the judge says
                    raise self.step(message["raise"])
                return self.into(message.get("ok"))
            for number in message.get("release", ()):
                self.objects.pop(number, None)
            reply: dict[str, Any] = {"id": message.get("id")}
            try:
                if message.get("op") == "batch":
                    value = self.run(message["steps"])
                elif message.get("view"):
                    value = {"value": (v := self.step(message)), "view": self.view(v)}
                else:
                    value = self.step(message)
                reply["ok"] = self.out(value)
            except BaseException as error:  # the target's doing, sent as data
                reply["raised"] = _error_data(error)
                reply["fatal"] = isinstance(error, MemoryError)
            self.send(reply)
        os._exit(0)  # the judge is gone

    def step(self, step: dict[str, Any]) -> Any:
        """One call: `fn` (maybe a `method` of it), `args`, `kwargs`."""
        fn = self.into(step["fn"])
        fn = getattr(fn, step["method"]) if "method" in step else fn
        args = self.into(step.get("args", []))
        return fn(*args, **self.into(step.get("kwargs", {"$d": []})))

    def run(self, steps: list[dict[str, Any]]) -> dict[str, Any]:
        """Steps in order, a later one naming an earlier one's result as
        `{"$r": i}`; stops at the first that raises, saying which."""
        outer, self.batch = self.batch, (results := [])  # a callback may batch too
        said: dict[str, Any] = {"results": results}
        try:
            for step in steps:
                results.append(self.step(step))
        except BaseException as error:
            said.update(failed=len(results), raised=_error_data(error))
        finally:
            self.batch = outer
        return said

    def view(self, report: Any) -> dict[str, Any]:
        """The report read as data as its call returns, then again (reading.py)."""
        said, again = self.read(report), self.read(report)
        said["unstable"] = [said.get(k) for k in READ] != [again.get(k) for k in READ]
        now = list(sys.modules.values())  # and the files of modules loaded since
        files = [str(getattr(m, "__file__", None)) for m in now[self.seen :]]
        self.seen = len(now)
        return {**said, "repr": short_repr(report, 400), "files": files}

    def read(self, report: Any) -> dict[str, Any]:
        """Its rows, .passed, render(), up to the first of the wrong type."""
        said: dict[str, Any] = {"none": report is None, "rows": None}
        try:
            said["checks"] = short_repr(checks := getattr(report, "checks", None))
            if report is None or not isinstance(checks, tuple):
                return said
            said["rows"] = rows = [_fields(check, CHECK_FIELDS) for check in checks]
            if any(isinstance(row[-1], list) for row in rows):
                return said
            [said["passed"]] = _fields(report, [("passed", bool)])
            said["render"] = callable(render := getattr(report, "render", None))
        except BaseException as error:
            return {"raised": _error_data(error)}
        try:
            text = render() if said["render"] else None
            said["text"] = text if isinstance(text, str) else [short_repr(text)]
        except BaseException as error:
            said["text_raised"] = _error_data(error)
        return said

    def call_back(self, number: int, *args: Any, **kwargs: Any) -> Any:
        """Call the judge's callable `number` (a `$cb`) and wait for its answer."""
        ask = next(self.callbacks)
        said = {"args": self.out(list(args)), "kwargs": self.out(dict(kwargs))}
        self.send({"cb": ask, "fn": number, **said})
        return self.serve(until_callback=ask)

    def audited(self, fn: Any, args: list[Any]) -> dict[str, Any]:
        """The call, with raw records of what it opened, started or changed and
        where this process imports from: the judge judges them (judge/access.py)."""
        recorder, outcome = AccessRecorder(), {}
        try:
            with recorder.armed(every_thread=True):  # the learner's threads too
                outcome["value"] = fn(*args)
        except BaseException as error:
            outcome["raised"] = _error_data(error)
        outcome.update(accesses=recorder.accesses[:1000], places=recorder.places)
        if "value" in outcome:  # the report, read as a call's is
            outcome["view"] = self.view(outcome["value"])
        return outcome


def _error_data(error: BaseException, depth: int = 0) -> dict[str, Any]:
    """An exception as data read under a guard (docs/worker-protocol.md's fields)."""
    kind, group = type(error), getattr(builtins, "BaseExceptionGroup", ())  # 3.11 on
    builtin = next(k for k in kind.__mro__ if k.__module__ == "builtins")
    frames = traceback.walk_tb(error.__traceback__)
    where = [[f.f_code.co_filename, n, f.f_code.co_name] for f, n in frames][-8:]
    said = {"type": kind.__name__, "builtin": builtin.__name__, "where": where[::-1]}
    try:  # the target's own __str__ may raise (short_repr guards its __repr__)
        said["message"] = str(error)[:4000]
    except Exception as failed:
        said["message"] = f"(its str() raised {type(failed).__name__})"
    said["repr"] = short_repr(error, 4000)
    with contextlib.suppress(Exception):  # a learner's class may make each raise
        said.update(qualname=kind.__qualname__, module=kind.__module__)
        said["args"] = [
            a if type(a) in (bool, int, str) and len(repr(a)) < 4000 else None
            for a in error.args[:20]
        ]
        if isinstance(error, group) and depth < 4:
            said["group"] = [_error_data(e, depth + 1) for e in error.exceptions[:20]]
        said["notes"] = [n[:4000] for n in error.__notes__[:20] if type(n) is str]
    return said


def main() -> None:
    """Load the target the judge's first line names, then serve the judge."""
    # The channel is stdin and stdout as they were; the target prints to stderr.
    server = Server(os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb"))
    os.dup2(os.open(os.devnull, os.O_RDWR), 0)
    os.dup2(2, 1)
    config = json.loads(server.reader.readline(MAX_LINE + 1))
    sys.path += [p for p in dict.fromkeys(config.get("path", ())) if p not in sys.path]
    # The stack, for a hang's lesson, on SIGUSR1 or a late load: from C.
    hang = os.fdopen(config["hang_fd"], "w")
    faulthandler.register(signal.SIGUSR1, file=hang, all_threads=False)
    faulthandler.dump_traceback_later(config["load_seconds"], file=hang)
    server.names, failed = load(config)
    faulthandler.cancel_dump_traceback_later()
    if failed:  # the judge says why, in one line
        server.send({"protocol": PROTOCOL, "load_error": failed})
        os._exit(0)
    names = {name: isinstance(value, type) for name, value in server.names.items()}
    server.send({"protocol": PROTOCOL, "names": names})
    server.serve()
