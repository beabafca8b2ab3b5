"""The worker: the only process where a learner's code runs.

Started by the judge (`judge.remote`) as `python -I -S -B worker/`, in
the command's sandbox when there is one. It imports nothing but the
standard library, loads the target (a course folder as a synthetic package,
or a module by name), and then answers requests, one JSON object a line,
until its input ends. It never receives a world's kinds, its truth or the
verdicts a report should hold: only the calls the judge makes into the
target, with their arguments as data. docs/worker-protocol.md is the
protocol; this module is its worker half, and the judge imports three pure
helpers from it (`describe_name`, `report_problem`, `short_repr`) so a local
target is described by the same code.

Values cross as tagged JSON: None, bools, numbers and strings as themselves
(a string's lone surrogates survive: Python's json escapes them);
`{"$t": [...]}` a tuple, a list as a list, `{"$d": [[k, v], ...]}` a dict,
`{"$b": base64}` bytes, `{"$p": "..."}` a path, `{"$fs"|"$set": [...]}`
sets, `{"$ns": {...}}` a SimpleNamespace; any other object stays here and
crosses as a handle `{"$h": n, "type": name}`. A judge-side callable crosses
as `{"$cb": n}`: calling it here asks the judge, which may make requests of
its own before it answers. `{"$n": name}` is a Day 7 name, valid across
restarts. `{"$raiser": name}` is a function made here that raises the named
error (a store whose lookups fail).
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import faulthandler
import importlib
import importlib.machinery
import inspect
import itertools
import json
import os
import resource
import signal
import sys
import types
from pathlib import Path, PurePath
from typing import Any

PROTOCOL = 1

#: Every public name of the Day 7 surface (judge.target has the same).
REQUIRED_NAMES: tuple[str, ...] = (
    "AgentError",
    "FinalAction",
    "ToolAction",
    "AgentEvent",
    "AgentRun",
    "AgentLimits",
    "run_agent",
    "ToolPolicy",
    "ApprovalDecision",
    "Workspace",
    "EffectReceipt",
    "ReceiptStore",
    "FileExpectation",
    "ResultExpectation",
    "ReceiptExpectation",
    "EvaluationCase",
    "EvaluationCheck",
    "EvaluationReport",
    "evaluate_run",
)

DAY7_MODULES: tuple[str, ...] = (
    "protocol",
    "receipts",
    "workspace",
    "generation",
    "checkpoint",
    "loop",
    "evaluation",
)

#: Workspace methods evaluation must never call: each is a tool
#: (judge.snapshot spies on the same ones in-process).
SPIED_WORKSPACE_METHODS: tuple[str, ...] = (
    "read_file",
    "execute",
    "write_file",
    "edit_file",
    "run_command",
    "list_files",
)

#: The largest line either side sends.
MAX_LINE = 8 << 20
#: How deep a value is followed when it crosses, and how many items of one
#: container: a learner's report nests a few levels, never hundreds.
MAX_DEPTH = 12
MAX_ITEMS = 20_000


# --- pure helpers the judge shares ---------------------------------------------------


def short_repr(value: object, limit: int = 80) -> str:
    try:
        text = repr(value)
    except Exception as error:  # the target's own __repr__ may raise
        text = f"<{type(value).__name__} whose repr() raised {type(error).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def report_problem(report: Any) -> str | None:
    """How `report` is not shaped like an EvaluationReport (a noun phrase), or None."""
    if report is None:
        return "None"
    checks = getattr(report, "checks", None)
    if not isinstance(checks, tuple):
        shown = short_repr(checks)
        return f"a report whose .checks is {shown}; it must be a tuple"
    for index, check in enumerate(checks):
        for field, kind in (("name", str), ("passed", bool), ("detail", str)):
            value = getattr(check, field, None)
            if not isinstance(value, kind):
                return (
                    f"a report whose check {index} has {field}={short_repr(value)};"
                    f" it must be a {kind.__name__}"
                )
    passed = getattr(report, "passed", None)
    if not isinstance(passed, bool):
        return f"a report whose .passed is {short_repr(passed)}; it must be a bool"
    if not callable(getattr(report, "render", None)):
        return "a report without a render() method"
    return None


def describe_name(value: object) -> dict[str, Any]:
    """What the surface invariant asks of one Day 7 name, as plain data."""
    info: dict[str, Any] = {
        "repr": short_repr(value),
        "is_class": isinstance(value, type),
        "callable": callable(value),
    }
    if isinstance(value, type):
        info["bases"] = [base.__name__ for base in value.__bases__]
        info["name"] = value.__name__
        info["value_error"] = issubclass(value, ValueError)
        info["dataclass"] = dataclasses.is_dataclass(value)
        if info["dataclass"]:
            info["init_fields"] = [f.name for f in dataclasses.fields(value) if f.init]
            params = getattr(value, "__dataclass_params__", None)
            info["frozen"] = bool(getattr(params, "frozen", False))
        slots = vars(value).get("__slots__")
        info["slots"] = None if slots is None else short_repr(slots)
    info["attributes"] = {name: hasattr(value, name) for name in ("passed", "render")}
    try:
        signature = inspect.signature(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        info["parameters"] = None
    else:
        info["parameters"] = [
            [p.name, int(p.kind), p.default is not inspect.Parameter.empty]
            for p in signature.parameters.values()
        ]
        info["signature"] = str(signature)
    return info


def canon(value: object, depth: int = 0) -> Any:
    """`value` as comparable plain data: equal exactly when a deep copy would be.

    Dataclasses by their fields and any attribute added by force, containers
    by their items and their type, other objects by their instance
    attributes (callables left out: spies and replaced methods are the
    judge's, not the object's state).
    """
    if depth > MAX_DEPTH:
        return ["deep", type(value).__name__]
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return [
            type(value).__name__,
            value if not isinstance(value, bytes) else value.hex(),
        ]
    if isinstance(value, PurePath):
        return ["path", str(value)]
    if isinstance(value, (tuple, list)):
        return [
            type(value).__name__,
            [canon(item, depth + 1) for item in value[:MAX_ITEMS]],
        ]
    if isinstance(value, (set, frozenset)):
        items = sorted((canon(item, depth + 1) for item in value), key=repr)
        return [type(value).__name__, items]
    if isinstance(value, dict):
        pairs = [[canon(k, depth + 1), canon(v, depth + 1)] for k, v in value.items()]
        return [type(value).__name__, pairs]
    if isinstance(value, type):
        return ["class", value.__module__, value.__qualname__]
    try:
        attributes = vars(value)
    except TypeError:
        return ["object", type(value).__name__, short_repr(value, 200)]
    fields = {
        name: canon(item, depth + 1)
        for name, item in attributes.items()
        if not callable(item) or isinstance(item, type)
    }
    return ["object", type(value).__name__, sorted(fields.items())]


# --- loading ---------------------------------------------------------------------


class LoadFailed(Exception):
    pass


def _one_line(error: BaseException) -> str:
    try:
        text = " ".join(str(error).split())
    except Exception:
        text = "(its message cannot be printed)"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def load(config: dict[str, Any]) -> dict[str, object]:
    """The target's Day 7 names, from a folder or a module; LoadFailed says why."""
    folder = config.get("folder")
    modules: list[types.ModuleType] = []
    if folder:
        package_name = "_day7_target"
        package = types.ModuleType(package_name)
        package.__path__ = [folder]
        package.__package__ = package_name
        package.__spec__ = importlib.machinery.ModuleSpec(
            package_name, None, is_package=True
        )
        package.__spec__.submodule_search_locations = [folder]
        sys.modules[package_name] = package
        sys.dont_write_bytecode = True
        for name in DAY7_MODULES:
            if not os.path.isfile(os.path.join(folder, f"{name}.py")):
                continue
            try:
                modules.append(importlib.import_module(f"{package_name}.{name}"))
            except BaseException as error:  # a learner's import may raise anything
                message = _one_line(error).replace(f"{package_name}.", "")
                raise LoadFailed(f"importing {name}.py failed: {message}") from None
    else:
        name = config["module"]
        try:
            modules.append(importlib.import_module(name))
        except ModuleNotFoundError as error:
            if error.name is not None and name.startswith(error.name):
                raise LoadFailed(
                    f"no module named {error.name!r} is importable"
                    " (is it installed, or on sys.path?)"
                ) from None
            raise LoadFailed(f"importing it failed: {_one_line(error)}") from None
        except BaseException as error:
            raise LoadFailed(f"importing it failed: {_one_line(error)}") from None
    names: dict[str, object] = {}
    for module in modules:
        for name in REQUIRED_NAMES:
            if hasattr(module, name):
                names[name] = getattr(module, name)
    return names


# --- values ----------------------------------------------------------------------


class Gone(Exception):
    """A handle the judge no longer holds, or never held."""


class Worker:
    """The handle table, the channel, and the requests it serves."""

    def __init__(self, reader: Any, writer: Any, names: dict[str, object]) -> None:
        self.reader = reader
        self.writer = writer
        self.names = names
        self.objects: dict[int, object] = {}
        self.numbers = itertools.count(1)
        self.callbacks = itertools.count(1)
        self.spied: list[str] = []
        self.hang_file: Any = None
        self.batch: list[Any] = []

    # values out
    def out(self, value: object, depth: int = 0) -> Any:
        if value is None or isinstance(value, (bool, int, float)):
            return value
        if isinstance(value, str):
            return str(value)
        if depth > 4 * MAX_DEPTH:
            return self.handle(value)
        if type(value) in (tuple, list) or (
            isinstance(value, tuple) and not hasattr(value, "_fields")
        ):
            items = [self.out(item, depth + 1) for item in value[:MAX_ITEMS]]
            return items if isinstance(value, list) else {"$t": items}
        if type(value) is dict:
            return {
                "$d": [
                    [self.out(k, depth + 1), self.out(v, depth + 1)]
                    for k, v in itertools.islice(value.items(), MAX_ITEMS)
                ]
            }
        if isinstance(value, bytes):
            return {"$b": base64.b64encode(value).decode("ascii")}
        if isinstance(value, PurePath):
            return {"$p": os.fspath(value)}
        if type(value) in (set, frozenset):
            tag = "$fs" if isinstance(value, frozenset) else "$set"
            return {tag: [self.out(item, depth + 1) for item in value]}
        return self.handle(value)

    def handle(self, value: object) -> dict[str, Any]:
        number = next(self.numbers)
        self.objects[number] = value
        return {"$h": number, "type": type(value).__name__}

    # values in
    def into(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.into(item) for item in value]
        if not isinstance(value, dict):
            return value
        if "$t" in value:
            return tuple(self.into(item) for item in value["$t"])
        if "$d" in value:
            return {self.into(k): self.into(v) for k, v in value["$d"]}
        if "$h" in value:
            try:
                return self.objects[value["$h"]]
            except KeyError:
                raise Gone(f"handle {value['$h']} is not held") from None
        if "$n" in value:
            return self.names[value["$n"]]
        if "$p" in value:
            return Path(value["$p"])
        if "$b" in value:
            return base64.b64decode(value["$b"])
        if "$fs" in value:
            return frozenset(self.into(item) for item in value["$fs"])
        if "$set" in value:
            return {self.into(item) for item in value["$set"]}
        if "$ns" in value:
            return types.SimpleNamespace(**self.into(value["$ns"]))
        if "$cb" in value:
            return Callback(self, value["$cb"])
        if "$opaque" in value:
            name = str(value["$opaque"])
            return object() if name == "object" else type(name, (), {})()
        if "$r" in value:
            return self.batch[value["$r"]]
        if "$raiser" in value:
            return self.raiser(value["$raiser"])
        raise ValueError(f"an untagged object crossed: {sorted(value)[:3]}")

    def raiser(self, name: str) -> Any:
        if name == "junk":
            return lambda call_id: {"tool_call_id": call_id, "tool": "write_file"}
        if name == "AgentError" and isinstance(self.names.get(name), type):
            error_type = self.names[name]
        elif name in ("AgentError", "LookupFailure"):
            error_type = type(name, (Exception,), {})
        else:
            import builtins

            error_type = getattr(builtins, name)

        def get(call_id: str) -> Any:
            raise error_type(f"lookup of {call_id} broke")  # type: ignore[misc]

        return get

    # the channel
    def send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, separators=(",", ":")) + "\n"
        data = line.encode("utf-8", "surrogatepass")
        if len(data) > MAX_LINE:
            data = (
                json.dumps(
                    {
                        **{k: message[k] for k in ("id", "cb") if k in message},
                        "raised": _error_data(
                            ValueError(f"a reply of {len(data)} bytes is too long")
                        ),
                    }
                )
                + "\n"
            ).encode("utf-8")
        self.writer.write(data)
        self.writer.flush()

    def receive(self) -> dict[str, Any] | None:
        line = self.reader.readline(MAX_LINE + 1)
        if not line:
            return None
        return json.loads(line.decode("utf-8", "surrogatepass"))  # type: ignore[no-any-return]

    def serve(self, until_callback: int | None = None) -> Any:
        """Answer requests; with `until_callback`, return that callback's answer."""
        while True:
            message = self.receive()
            if message is None:
                os._exit(0)  # the judge is gone
            if "cb" in message:
                if message["cb"] != until_callback:
                    continue  # an answer nobody waits for any more
                if "raised" in message:
                    raise _rebuilt(message["raised"])
                return self.into(message.get("ok"))
            for number in message.get("release", ()):
                self.objects.pop(number, None)
            reply: dict[str, Any] = {"id": message.get("id")}
            try:
                reply["ok"] = self.out(self.dispatch(message))
            except BaseException as error:  # the target's doing, sent as data
                if isinstance(error, (KeyboardInterrupt, SystemExit)) and getattr(
                    error, "_day7_judge", False
                ):
                    raise
                reply["raised"] = _error_data(error)
                if isinstance(error, MemoryError):
                    reply["fatal"] = True
            self.send(reply)
            if reply.get("fatal"):
                os._exit(3)

    def arm_dump(self, seconds: Any) -> None:
        """Only while loading: the judge asks for the stack (SIGUSR1) later."""
        if (
            self.hang_file is not None
            and isinstance(seconds, (int, float))
            and seconds > 0
        ):
            faulthandler.dump_traceback_later(seconds, file=self.hang_file)

    def disarm_dump(self) -> None:
        if self.hang_file is not None:
            faulthandler.cancel_dump_traceback_later()

    def dispatch(self, message: dict[str, Any]) -> Any:
        op = message.get("op")
        if op == "call":
            fn = self.into(message["fn"])
            args = self.into(message.get("args", []))
            kwargs = self.into(message.get("kwargs", {"$d": []}))
            if not message.get("view"):
                return fn(*args, **kwargs)
            # evaluate_run: a report, its rows and who built each check, in one answer.
            makers = Makers(fn, self.names.get("EvaluationCheck"))
            with makers.recording():
                value = fn(*args, **kwargs)
            return {"value": value, "view": self.view(value, makers)}
        if op == "batch":
            return self.run_batch(message["steps"])
        if op == "getattr":
            return getattr(self.into(message["obj"]), message["name"])
        if op == "setattr":
            target = self.into(message["obj"])
            value = self.into(message["value"])
            if message.get("force"):
                object.__setattr__(target, message["name"], value)
            else:
                setattr(target, message["name"], value)
            return None
        if op == "special":
            target = self.into(message["obj"])
            args = self.into(message.get("args", []))
            name = message["name"]
            if name == "__iter__":
                return list(itertools.islice(iter(target), MAX_ITEMS))
            if name == "repr":
                return short_repr(target, 400)
            if name == "isinstance":
                return isinstance(target, args[0])
            if name == "callable":
                return callable(target)
            return getattr(type(target), name)(target, *args)
        if op == "replace":
            return dataclasses.replace(
                self.into(message["obj"]), **self.into(message["changes"])
            )
        if op == "report":
            return self.view(self.into(message["obj"]))
        if op == "describe":
            return {name: describe_name(value) for name, value in self.names.items()}
        if op == "state":
            return self.state(self.into(message["objects"]))
        if op == "spy":
            self.spy(self.into(message["workspace"]), self.into(message["stores"]))
            return None
        if op == "spied":
            calls, self.spied = self.spied, []
            return calls
        if op == "audit":
            return self.audited(message)
        if op == "ping":
            return os.getpid()
        raise ValueError(f"unknown op {op!r}")

    def view(self, report: Any, makers: Makers | None = None) -> dict[str, Any]:
        """The report's shape problem, or its rows (and, from `makers`, the
        learner's function that built each row's check, or None); what it
        raised while read."""
        said: dict[str, Any] = {"problem": None, "rows": None}
        try:
            said["problem"] = report_problem(report)
            if said["problem"] is None:
                checks = report.checks
                said["rows"] = [[c.name, c.passed, c.detail] for c in checks]
                if makers is not None:
                    built = makers.built
                    said["makers"] = [built.get(id(c), (c, None))[1] for c in checks]
        except BaseException as error:
            return {"raised": _error_data(error)}
        return said

    def run_batch(self, steps: list[dict[str, Any]]) -> dict[str, Any]:
        """Calls in order, a later one naming an earlier one's result as
        `{"$r": i}`; stops at the first that raises, saying which."""
        self.batch = results = []
        try:
            for index, step in enumerate(steps):
                try:
                    if "force" in step:
                        owner = self.into(step["force"])
                        object.__setattr__(
                            owner, step["name"], self.into(step["value"])
                        )
                        results.append(None)
                        continue
                    fn = self.into(step["fn"])
                    if "method" in step:
                        fn = getattr(fn, step["method"])
                    args = self.into(step.get("args", []))
                    kwargs = self.into(step.get("kwargs", {"$d": []}))
                    results.append(fn(*args, **kwargs))
                except BaseException as error:
                    return {
                        "results": results,
                        "failed": index,
                        "raised": _error_data(error),
                    }
            return {"results": results}
        finally:
            self.batch = []

    def state(self, objects: dict[str, Any]) -> dict[str, Any]:
        state = {label: canon(value) for label, value in objects.items()}
        try:
            state["the process's working directory"] = os.getcwd()
        except OSError as error:
            state["the process's working directory"] = f"<unavailable: {error}>"
        state["the process's environment"] = dict(os.environ)
        return state

    def spy(self, workspace: Any, stores: list[Any]) -> None:
        calls = self.spied

        def recording(label: str, original: Any) -> Any:
            def spy(*args: Any, **kwargs: Any) -> Any:
                shown = ", ".join(
                    [
                        *(repr(a) for a in args),
                        *(f"{k}={v!r}" for k, v in kwargs.items()),
                    ]
                )
                calls.append(f"{label}({shown})")
                return original(*args, **kwargs)

            return spy

        for name in SPIED_WORKSPACE_METHODS:
            original = getattr(workspace, name, None)
            if callable(original):
                setattr(workspace, name, recording(f"workspace.{name}", original))
        seen: dict[int, Any] = {id(store): store for store in stores}
        store = getattr(workspace, "receipt_store", None)
        if store is not None:
            seen[id(store)] = store
        for store in seen.values():
            original = getattr(store, "put", None)
            if callable(original):
                store.put = recording("receipts.put", original)

    def audited(self, message: dict[str, Any]) -> Any:
        """The call, with every open, process, socket and change it made recorded."""
        from worker.audit import AccessRecorder

        fn = self.into(message["fn"])
        args = self.into(message.get("args", []))
        recorder = AccessRecorder()
        outcome: dict[str, Any] = {}
        try:
            with recorder.armed():
                outcome["value"] = fn(*args)
        except BaseException as error:
            outcome["raised"] = _error_data(error)
        from worker.audit import is_module_file

        # The import system reading modules of this process is not the call's doing.
        outcome["accesses"] = [
            [a.kind, a.event, str(a.raw)[:300], a.reached, bool(a.writes)]
            for a in recorder.accesses
            if not is_module_file(a)
        ][:1000]
        return outcome


class Makers:
    """Which of the learner's functions built each check `evaluate_run` returns.

    While recording, each module-level function of `evaluate_run`'s module
    (its helpers, defined in its file) is bound in that module to a wrapper
    that notes the first of them to return each check object: the
    innermost, the one that built it. The bindings are put back after the
    call. A check `evaluate_run` built itself (or rebuilt from a helper's)
    is a new object, noted by nobody: the judge then names evaluate_run.
    Not a trace hook: that slows every line of the call (the Day 1-6 code
    it reaches too) about twofold, where a wrapper costs one call per
    helper call. What this says is the learner's word (their code could
    forge it): it only words a lesson's hint, never a verdict.
    """

    def __init__(self, evaluate: Any, check_type: Any) -> None:
        self.evaluate = evaluate if type(evaluate) is types.FunctionType else None
        self.check_type = check_type if isinstance(check_type, type) else None
        # id -> (the check, its maker): the check is held so its id is not reused.
        self.built: dict[int, tuple[object, str]] = {}

    @contextlib.contextmanager
    def recording(self) -> Any:
        evaluate = self.evaluate
        module = None if evaluate is None else evaluate.__globals__
        if self.check_type is None or type(module) is not dict:
            yield
            return
        home = evaluate.__code__.co_filename  # type: ignore[union-attr]
        # Only what reads as a plain function here: nothing of the
        # learner's runs (an alias, a method or a lambda is no name to give).
        originals = {
            name: value
            for name, value in list(module.items())
            if type(value) is types.FunctionType
            and value is not evaluate
            and value.__globals__ is module
            and value.__code__.co_filename == home
            and value.__code__.co_name == name
            and not name.startswith("__")
        }
        wrappers = {name: self._noting(f, name) for name, f in originals.items()}
        module.update(wrappers)
        try:
            yield
        finally:
            for name, wrapper in wrappers.items():
                if module.get(name) is wrapper:  # unless the learner rebound it
                    module[name] = originals[name]

    def _noting(self, function: Any, name: str) -> Any:
        built, check_type = self.built, self.check_type

        def noting(*args: Any, **kwargs: Any) -> Any:
            value = function(*args, **kwargs)
            if (
                type(value) is check_type
                and id(value) not in built
                and len(built) < MAX_ITEMS
            ):
                built[id(value)] = (value, name)
            return value

        return noting


class Callback:
    """A judge-side callable: calling it asks the judge and waits for its answer."""

    def __init__(self, worker: Worker, number: int) -> None:
        self._worker = worker
        self._number = number

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        worker = self._worker
        ask = next(worker.callbacks)
        worker.send(
            {
                "cb": ask,
                "fn": self._number,
                "args": worker.out(list(args)),
                "kwargs": worker.out(dict(kwargs)),
            }
        )
        return worker.serve(until_callback=ask)

    def __repr__(self) -> str:
        return f"<judge callable {self._number}>"


def _error_data(error: BaseException) -> dict[str, Any]:
    """An exception as data: its type, the builtin it derives from, its message."""
    builtin = next(
        (
            klass.__name__
            for klass in type(error).__mro__
            if klass.__module__ == "builtins" and issubclass(klass, BaseException)
        ),
        "BaseException",
    )
    try:
        message = str(error)
    except Exception:
        message = "(its message cannot be printed)"
    tb = error.__traceback__
    where = []
    while tb is not None:
        where.append(
            [tb.tb_frame.f_code.co_filename, tb.tb_lineno, tb.tb_frame.f_code.co_name]
        )
        tb = tb.tb_next
    return {
        "type": type(error).__name__,
        "builtin": builtin,
        "message": message[:4000],
        "where": where[-8:][::-1],
    }


def _rebuilt(data: dict[str, Any]) -> BaseException:
    """The judge's answer to a callback was an exception: raise one like it."""
    import builtins

    base = getattr(builtins, str(data.get("builtin")), Exception)
    if not (isinstance(base, type) and issubclass(base, Exception)):
        base = Exception
    kind = type(str(data.get("type", "Exception")), (base,), {})
    return kind(str(data.get("message", "")))


# --- start -----------------------------------------------------------------------


def _limit(config: dict[str, Any]) -> None:
    memory = config.get("memory")
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (int(memory), int(memory)))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def main() -> None:
    # The channel is the standard input and output as they were; from here
    # on the target reads nothing and what it prints goes to the standard
    # error it shares with the judge (the command keeps its tail, bounded).
    reader = os.fdopen(os.dup(0), "rb")
    writer = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    line = reader.readline(MAX_LINE + 1)
    config = json.loads(line.decode("utf-8", "surrogatepass"))
    hang_fd = config.get("hang_fd")
    _limit(config)
    if config.get("cwd"):
        os.chdir(config["cwd"])
    for entry in config.get("path", ()):
        if entry not in sys.path:
            sys.path.append(entry)
    worker = Worker(reader, writer, {})
    if isinstance(hang_fd, int):
        worker.hang_file = os.fdopen(hang_fd, "w")
        # The judge, about to end a call that outlived its deadline, asks for
        # the stack with SIGUSR1: written from C, so a loop that holds the
        # interpreter or blocks other signals still says where it was.
        faulthandler.register(signal.SIGUSR1, file=worker.hang_file, all_threads=False)
    worker.arm_dump(config.get("load_seconds"))
    try:
        names = load(config)
    except LoadFailed as error:
        worker.send({"protocol": PROTOCOL, "load_error": str(error)})
        os._exit(0)
    finally:
        worker.disarm_dump()
    worker.names = names
    worker.send(
        {
            "protocol": PROTOCOL,
            "names": {
                name: describe_name(value)["is_class"] for name, value in names.items()
            },
            "pid": os.getpid(),
        }
    )
    worker.serve()


if __name__ == "__main__":
    main()
