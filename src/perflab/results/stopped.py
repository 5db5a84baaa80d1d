"""Why each case stopped measuring, as the runner records it (``metadata["stopped"]``: case ->
``{"why": ..., "rounds": n}``) and as every surface says it ("decided after 7 rounds")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from perflab.units import counted, format_percent

if TYPE_CHECKING:
    from perflab.results.model import RunResult

DECIDED = "decided"  # every ratio's verdict settled and its size known (perflab.measure.stopping)
PRECISE = "precise"  # the precision target reached
ROUNDS = "rounds"  # the round count asked for (--debug-rounds) measured
BUDGET = "budget"  # --max-time spent first
INTERRUPTED = "interrupted"  # Ctrl-C


def summary(result: RunResult) -> str | None:
    """One phrase for the whole run, "decided after 7 rounds" or "decided after 5-9 rounds (2
    cases), precision target ±1% reached after 12 rounds (1 case)"; None for a run that did not
    record it (older runs, nothing measured)."""
    stopped = result.metadata.get("stopped") or {}
    if not stopped:
        return None
    groups: dict[str, list[int]] = {}
    for case in stopped.values():
        groups.setdefault(case["why"], []).append(case["rounds"])
    phrases = []
    for why, rounds in groups.items():
        low, high = min(rounds), max(rounds)
        span = counted(low, "round") if low == high else f"{low}-{high} rounds"
        phrase = f"{_words(why, result)} after {span}"
        if len(groups) > 1:
            phrase += f" ({counted(len(rounds), 'case')})"
        phrases.append(phrase)
    return ", ".join(phrases)


def _words(why: str, result: RunResult) -> str:
    precision = result.settings.get("precision")
    return {
        DECIDED: "decided",
        PRECISE: f"precision target ±{format_percent(precision)} reached" if precision else "precise",
        ROUNDS: "stopped as asked",
        BUDGET: "budget spent",
        INTERRUPTED: "interrupted",
    }.get(why, why)


def decided_cases(result: RunResult) -> set[str]:
    """The cases the rule stopped on their answer (so a precision target they did not reach is no miss)."""
    return {case for case, stop in (result.metadata.get("stopped") or {}).items() if stop["why"] == DECIDED}
