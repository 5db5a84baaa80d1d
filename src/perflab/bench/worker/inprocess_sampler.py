"""The fallback sampler: runs inside the worker when py-spy cannot attach to it.

A timer signal (SIGPROF for CPU time, SIGALRM for wall-clock time) interrupts the main thread
``rate`` times a second; the handler receives the interrupted Python frame and counts its stack.
Only Python frames are seen: time in C code is charged to the Python function that called it,
exactly as py-spy does without ``--native``. Frame labels use py-spy's ``--function`` format,
``name (file:first line)``, so both samplers' profiles go through the same processors; with
``lines``, py-spy's default ``name (file:line running)``.

Standard library only: this module runs in the worker, under the measured interpreter.
"""

from __future__ import annotations

import signal
from collections import Counter
from types import FrameType

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import Any

_TIMERS = {"cpu": (signal.ITIMER_PROF, signal.SIGPROF), "wall": (signal.ITIMER_REAL, signal.SIGALRM)}


class InProcessSampler:
    def __init__(self, rate: float, mode: str = "cpu", lines: bool = False):
        self.interval = 1.0 / rate
        self.lines = lines
        self.timer, self.signal = _TIMERS[mode]
        self.stacks: Counter[tuple[str, ...]] = Counter()
        self._previous_handler: Any = None  # whatever signal.signal returned: restored on stop

    def start(self) -> None:
        self._previous_handler = signal.signal(self.signal, self._sample)
        signal.setitimer(self.timer, self.interval, self.interval)

    def stop(self) -> list[list]:
        """Stop sampling; [[frames, outermost first], samples] for each stack (lists: JSON-ready,
        and no separator that a function name could contain)."""
        signal.setitimer(self.timer, 0, 0)
        signal.signal(self.signal, self._previous_handler or signal.SIG_DFL)
        return [[list(stack), count] for stack, count in self.stacks.items()]

    def _sample(self, signum: int, frame: FrameType | None) -> None:
        labels = []
        while frame is not None:
            code = frame.f_code
            name = getattr(code, "co_qualname", code.co_name)  # co_qualname: Python >= 3.11
            line = frame.f_lineno if self.lines else code.co_firstlineno
            labels.append(f"{name} ({code.co_filename}:{line})")
            frame = frame.f_back
        self.stacks[tuple(reversed(labels))] += 1
