"""``perflab isolate --function module:qualname -- python app.py ...``: a benchmark of one function
of a real program, with the inputs it saw there (perflab.isolate)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.cli.support import program_profile
from perflab.cli.support.options import EXIT_OK, UsageError, add_verb, say, write_output
from perflab.isolate import DEFAULT_CALLS, DEFAULT_MAX_BYTES
from perflab.option_types import whole_number

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "isolate",
        "record the real inputs of one function of a program and write a benchmark of it",
        "perflab isolate --function mypkg.transform:summarize -- python app.py data.json",
        "perflab isolate --function json:dumps --suggest --calls 20 -- python app.py  # adds orjson, msgspec",
        "perflab run bench_json_dumps.py",
    )
    program_profile.takes_command(parser)
    parser.usage = "perflab isolate --function MODULE:QUALNAME [OPTIONS] -- python PROGRAM ARGS ..."
    parser.add_argument(
        "--function", required=True, metavar="MODULE:QUALNAME", help="the function to isolate, e.g. json:dumps"
    )
    parser.add_argument(
        "--calls",
        type=whole_number(1, 100_000),
        default=DEFAULT_CALLS,
        metavar="N",
        help=f"calls to record, sampled evenly over the run (default {DEFAULT_CALLS})",
    )
    parser.add_argument(
        "--max-bytes",
        type=whole_number(1, 10**10),
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help=f"largest pickled arguments of one call to keep (default {DEFAULT_MAX_BYTES})",
    )
    parser.add_argument(
        "--output", metavar="FILE", help="the benchmark file to write (default bench_<function>.py, here)"
    )
    parser.add_argument(
        "--suggest",
        action="store_true",
        help="add perflab's known alternatives for this function as contenders (perflab.profile.suggestions)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.isolate import benchmark_file
    from perflab.isolate.recording import RecordingError, importable_function, record_calls
    from perflab.profile.program import ProgramError
    from perflab.profile.suggestions import for_function

    if not args.command:
        raise UsageError("no program given: perflab isolate --function MODULE:QUALNAME -- python app.py ...")
    try:
        function, script = importable_function(args.command, args.function)
    except (ProgramError, RecordingError) as error:
        raise UsageError(str(error)) from None
    name = f"bench_{benchmark_file.python_name(function)}"
    output = Path(args.output or f"{name}.py")
    if output.suffix != ".py":
        raise UsageError(f"--output {output}: a benchmark file ends in .py")
    name = benchmark_file.python_name(output.stem)
    inputs = output.with_name(output.stem + ".inputs.pickle")
    for path in (output, inputs):
        if path.exists():
            raise UsageError(f"{path} exists: remove it or choose another --output (perflab never overwrites it)")
    if not output.parent.is_dir():
        raise UsageError(f"--output {output}: no such directory {output.parent}")
    suggestion = for_function(args.function) if args.suggest else None
    if args.suggest and suggestion is None:
        say(err, f"note: perflab knows no drop-in alternatives for {args.function}; none added")
    say(err, f"recording calls of {function} in {' '.join(args.command)} ...")
    try:
        recording = record_calls(args.command, function, inputs, args.calls, args.max_bytes, script)
    except ProgramError as error:
        raise UsageError(str(error)) from None
    except RecordingError as error:
        say(err, f"perflab: error: {error}")
        return 1
    write_output(
        output, benchmark_file.render(recording, name, inputs.name, suggestion, output.parent), "benchmark file", err
    )
    s = recording.summary
    say(err, f"{s['calls_kept']} calls of {s['calls_seen']} recorded; {recording.overhead}")
    for reason, count in s["refused"].items():
        say(err, f"note: {count} calls not recorded: {reason}")
    say(err, f"the recorded inputs are in {inputs}; next: perflab run {output}")
    if recording.exit_status:
        say(err, f"perflab: the program exited with status {recording.exit_status}")
        return recording.exit_status
    return EXIT_OK
