"""``--command``: benchmark programs without a benchmark file, as hyperfine users expect.

``perflab run --command 'prog-a {input}' --command 'prog-b {input}' --input data.json`` makes
each command a contender (the first is the reference) and each ``--input`` file a case, written
as a small generated benchmark file (perflab.bench.command_line_benchmark) that the workers load.
"""

from __future__ import annotations

import argparse
import atexit
import shlex
import shutil
import tempfile
from pathlib import Path

from perflab.cli.support.options import UsageError, resolve_benchmark, whole_number


def add_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("commands (instead of a benchmark file)")
    group.add_argument(
        "--command",
        action="append",
        metavar="CMD",
        help="a program to time as a contender (repeat; the first is the reference); "
        "{input} stands for the --input file, else the file is given on standard input",
    )
    group.add_argument("--name", action="append", metavar="NAME", help="names of the commands, in order (repeat)")
    group.add_argument(
        "--input", action="append", metavar="FILE", help="an input file: one case each, its size gives MB/s (repeat)"
    )
    group.add_argument("--shell", action="store_true", help="run the commands with /bin/sh -c (default: no shell)")
    group.add_argument(
        "--compare-output",
        choices=("exact", "json", "lines"),
        default="exact",
        help="how standard outputs must agree: bytes, as JSON values, or as sorted lines (default exact)",
    )
    group.add_argument(
        "--warmup", type=whole_number(0, 1000), metavar="N", help="warm-up values per worker before timing (default 2)"
    )


def benchmark_path(args: argparse.Namespace) -> Path:
    """The benchmark file to measure: the one named, or one written for ``--command``."""
    from perflab.bench import command_line_benchmark

    if not args.command:
        if args.benchmark is None:
            raise UsageError("give a benchmark file (or a built-in's name), or programs with --command")
        if args.name or args.input or args.shell:
            raise UsageError("--name, --input and --shell go with --command")
        return resolve_benchmark(args.benchmark)
    if args.benchmark is not None:
        raise UsageError(f"{args.benchmark}: give either a benchmark file or --command, not both")
    if len(args.name or []) > len(args.command):
        raise UsageError(f"--name: {len(args.name)} names for {len(args.command)} commands")
    commands: list[dict] = []
    for index, text in enumerate(args.command):
        argv = text if args.shell else _split(text)
        name = args.name[index] if index < len(args.name or []) else text
        if any(given["name"] == name for given in commands):
            name = f"{name} #{index + 1}"
        uses_placeholder = command_line_benchmark.PLACEHOLDER in text
        mode = "none" if not args.input else "path" if uses_placeholder else "stdin"
        commands.append({"name": name, "argv": argv, "shell": args.shell, "input": mode})
    inputs: list[dict] = []
    for given in args.input or []:
        path = Path(given)
        if not path.is_file():
            raise UsageError(f"--input {given}: no such file")
        name = path.name if all(path.name != i["name"] for i in inputs) else str(path)
        inputs.append({"name": name, "path": str(path.resolve())})
    # Named after its commands: the history and the gate keep runs of other commands apart.
    name = " vs ".join(given["name"] for given in commands)
    spec = {"name": name, "compare": args.compare_output, "commands": commands, "inputs": inputs}
    directory = tempfile.mkdtemp(prefix="perflab-commands-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    generated = Path(directory) / "commands.py"
    generated.write_text(command_line_benchmark.source(spec))
    return generated


def _split(text: str) -> list[str]:
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise UsageError(f"--command {text!r}: {error}") from None
    if not argv:
        raise UsageError("--command: an empty command")
    return argv
