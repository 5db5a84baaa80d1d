"""pyperf at its default settings on json.dumps(NESTED) (or orjson.dumps), for side-by-side figures.

    python benchmarks/_pyperf_json_dumps.py --function json_stdlib --name A -o a.json

pyperf's defaults: 20 worker processes, each 1 warmup + 3 values of >= 100 ms, loops calibrated
first. ``--function`` chooses the callable; ``--name`` names the benchmark in the output (an A/A
pair is the same function under two names, written to two files for ``pyperf compare_to``).
"""

import json

import pyperf

from perflab.builtins.json_dumps import NESTED_DATA  # the json_dumps built-in's data


def function_named(name: str):
    if name == "json_stdlib":
        return json.dumps
    if name == "orjson":
        import orjson

        return orjson.dumps
    raise SystemExit(f"--function: unknown {name!r} (json_stdlib, orjson)")


def pass_options_to_workers(cmd, args) -> None:
    cmd.extend(["--function", args.function, "--name", args.name])


if __name__ == "__main__":
    runner = pyperf.Runner(add_cmdline_args=pass_options_to_workers)
    runner.argparser.add_argument("--function", default="json_stdlib")
    runner.argparser.add_argument("--name", default=None)
    args = runner.parse_args()
    args.name = args.name or args.function
    runner.bench_func(args.name, function_named(args.function), dict(NESTED_DATA))
