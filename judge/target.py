"""Load the implementation under test: an importable module, or a course folder.

The suite judges any implementation of the Day 7 surface. Everything else in
it reaches that implementation through one `Target`, chosen here, so the same
properties run against the bundled `evaluator`, the course's reference, or a
learner's unfinished folder.

A course folder cannot be imported as a package on most machines: its
`__init__.py` pulls in every day of the week, and with them an Apple-only
array library. So a folder is loaded as a synthetic package whose `__path__`
is the folder and whose `__init__.py` never runs; only the modules the Day 7
surface lives in are imported, and they import nothing but the standard
library and each other.

A name the target does not define becomes a stand-in: the suite still
collects and runs, and only the facts that use the name fail, each saying
"X is not defined in <target>".

Importing is running the target's code, so only the bundled evaluator (ours)
is imported here, plainly. Every other target is imported by a worker
(judge.remote): one that raises anything at import (even SystemExit or
KeyboardInterrupt) or does not finish importing within `IMPORT_SECONDS`
(the worker is ended from outside) cannot be loaded, and says so in one
line.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

__all__ = [
    "BUNDLED_MODULE",
    "DAY7_MODULES",
    "IMPORT_SECONDS",
    "LEVELS",
    "REQUIRED_NAMES",
    "MissingNameError",
    "Target",
    "TargetError",
    "load_target",
]

#: The Day 7 surface and the modules that define it (the worker is told them
#: with the target: it imports nothing of this package). Only names a learner
#: has at Day 7 and keeps at every later day: Day 8's `ApprovalDecision`,
#: Day 8's branching and Day 9's evidence modules are not required.
REQUIRED_NAMES = tuple(
    "AgentError FinalAction ToolAction AgentEvent AgentRun AgentLimits run_agent"
    " ToolPolicy Workspace EffectReceipt ReceiptStore"
    " FileExpectation ResultExpectation ReceiptExpectation EvaluationCase"
    " EvaluationCheck EvaluationReport evaluate_run".split()
)
DAY7_MODULES = tuple(
    "protocol receipts workspace generation checkpoint loop evaluation".split()
)

_MODULE_FILES = ", ".join(f"{name}.py" for name in DAY7_MODULES)

#: `course`: the chapter's rules. `hardened`: those plus the bundled
#: evaluator's own (no hang on a FIFO or device, bounded reads, nothing
#: opened outside the root).
LEVELS: tuple[str, ...] = ("course", "hardened")

#: The module judged when no target is named: our own evaluator.
BUNDLED_MODULE = "evaluator"

#: How long a worker may take to import the target. The course's modules
#: import only the standard library and each other, in milliseconds.
IMPORT_SECONDS = 10.0


class TargetError(Exception):
    """The target cannot be loaded; the message is one line saying why."""


class MissingNameError(NameError):
    """A test used a Day 7 name that the target does not define."""


class _StandInType(type):
    """Metaclass of stand-ins: any real use raises MissingNameError.

    `isinstance` and `issubclass` answer False rather than raising, so a
    check like `isinstance(report, target.EvaluationReport)` reads as "not a
    report" instead of crashing the code that asks.
    """

    _missing_message: str

    def __call__(cls, *args: Any, **kwargs: Any) -> NoReturn:
        __tracebackhide__ = True
        raise MissingNameError(cls._missing_message)

    def __getattr__(cls, attribute: str) -> Any:
        # Introspection (pytest, Hypothesis, inspect, dataclasses) probes
        # dunder names and expects AttributeError; give it that, worded the
        # same way. Anything else is a test using the missing name.
        __tracebackhide__ = True
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(cls._missing_message)
        raise MissingNameError(cls._missing_message)

    def __instancecheck__(cls, instance: object) -> bool:
        return False

    def __subclasscheck__(cls, subclass: type) -> bool:
        return False

    def __repr__(cls) -> str:
        return f"<missing {cls.__name__}>"


def _stand_in(name: str, label: str) -> type:
    # An Exception subclass, so `pytest.raises(target.AgentError)` and
    # `except target.AgentError` stay legal code; nothing real ever matches.
    return _StandInType(
        name,
        (Exception,),
        {
            "_missing_message": f"{name} is not defined in {label}",
            "__module__": __name__,
        },
    )


@dataclass(frozen=True, eq=False)
class Target:
    """The implementation under test, with every Day 7 name resolved.

    `target.EvaluationCase` and `target.names["EvaluationCase"]` are the
    same object; a name listed in `missing` is a stand-in whose use fails
    with "X is not defined in <label>".
    """

    label: str
    level: str
    bundled: bool
    names: Mapping[str, object]
    missing: tuple[str, ...]
    #: Where the target's code lives (its folder, or its package's folder):
    #: a frame in there is the target's code running.
    sources: tuple[str, ...] = ()
    #: The worker that runs the target's code (judge.remote.Client), or
    #: None when the target is trusted and runs here (the bundled evaluator).
    client: Any = None

    @property
    def remote(self) -> bool:
        """Whether the target's code runs in a worker process, not in this one."""
        return self.client is not None

    def describe(self, name: str) -> dict[str, Any]:
        """What the surface invariant asks of one defined name, as plain data."""
        from worker.serve import describe_name

        if self.client is None:
            return describe_name(self.names[name])
        cache = self.__dict__.setdefault("_described", {})
        if not cache:
            said = self.client.ask("describing the names", "describe")
            if not isinstance(said, dict):
                raise TargetError("the worker's description of the names is malformed")
            cache.update(said)
        return cache[name]  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        # Only reached when ordinary lookup fails. Dunders and a half-built
        # instance (copy, pickle) must get a plain AttributeError.
        names = self.__dict__.get("names")
        if names is None or name.startswith("__") or name not in names:
            raise AttributeError(name)
        return names[name]

    def __repr__(self) -> str:
        return f"Target({self.label}, {self.level} level)"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # Hypothesis prints fixtures in a falsifying example with its pretty
        # printer, which would otherwise spell out every name's class.
        printer.text(repr(self))


def load_target(
    *,
    impl: str | None = None,
    impl_path: str | os.PathLike[str] | None = None,
    level: str | None = None,
    import_seconds: float | None = IMPORT_SECONDS,
) -> Target:
    """Load the target named by `--impl MODULE` or `--impl-path DIR`.

    Neither given means the bundled `evaluator`. `level` defaults to
    `hardened` for the bundled evaluator and `course` for anything else.
    Raises TargetError with a one-line message when the target cannot be
    loaded or the options contradict each other. A worker's import of the
    target may take `import_seconds` (None: the worker's default); the
    bundled evaluator is imported here, unbounded.
    """
    if impl is not None and impl_path is not None:
        raise TargetError(
            f"--impl {impl} and --impl-path {os.fspath(impl_path)} were both given;"
            " name the target once: a module with --impl or a folder with --impl-path"
        )
    if level is not None and level not in LEVELS:
        raise TargetError(f"--level {level!r} is not one of: {', '.join(LEVELS)}")

    if impl_path is not None:
        return _remote_target(
            _folder_config(impl_path),
            f"--impl-path {os.fspath(impl_path)}",
            f"folder {os.path.abspath(os.fspath(impl_path))}",
            level,
            import_seconds,
        )
    module_name = BUNDLED_MODULE if impl is None else impl
    if not _names_bundled(module_name):
        _check_module_name(module_name)
        return _remote_target(
            {
                "module": module_name,
                "path": [os.path.abspath(p or ".") for p in sys.path],
            },
            f"--impl {module_name}",
            f"module {module_name}",
            level,
            import_seconds,
        )
    label = f"module {module_name}"
    module = _import_module(module_name)
    modules = [module]
    bundled = _is_bundled(module)
    sources = _sources_of(module)

    names: dict[str, object] = {}
    for module in modules:
        for name in REQUIRED_NAMES:
            if hasattr(module, name):
                names[name] = getattr(module, name)
    missing = tuple(name for name in REQUIRED_NAMES if name not in names)
    for name in missing:
        names[name] = _stand_in(name, label)

    return Target(
        label=label,
        level=level if level is not None else ("hardened" if bundled else "course"),
        bundled=bundled,
        names=types.MappingProxyType({name: names[name] for name in REQUIRED_NAMES}),
        missing=missing,
        sources=sources,
    )


def _names_bundled(module_name: str) -> bool:
    """Whether `module_name` is the evaluator shipped beside this package,
    told without importing (and so without running) anything."""
    if module_name != BUNDLED_MODULE:
        return False
    import importlib.util

    try:
        spec = importlib.util.find_spec(module_name)  # a top-level name: nothing runs
    except (ImportError, ValueError):
        return False
    if spec is None or spec.origin is None:
        return False
    ours = Path(__file__).resolve().parent.parent / BUNDLED_MODULE
    return Path(spec.origin).resolve().parent == ours


def _check_module_name(module_name: str) -> None:
    if not module_name or not all(
        part.isidentifier() for part in module_name.split(".")
    ):
        raise TargetError(
            f"--impl {module_name!r} is not a module name such as evaluator"
        )


def _folder_config(impl_path: str | os.PathLike[str]) -> dict[str, Any]:
    raw = os.fspath(impl_path)
    folder = Path(os.path.abspath(raw))
    if not folder.exists():
        raise TargetError(f"--impl-path {raw}: no such directory")
    if not folder.is_dir():
        raise TargetError(f"--impl-path {raw}: not a directory")
    if not any((folder / f"{name}.py").is_file() for name in DAY7_MODULES):
        raise TargetError(
            f"--impl-path {raw}: holds none of {_MODULE_FILES};"
            " point it at a course agent folder such as src/tiny_llm/agent"
        )
    return {"folder": str(folder)}


def _remote_target(
    config: dict[str, Any],
    option: str,
    label: str,
    level: str | None,
    seconds: float | None,
) -> Target:
    """A target whose code runs in a worker process (judge.remote)."""
    from judge import remote

    surface = {"names": REQUIRED_NAMES, "modules": DAY7_MODULES}
    client = remote.Client({**config, **surface}, label)
    if seconds is not None:
        client.load_seconds = seconds
    try:
        first = client.start()
    except remote.WorkerHung as hung:
        folder = config.get("folder")
        module = next(
            (
                os.path.basename(file)
                for file, _, _ in reversed(hung.where)
                if folder and file.startswith(os.path.join(folder, ""))
            ),
            None,
        )
        what = f"importing {module} failed:" if module else "importing it"
        raise TargetError(
            f"{option}: {what} did not finish within {client.load_seconds:g} s"
            + ("" if module else " (a loop, or a read that blocks, at import time?)")
        ) from None
    except (remote.WorkerDied, remote.ProtocolError) as error:
        raise TargetError(f"{option}: {error}") from None
    if "load_error" in first:
        raise TargetError(f"{option}: {first['load_error']}")
    names: dict[str, object] = {
        name: remote.RemoteName(client, name)
        for name in REQUIRED_NAMES
        if name in client.names
    }
    missing = tuple(name for name in REQUIRED_NAMES if name not in names)
    for name in missing:
        names[name] = _stand_in(name, label)
    return Target(
        label=label,
        level=level if level is not None else "course",
        bundled=False,
        names=types.MappingProxyType({name: names[name] for name in REQUIRED_NAMES}),
        missing=missing,
        sources=(),
        client=client,
    )


def _sources_of(module: types.ModuleType) -> tuple[str, ...]:
    """The folder of a package, or the file of a plain module."""
    paths = getattr(module, "__path__", None)
    if paths:
        return tuple(os.path.abspath(path) for path in paths)
    module_file = getattr(module, "__file__", None)
    return (os.path.abspath(module_file),) if module_file else ()


def _import_module(module_name: str) -> types.ModuleType:
    """The bundled evaluator, imported plainly: it is ours, and trusted."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise TargetError(
            f"--impl {module_name}: no module named {error.name!r} is importable"
            " (is it installed, or on sys.path?)"
        ) from None


def _is_bundled(module: types.ModuleType) -> bool:
    """Whether `module` is the evaluator shipped beside this package.

    Both sit side by side whether run from a checkout or installed, so the
    bundled evaluator is the `evaluator` package in this package's parent.
    """
    if module.__name__ != BUNDLED_MODULE:
        return False
    module_file = getattr(module, "__file__", None)
    if module_file is None:
        return False
    ours = Path(__file__).resolve().parent.parent / BUNDLED_MODULE
    return Path(module_file).resolve().parent == ours
