"""The run's time budget (``--max-time``) as one deadline that every wait on a worker ends by, in
every phase: loading the file, equivalence checks, fuzzing, set-up and timing.

A contender that hangs is then stopped when the budget runs out (not after ``--timeout``, which
bounds one wait and defaults to a minute), and the message names what it was doing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    seconds: float  # --max-time
    ends: float  # on time.monotonic()

    @classmethod
    def starting_now(cls, seconds: float) -> Budget:
        return cls(seconds, time.monotonic() + seconds)

    def spent(self) -> float:
        """Seconds of the budget used so far."""
        return self.seconds - (self.ends - time.monotonic())

    def ran_out(self, doing: str) -> str:
        """The one line a worker stopped by the budget reports."""
        return f"stopped while {doing}: the run's time budget (--max-time {self.seconds:g} s) ran out"

    def ran_out_before(self, doing: str) -> str:
        """The one line of a job not begun because the budget was spent already (by another)."""
        return f"not begun ({doing}): the run's time budget (--max-time {self.seconds:g} s) ran out before"
