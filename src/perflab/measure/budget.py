"""The run's time budget (``--max-time``) as deadlines a wait on a worker ends by, counted from the
start of the command's measuring (after revisions are checked out and built): loading the file,
fuzzing, the equivalence checks, calibration and timing all share it.

Phases: fuzzing may run until FUZZ_END of the budget, loading and the checks until CHECKS_END
(so that a contender hanging while fuzzed leaves the others time for their checks); the timing
phase runs until the budget's end, with TIMING_FLOOR of it at least (when the checks took long),
so that the whole measuring ends within (CHECKS_END + TIMING_FLOOR) x --max-time at worst, and
within --max-time when the checks are quick. The timing phase's workers (set-up and values) are stopped
when its budget runs out; a profiling worker may take no longer than the budget to set up, nor to
finish a run once both the budget and twice the run's fixed duration are spent
(perflab.profile.session), and an allocation profile's runs share one budget
(perflab.profile.allocations).

A contender that hangs is then stopped within the budget of the phase it hangs in (not after
``--timeout``, which bounds one wait and defaults to a minute), and the message names what it was
doing. A check is never cut short for budget otherwise: one that finishes within it runs in full.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

FUZZ_END = 0.4  # share of the budget by which fuzzing must end
CHECKS_END = 0.8  # share of the budget by which loading and the checks must end
TIMING_FLOOR = 0.4  # share of the budget the timing phase has at least


@dataclass(frozen=True)
class Budget:
    seconds: float  # --max-time
    ends: float  # on time.monotonic()
    share: float = 1.0  # of ``seconds`` this deadline allows, counted from the budget's start
    phase: str = ""  # what that share is for ("the checks")

    @classmethod
    def starting_now(cls, seconds: float) -> Budget:
        return cls(seconds, time.monotonic() + seconds)

    def for_fuzzing(self) -> Budget:
        """The deadline of fuzzing: FUZZ_END of the budget from its start."""
        return self._until(FUZZ_END, "fuzzing")

    def for_checks(self) -> Budget:
        """The deadline of loading and the checks: CHECKS_END of the budget from its start."""
        return self._until(CHECKS_END, "the checks")

    def _until(self, share: float, phase: str) -> Budget:
        return replace(self, ends=self.ends - (self.share - share) * self.seconds, share=share, phase=phase)

    def spent(self) -> float:
        """Seconds of the budget used so far."""
        return time.monotonic() - (self.ends - self.seconds)

    def for_timing(self, spent: float) -> float:
        """Seconds the timing phase may take once ``spent`` seconds of the budget are used: the
        rest, TIMING_FLOOR of it at least."""
        return max(TIMING_FLOOR * self.seconds, self.seconds - spent)

    def ran_out(self, doing: str) -> str:
        """The one line a worker stopped by the budget reports."""
        share = f", of which {self.phase} may take {self.share:.0%}" if self.share < 1 else ""
        return f"stopped while {doing}: it outlasted the time budget (--max-time {self.seconds:g} s{share})"
