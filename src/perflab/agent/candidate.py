"""verify_candidate: an assistant's replacement for a contender, accepted only when perflab proves
it. The candidate's source and a small benchmark file that adds it to the user's benchmark
(perflab.bench.candidate) are written to a temporary directory that ``perflab compare`` measures;
the decision below reads that comparison's results.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from perflab import builtins
from perflab.results.model import EQUIVALENT, FUZZING_CASE, INVALID, Equivalence, RunResult
from perflab.results.verdicts import FASTER, SLOWER, Shown

CANDIDATE = "candidate"  # the contender's name in the comparison

ACCEPTED, REJECTED, UNPROVEN = "accepted", "rejected", "not proven"


def benchmark_file(benchmark: str) -> Path:
    """The benchmark file named by a path or a built-in's name."""
    path = Path(benchmark)
    if path.is_file():
        return path.resolve()
    builtin = builtins.path_of(benchmark)
    if builtin is not None and not path.suffix:
        return builtin
    raise ToolError(f"benchmark: {benchmark}: no such benchmark file or built-in benchmark")


def function_name(source: str, function: str | None, contender: str) -> str:
    """The function of ``source`` that is the candidate: ``function`` if given, else the one
    function the source defines at top level, or the one named like the contender."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise ToolError(f"candidate_source: line {error.lineno}: syntax error: {error.msg}") from None
    defined = [node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
    if function is not None:
        if function not in defined:
            raise ToolError(f"function: the candidate source defines no top-level function {function!r}")
        return function
    if len(defined) == 1:
        return defined[0]
    if contender in defined:
        return contender
    found = ", ".join(defined) if defined else "none"
    raise ToolError(f"function: say which function of the candidate source is the candidate (defined: {found})")


def write_benchmark(directory: Path, benchmark: Path, contender: str, source: str, function: str) -> Path:
    """The benchmark file that measures the candidate against ``contender``."""
    candidate_file = directory / "candidate.py"
    candidate_file.write_text(source)
    # Not named after the user's file: both are imported, under names made from their stems.
    wrapper = directory / "perflab_verify_candidate.py"
    wrapper.write_text(
        f'"""Written by perflab mcp verify_candidate: {CANDIDATE} against {contender!r} of {benchmark}."""\n'
        "from perflab.bench.candidate import with_candidate\n\n"
        f"bench = with_candidate({str(benchmark)!r}, {contender!r}, {str(candidate_file)!r}, {function!r}, {CANDIDATE!r})\n"
    )
    return wrapper


def decide(result: RunResult, reference: str) -> dict[str, Any]:
    """The verdict on the candidate, with what it rests on. Accepted: equivalent on every declared
    case and on generated inputs (fuzzing), faster on some case and slower on none, nothing struck
    out; rejected: shown to differ, or slower; anything else is not proven."""
    # The declared cases first: their counterexamples are the inputs the user wrote.
    entries = sorted(
        (entry for entry in result.equivalence if entry.contender == CANDIDATE), key=lambda e: e.case == FUZZING_CASE
    )
    counterexamples = [f"{e.case}: {e.status}: {e.difference}" for e in entries if e.status in INVALID]
    shown = [(comparison, result.shown(comparison)) for comparison in result.comparisons]
    evidence = {
        "equivalence": [
            {
                "case": entry.case,
                "status": entry.status,
                "label": result.equivalence_label(entry.case, CANDIDATE)
                if entry.case != FUZZING_CASE
                else entry.status,
                "difference": entry.difference,
                "note": entry.note,
                "evidence": entry.evidence,
            }
            for entry in entries
        ],
        "counterexamples": counterexamples,
        "comparisons": [{"case": c.case, **s.to_json()} for c, s in shown],
        "geometric_mean": result.mean_shown(CANDIDATE),
        "failures": result.failures,
    }
    verdict, reason = _decision(result, reference, entries, [s for _, s in shown], counterexamples)
    return {"verdict": verdict, "reason": reason, **evidence}


def _decision(
    result: RunResult, reference: str, entries: list[Equivalence], shown: list[Shown], counterexamples: list[str]
) -> tuple[str, str]:
    if counterexamples:
        return REJECTED, f"not equivalent to {reference!r}: {counterexamples[0]}"
    slower = [s.ratio for s in shown if s.verdict == SLOWER]
    if slower:
        return REJECTED, f"slower than {reference!r}: {slower[0]}"
    if result.failures:
        return UNPROVEN, result.failures[0]
    fuzzed = next((e for e in entries if e.case == FUZZING_CASE), None)
    if fuzzed is None or fuzzed.status != EQUIVALENT:
        why = fuzzed.difference if fuzzed is not None and fuzzed.difference else "fuzzing did not run"
        return UNPROVEN, f"equal on the declared cases only ({why})"
    struck = [s for s in shown if s.struck]
    if struck:
        return UNPROVEN, f"{struck[0].verdict}: {struck[0].detail}"
    faster = [s.ratio for s in shown if s.verdict == FASTER]
    if not faster:
        verdicts = sorted({s.verdict for s in shown}) or ["no comparison"]
        return UNPROVEN, f"equivalent, but not shown faster than {reference!r} ({', '.join(verdicts)})"
    return ACCEPTED, f"equivalent to {reference!r} and faster on {len(faster)} of {len(shown)} cases ({faster[0]})"
