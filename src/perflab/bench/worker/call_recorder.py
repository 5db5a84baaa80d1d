"""Records the arguments of calls of one function while a program runs (``perflab isolate``).

Each recorded call is a pickled copy of its arguments taken when the call starts (before the
function can change them), refused with a reason when it cannot be copied: an object pickle
cannot handle, one defined in the program's ``__main__`` (a benchmark cannot import it), or a
copy larger than the size cap. Calls are sampled evenly over the whole run without knowing in
advance how many there will be: every ``stride``-th call is copied, and when twice the wanted
number are kept, every other one is dropped and the stride doubles. So at most about
2 x calls x log2(all calls / calls) copies are made, whatever the program does.

The hook costs little where it can: on Python 3.12+ ``sys.monitoring`` reports the start of that
one code object only. Before 3.12 there is no such event, and ``sys.setprofile`` puts the whole
interpreter in its slow tracing mode (a pure-Python loop ran 2-3 times slower under a hook that
returned at once, on 3.11); so there the function object's code is swapped for a small one that
records the call and calls a copy of the original (every reference to the function, even one
taken before, reaches the recorder, and no other code slows down). ``sys.setprofile`` remains for
functions with a closure, whose code cannot be swapped for one without the same free variables.
The cost is measured and reported: benchmarks/program_profile.py.

A function defined in the script being run (``script``: ``python app.py`` with ``--function
app:parse_line``) does not exist until the script's code defines it, as ``__main__.parse_line``.
It is found at its first call, by its code's file and qualified name: on 3.12+ a global
``sys.monitoring`` start event that disables itself on every other code object, then the local
events as above; before 3.12, ``sys.setprofile`` for the whole run.

Standard library only: runs inside the program, under its interpreter.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import pickle
import sys
import threading
import time
import types
from collections import Counter
from collections.abc import Callable, Mapping
from types import CodeType, FrameType

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

_MONITORING_TOOL_IDS = (2, 3, 4, 5)  # PROFILER_ID, then ids no standard tool claims
_CALL_HOOK = "__perflab_isolate_call__"  # the global the swapped-in code calls, in the function's module
_SWAPPED_IN = "def recorded(*args, **kwargs):\n    return __perflab_isolate_call__(args, kwargs)\n"


class RecorderError(Exception):
    """The function to record cannot be found; the message says what to do."""


def resolve(target: str) -> Any:
    """``module:qualname`` -> the object (``Class.method`` walks attributes)."""
    module_name, _, qualname = target.partition(":")
    if not module_name or not qualname:
        raise RecorderError(f"--function {target!r}: expected module:qualname, e.g. json:dumps")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as error:
        raise RecorderError(f"--function {target!r}: cannot import {module_name}: {error}") from error
    for part in qualname.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise RecorderError(f"--function {target!r}: {module_name} has no {qualname}") from None
    return obj


class CallRecorder:
    def __init__(self, target: str, calls: int, max_bytes: int, inputs: str, summary: str, script: str | None = None):
        self.target, self.calls, self.max_bytes = target, calls, max_bytes
        self.inputs, self.summary = inputs, summary  # where the pickled calls and the account go
        self.script = script  # the running script's file, when the function is defined in it
        self.qualname = target.partition(":")[2]
        self.function: Any = None
        self.code: CodeType | None = None
        self.signature: inspect.Signature | None = None
        if script is None:
            self._found(inspect.unwrap(resolve(target)))
        self.kept: list[tuple[int, bytes]] = []  # (call number, pickled (args, kwargs))
        self.stride, self.seen, self.copied = 1, 0, 0
        self.refused: Counter[str] = Counter()
        self.returns: Counter[str] = Counter()
        self.returns_json = True  # every str/bytes return seen so far parses as JSON
        self.copy_seconds = 0.0
        self.hook = ""
        self._lock = threading.RLock()  # re-entered if copying an argument calls the function
        self._tool: int | None = None

    @classmethod
    def from_spec(cls, path: str) -> CallRecorder:
        with open(path, encoding="utf-8") as file:
            spec = json.load(file)
        return cls(
            spec["function"], spec["calls"], spec["max_bytes"], spec["inputs"], spec["summary"], spec.get("script")
        )

    def _found(self, function: Any) -> None:
        code = getattr(function, "__code__", None)
        if not isinstance(code, CodeType):
            raise RecorderError(
                f"--function {self.target!r} is not a Python function (a C function cannot be hooked): "
                "record a Python function that calls it"
            )
        self.function, self.code, self.signature = function, code, inspect.signature(function)

    def _defined_in_script(self, code: CodeType) -> bool:
        qualname = getattr(code, "co_qualname", None)  # 3.11+; before, the last part of the name
        named = qualname == self.qualname if qualname else code.co_name == self.qualname.rpartition(".")[2]
        return named and self.script is not None and os.path.abspath(code.co_filename) == self.script

    def _function_in(self, frame: FrameType) -> Any:
        """The function whose first call ``frame`` is, from the script's globals."""
        found: Any = frame.f_globals
        for part in self.qualname.split("."):
            found = found.get(part) if isinstance(found, dict) else getattr(found, part, None)
        if getattr(found, "__code__", None) is frame.f_code:
            return found
        return types.FunctionType(frame.f_code, frame.f_globals)  # not reachable by name: its signature

    @staticmethod
    def write_error(spec_path: str, message: str) -> None:
        with open(spec_path, encoding="utf-8") as file:
            summary = json.load(file)["summary"]
        with open(summary, "w", encoding="utf-8") as file:
            json.dump({"error": message}, file)

    # ---- hooks -------------------------------------------------------------------------------

    def start(self) -> None:
        self.started = time.perf_counter()
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            free = [tool for tool in _MONITORING_TOOL_IDS if monitoring.get_tool(tool) is None]
            if free:
                self._tool = tool = free[0]
                monitoring.use_tool_id(tool, "perflab isolate")
                monitoring.register_callback(tool, monitoring.events.PY_START, self._on_start)
                monitoring.register_callback(tool, monitoring.events.PY_RETURN, self._on_return)
                if self.code is None:  # in the script: every start, until the function's first
                    monitoring.set_events(tool, monitoring.events.PY_START)
                else:
                    self._monitor_function()
                self.hook = "sys.monitoring"
                return
        if self.code is not None and not self.code.co_freevars:
            self._swap_code()
            return
        sys.setprofile(self._profile)
        threading.setprofile(self._profile)
        self.hook = "sys.setprofile"

    def _swap_code(self) -> None:
        function, code, signature = self.function, self.code, self.signature
        assert code is not None and signature is not None  # only for a function found before the run
        original = types.FunctionType(code, function.__globals__, function.__name__, function.__defaults__)
        original.__kwdefaults__ = function.__kwdefaults__

        def call(args: tuple, kwargs: dict) -> Any:
            self._called(lambda: self._arguments(signature.bind(*args, **kwargs).arguments))
            value = original(*args, **kwargs)
            self._returned(value)
            return value

        namespace: dict[str, Any] = {}
        exec(_SWAPPED_IN, {}, namespace)
        function.__globals__[_CALL_HOOK] = call
        function.__code__ = namespace["recorded"].__code__
        self.hook = "code swap"

    def _monitor_function(self) -> None:
        monitoring = sys.monitoring  # type: ignore[attr-defined,unused-ignore]  # 3.12+
        monitoring.set_local_events(self._tool, self.code, monitoring.events.PY_START | monitoring.events.PY_RETURN)

    def _on_start(self, code: CodeType, offset: int) -> Any:
        frame = sys._getframe(1)
        if self.code is None:
            monitoring = sys.monitoring  # type: ignore[attr-defined,unused-ignore]  # 3.12+
            if not self._defined_in_script(code):
                return monitoring.DISABLE  # for this code object: it never is the function
            self._found(self._function_in(frame))
            monitoring.set_events(self._tool, 0)
            self._monitor_function()
        self._called(lambda: self._arguments(frame.f_locals))
        return None

    def _on_return(self, code: CodeType, offset: int, value: Any) -> None:
        self._returned(value)

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if frame.f_code is not self.code:
            if self.code is not None or event != "call" or not self._defined_in_script(frame.f_code):
                return
            self._found(self._function_in(frame))
        if event == "call":
            self._called(lambda: self._arguments(frame.f_locals))
        elif event == "return":
            self._returned(arg)

    # ---- recording ---------------------------------------------------------------------------

    def _called(self, arguments: Callable[[], tuple[tuple, dict[str, Any]]]) -> None:
        with self._lock:
            number = self.seen
            self.seen += 1
            if number % self.stride:
                return
            began = time.perf_counter()
            try:
                data = self._copy(*arguments())
            except Exception as error:  # anything pickle raises for an object it cannot copy
                self.refused[f"cannot be copied ({type(error).__name__}: {str(error)[:120]})"] += 1
                data = None
            if data is not None:
                self.kept.append((number, data))
                self.copied += 1
                if len(self.kept) >= 2 * self.calls:
                    self.stride *= 2
                    self.kept = [(n, d) for n, d in self.kept if n % self.stride == 0]
            self.copy_seconds += time.perf_counter() - began

    def _arguments(self, arguments: Mapping[str, Any]) -> tuple[tuple, dict[str, Any]]:
        """(args, kwargs) of a call from its parameters' values (its frame's locals at its start, or
        the bound arguments); those left at their defaults are left out."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        assert self.signature is not None  # called only once the function is found
        for name, parameter in self.signature.parameters.items():
            if name not in arguments:
                continue
            value = arguments[name]
            if parameter.kind is parameter.VAR_POSITIONAL:
                args.extend(value)
            elif parameter.kind is parameter.VAR_KEYWORD:
                kwargs.update(value)
            elif parameter.kind is parameter.POSITIONAL_ONLY or parameter.default is parameter.empty:
                args.append(value)
            elif value is not parameter.default:  # left at their defaults, they stay so in the benchmark
                kwargs[name] = value
        return tuple(args), kwargs

    def _copy(self, args: tuple, kwargs: dict[str, Any]) -> bytes | None:
        data = pickle.dumps((args, kwargs), protocol=pickle.HIGHEST_PROTOCOL)
        if len(data) > self.max_bytes:
            self.refused[f"larger than the size cap of {self.max_bytes} bytes"] += 1
            return None
        if b"__main__" in data:
            self.refused["holds objects defined in the program's __main__ (a benchmark cannot import them)"] += 1
            return None
        return data

    def _returned(self, value: Any) -> None:
        kind = type(value)
        self.returns[f"{kind.__module__}.{kind.__qualname__}"] += 1
        if (
            isinstance(value, (str, bytes))
            and self.returns_json
            and self.returns[f"{kind.__module__}.{kind.__qualname__}"] <= 3
        ):
            try:
                json.loads(value)
            except ValueError:
                self.returns_json = False

    # ---- result ------------------------------------------------------------------------------

    def stop(self) -> None:
        monitoring = getattr(sys, "monitoring", None)
        if self._tool is not None and monitoring is not None:
            monitoring.set_events(self._tool, 0)
            if self.code is not None:
                monitoring.set_local_events(self._tool, self.code, 0)
            monitoring.free_tool_id(self._tool)
        elif self.hook == "code swap":
            self.function.__code__ = self.code
            self.function.__globals__.pop(_CALL_HOOK, None)
        elif self.hook == "sys.setprofile":
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type,unused-ignore]  # None removes the hook
        kept = [(n, d) for n, d in self.kept if n % self.stride == 0]
        step = max(1, len(kept) // self.calls)
        kept = kept[::step][: self.calls]
        with open(self.inputs, "wb") as file:
            pickle.dump([data for _, data in kept], file, protocol=pickle.HIGHEST_PROTOCOL)
        summary = {
            "function": self.target,
            "hook": self.hook,
            "calls_seen": self.seen,
            "calls_copied": self.copied,
            "calls_kept": len(kept),
            "call_numbers": [n for n, _ in kept],
            "bytes": [len(d) for _, d in kept],
            "refused": dict(self.refused),
            "returns": dict(self.returns),
            "returns_json": self.returns_json,
            "copy_seconds": self.copy_seconds,
            "program_seconds": time.perf_counter() - self.started,
            "python": sys.version.split()[0],
            "program_path": sys.path[0],
        }
        with open(self.summary, "w", encoding="utf-8") as file:
            json.dump(summary, file)
