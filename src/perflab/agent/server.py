"""The MCP server of ``perflab mcp``: one tool per verb (run, compare, profile, check, isolate),
each a thin wrapper that runs the verb (perflab.agent.verb_process) and returns its JSON as the
call's structured result, and verify_candidate. Arguments carry the command line's option names;
the verb validates them and its one-line error becomes the tool error. A tool argument is never read
as an option: each option is one ``--name=value`` word and positionals follow ``--`` (run_verb), so
``{"benchmark": "--command=touch X"}`` names a file, it does not run a command.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from perflab import __version__
from perflab.agent import candidate
from perflab.agent.verb_process import VerbRun, run_verb
from perflab.option_types import FROM_REVISION
from perflab.results.model import RunResult

server = MCPServer(
    "perflab",
    version=__version__,
    instructions=(
        "perflab measures Python code: timings with 95% confidence intervals from fresh worker processes, "
        "equivalence of outputs checked (declared cases and fuzzing) before any speedup counts. "
        "To propose an optimization of a benchmark's contender, call verify_candidate: "
        "the optimization is accepted only when perflab proves it equivalent and faster."
    ),
)

Benchmark = Annotated[str, Field(description="a benchmark file, or a built-in's name (perflab list)")]
# One name or a list of them: an assistant writes "case": "NESTED" as readily as ["NESTED"].
Names = Annotated[
    str | tuple[str, ...],
    Field(description="a name, or a list of names, as declared in the benchmark file (empty: all)"),
]
MaxTime = Annotated[float, Field(description="time budget in seconds (measuring stops when it is spent)")]
Store = Annotated[bool, Field(description="keep the run in the results store, as the command line does")]
Db = Annotated[str | None, Field(description="results database: a SQLite file or postgresql:// URL")]


def _names(option: str, names: str | tuple[str, ...]) -> list[str]:
    return [f"{option}={name}" for name in ((names,) if isinstance(names, str) else names)]


def _given(option: str, value: object) -> list[str]:
    return [] if value is None else [f"{option}={value}"]


class Timing(BaseModel):
    """How long and how precisely to time (the command line's options of the same names)."""

    precision: float = Field(default=1.0, description="target 95% CI half-width in percent")
    max_time: float = Field(default=60.0, description="time budget in seconds (measuring stops when it is spent)")
    values: int | None = Field(default=None, description="values per worker process (default 20; fewer is quicker)")
    value_time: float | None = Field(default=None, description="seconds of one value (default 0.005)")

    def arguments(self) -> list[str]:
        budget = [*_given("--precision", self.precision), *_given("--max-time", self.max_time)]
        return budget + _given("--values", self.values) + _given("--value-time", self.value_time)


def _measuring(
    case: str | tuple[str, ...],
    contender: str | tuple[str, ...],
    timing: Timing,
    store: bool,
    db: str | None,
) -> list[str]:
    """The options run, compare and check share."""
    selected = [*_names("--case", case), *_names("--contender", contender)]
    return selected + timing.arguments() + (["--no-store"] if not store else _given("--db", db))


def _structured(run: VerbRun) -> dict[str, Any]:
    """A verb's outcome as a tool result: its exit code (0: all measured and equivalent; 1: something
    failed, differs or regressed: the JSON says what), its JSON, and the tables it printed."""
    return {"exit_code": run.exit_code, "result": run.output, "text": run.text}


@server.tool()
async def run(
    benchmark: Benchmark,
    ctx: Context,
    case: Names = (),
    contender: Names = (),
    timing: Timing = Timing(),
    fuzz: bool = True,
    store: Store = True,
    db: Db = None,
) -> dict[str, Any]:
    """perflab run: time every contender of every case, adaptively, with 95% CIs, after checking
    their outputs are equivalent. Result: perflab.results/2 (docs/results-schema.md)."""
    options = _measuring(case, contender, timing, store, db) + ([] if fuzz else ["--no-fuzz"])
    return _structured(await run_verb("run", options, [benchmark], ctx.report_progress, timing.max_time))


@server.tool()
async def compare(
    benchmark: Benchmark,
    ctx: Context,
    case: Names = (),
    contender: Names = (),
    rev: Annotated[
        tuple[str, ...],
        Field(description="git revisions whose code the benchmark file runs on (WORKTREE: uncommitted state)"),
    ] = (),
    benchmark_from_revision: Annotated[
        bool, Field(description="with rev: run each revision's own copy of the benchmark file instead")
    ] = False,
    timing: Timing = Timing(),
    fuzz: bool = True,
    store: Store = True,
    db: Db = None,
) -> dict[str, Any]:
    """perflab compare: A/B verdicts with CIs and equivalence (declared cases and fuzzing), across
    contenders or git revisions, measured interleaved. Result: perflab.results/2."""
    options = _measuring(case, contender, timing, store, db) + ([] if fuzz else ["--no-fuzz"])
    options += _names("--rev", rev) + ([FROM_REVISION] if benchmark_from_revision else [])
    return _structured(await run_verb("compare", options, [benchmark], ctx.report_progress, timing.max_time))


@server.tool()
async def profile(
    benchmark: Benchmark,
    ctx: Context,
    case: Annotated[str | None, Field(description="the case (needed when there are several)")] = None,
    contender: Annotated[str | None, Field(description="the contender (default: the reference)")] = None,
    samples: Annotated[int | None, Field(description="samples to collect (default 2000)")] = None,
    max_time: MaxTime = 300.0,
) -> dict[str, Any]:
    """perflab profile: where the measured operation spends its time, each function's share with
    its interval. Result: perflab.profile/1."""
    options = [*_given("--case", case), *_given("--contender", contender), *_given("--samples", samples)]
    options += _given("--max-time", max_time)
    return _structured(await run_verb("profile", options, [benchmark], ctx.report_progress, max_time))


@server.tool()
async def check(
    benchmark: Benchmark,
    against: Annotated[str, Field(description="a git revision measured now, or a perflab results JSON file")],
    ctx: Context,
    threshold: Annotated[float, Field(description="smallest slowdown in percent that fails the check")] = 5.0,
    case: Names = (),
    contender: Names = (),
    timing: Timing = Timing(),
    store: Store = True,
    db: Db = None,
) -> dict[str, Any]:
    """perflab check: the CI gate; fails (exit_code 1) only on a regression larger than threshold
    against the baseline. Result: perflab.check/1."""
    options = _measuring(case, contender, timing, store, db) + _given("--against", against)
    options += _given("--threshold", threshold)
    return _structured(await run_verb("check", options, [benchmark], ctx.report_progress, timing.max_time))


@server.tool()
async def isolate(
    function: Annotated[str, Field(description="the function to isolate, MODULE:QUALNAME, e.g. json:dumps")],
    command: Annotated[list[str], Field(description="the program to run, e.g. ['python', 'app.py', 'data.json']")],
    ctx: Context,
    calls: Annotated[int | None, Field(description="calls to record (default 50)")] = None,
    output: Annotated[
        str | None, Field(description="the benchmark file to write (default bench_<function>.py)")
    ] = None,
    suggest: Annotated[bool, Field(description="add perflab's known alternatives as contenders")] = False,
) -> dict[str, Any]:
    """perflab isolate: record the real inputs of one function of a program and write a benchmark
    file of it. Result: the file written and its source."""
    from perflab.isolate.benchmark_file import python_name  # here: it imports scipy, which slows the server's start

    if not command:
        raise ToolError("command: give the program to run, e.g. ['python', 'app.py']")
    written = Path(output or f"bench_{python_name(function)}.py")  # the verb's default, named here to read it back
    options = [*_given("--function", function), *_given("--calls", calls), *_given("--output", written)]
    options += ["--suggest"] if suggest else []
    ran = await run_verb("isolate", options, command, ctx.report_progress, None, json_output=False)
    source = written.read_text() if ran.exit_code == 0 and written.is_file() else None
    return {"exit_code": ran.exit_code, "result": {"benchmark_file": str(written), "source": source}, "text": ran.text}


@server.tool()
async def verify_candidate(
    benchmark: Benchmark,
    contender: Annotated[str, Field(description="the contender the candidate replaces: the reference it must match")],
    candidate_source: Annotated[
        str, Field(description="Python source defining the candidate function; it sees the benchmark file's globals")
    ],
    ctx: Context,
    function: Annotated[
        str | None, Field(description="the candidate function's name (default: the one the source defines)")
    ] = None,
    timing: Timing = Timing(),
) -> dict[str, Any]:
    """Verify an optimization: compare the candidate with the contender on every declared case and
    on generated inputs (fuzzing), then time both interleaved. verdict: "accepted" only when it is
    proven equivalent and faster; "rejected" with the counterexample when it differs (or is
    slower); "not proven" otherwise. Result: the verdict, its evidence, and perflab.results/2."""
    path = candidate.benchmark_file(benchmark)
    name = candidate.function_name(candidate_source, function, contender)
    with tempfile.TemporaryDirectory(prefix="perflab-candidate-") as work:
        wrapper = candidate.write_benchmark(Path(work), path, contender, candidate_source, name)
        # Errors in loading name the written file first; the user knows only their own.
        ran = await run_verb(
            "compare",
            [*timing.arguments(), "--no-store"],
            [str(wrapper)],
            ctx.report_progress,
            timing.max_time,
            rewrite_error=lambda line: line.replace(f"{wrapper}: ", ""),
        )
    decision = candidate.decide(RunResult.from_json(ran.output), contender)
    return {**decision, "exit_code": ran.exit_code, "result": ran.output, "text": ran.text}
