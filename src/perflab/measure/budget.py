"""The run's time budget (``--max-time``) as a deadline a wait on a worker ends by, in every phase:
no job of loading the file, an equivalence check or fuzzing may outlast the whole budget, the
timing phase's workers (set-up and values) are stopped when its budget runs out, a profiling
worker may take no longer than the budget to set up, nor to finish a run once both the budget and
twice the run's fixed duration are spent (perflab.profile.session), and an allocation profile's
runs share one budget (perflab.profile.allocations).

A contender that hangs is then stopped within the budget of the phase it hangs in (not after
``--timeout``, which bounds one wait and defaults to a minute), and the message names what it was
doing. A check is never cut short for budget otherwise: one that finishes within it runs in full.
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

    def ran_out(self, doing: str) -> str:
        """The one line a worker stopped by the budget reports."""
        return f"stopped while {doing}: it outlasted the time budget (--max-time {self.seconds:g} s)"
