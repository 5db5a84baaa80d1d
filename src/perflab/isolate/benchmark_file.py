"""The benchmark file ``perflab isolate`` writes: the recorded calls as cases, the original function
as the reference contender, a comparator chosen from what the function returned, suggested
contenders where asked for, and a commented place for more.

Cases: ``ALL`` (every recorded call in order, items = calls, so throughput is calls/s), and
``LARGEST`` / ``SMALLEST`` (the recorded calls with the largest and smallest pickled arguments,
when there are several). A contender takes a list of calls ``[(args, kwargs), ...]`` and returns
the list of outputs; the comparator compares outputs call by call and names the first call that
differs.
"""

from __future__ import annotations

import os
from pathlib import Path

from perflab.isolate.recording import Recording
from perflab.profile.suggestions import Suggestion

_BUILTIN_TYPES = {
    f"builtins.{name}"
    for name in ("str", "bytes", "int", "float", "bool", "NoneType", "list", "tuple", "dict", "set", "frozenset")
}


def choose_comparator(returns: dict[str, int], returns_json: bool) -> tuple[str, str]:
    """(comparator for one output, why) from the types the recorded function returned."""
    types = set(returns)
    if types and types <= {"builtins.str", "builtins.bytes"} and returns_json:
        return "json", "it returned JSON text: outputs that parse to the same value are equivalent"
    if types <= _BUILTIN_TYPES:
        return "exact", f"it returned {', '.join(sorted(t.removeprefix('builtins.') for t in types)) or 'nothing'}"
    return (
        "attributes",
        f"it returned {', '.join(sorted(types))}: outputs compared by type and attributes (vars), "
        "as such objects may not define ==",
    )


def render(recording: Recording, name: str, inputs_file: str, suggestion: Suggestion | None, directory: Path) -> str:
    """The benchmark file's source, for a file written into ``directory``."""
    s = recording.summary
    program_directory = os.path.relpath(s["program_path"], directory.resolve())
    module, _, qualname = recording.function.partition(":")
    comparator, why = choose_comparator(s["returns"], s["returns_json"])
    sizes = s["bytes"]
    cases = [("ALL", "every recorded call, in the order of the program", "list(range(len(_CALLS)))", len(sizes))]
    if len(sizes) > 1:
        largest = max(range(len(sizes)), key=sizes.__getitem__)
        smallest = min(range(len(sizes)), key=sizes.__getitem__)
        cases.append(
            (
                "LARGEST",
                f"the recorded call with the largest arguments ({sizes[largest]} bytes pickled)",
                f"[{largest}]",
                1,
            )
        )
        cases.append(
            (
                "SMALLEST",
                f"the recorded call with the smallest arguments ({sizes[smallest]} bytes pickled)",
                f"[{smallest}]",
                1,
            )
        )
    refused = "".join(f"\n  refused: {count} calls {reason}" for reason, count in s["refused"].items())
    lines = [
        f'"""{name}: {_safe(recording.function)} with the inputs it saw in a real run, written by perflab isolate.',
        "",
        f"Program: {_safe(' '.join(recording.command))}",
        f"Recorded: {s['calls_kept']} of {s['calls_seen']} calls (sampled evenly over the run), Python {s['python']};",
        f"the arguments are pickled in {inputs_file} beside this file.{_safe(refused)}",
        f"Comparator: {comparator}, because {_safe(why)}.",
        "",
        f"    perflab run {name}.py",
        '"""',
        "",
        "import importlib",
        "import pickle",
        "import sys",
        "from pathlib import Path",
        "",
        "import perflab",
        "from perflab.bench.comparators import resolve_comparator",
        "",
        "# The program's directory, relative to this file: its modules define the function and the",
        "# classes of its arguments.",
        f"sys.path.insert(0, str((Path(__file__).parent / {program_directory!r}).resolve()))",
        f"_CALLS = pickle.loads((Path(__file__).parent / {inputs_file!r}).read_bytes())",
        "",
        "",
        "def _resolve(module, qualname):",
        "    target = importlib.import_module(module)",
        "    for part in qualname.split('.'):",
        "        target = getattr(target, part)",
        "    return target",
        "",
        "",
        _comparator_source(comparator),
        "",
        f"bench = perflab.Benchmark({name!r}, description={('calls of ' + recording.function + ' recorded from a real run')!r}, compare=same_outputs)",
        "",
    ]
    for case, description, indices, items in cases:
        lines += [
            "",
            f"@bench.case(items={items})",
            f"def {case}():",
            f'    """{_safe(description)}"""',
            f"    return [pickle.loads(_CALLS[i]) for i in {indices}]",
            "",
        ]
    lines += [
        "",
        "@bench.contender(setup=True)",
        "def original():",
        f"    function = _resolve({module!r}, {qualname!r})  # once per worker: only the calls are timed",
        "",
        "    def call_all(calls):",
        "        return [function(*args, **kwargs) for args, kwargs in calls]",
        "",
        "    return call_all",
        "",
    ]
    if suggestion is not None:
        for source in suggestion.contenders.values():
            lines += [
                "",
                f"# Suggested by perflab ({_safe(suggestion.topic)} -> {_safe(suggestion.alternatives)}).",
                "@bench.contender(setup=True)",
                *source.strip("\n").split("\n"),
                "",
            ]
    lines += [
        "",
        "# Alternatives: a function of the list of calls returning the list of outputs, e.g.",
        "#",
        "# @bench.contender",
        "# def faster(calls):",
        "#     return [my_faster_version(*args, **kwargs) for args, kwargs in calls]",
        "",
    ]
    return "\n".join(lines)


def _comparator_source(comparator: str) -> str:
    if comparator == "attributes":
        element = (
            "def _same(expected, actual):\n"
            "    if type(expected) is not type(actual) or vars(expected) != vars(actual):\n"
            "        raise AssertionError(f'reference {expected!r}, contender {actual!r}')\n"
            "    return True\n"
            "\n\n"
            "_ELEMENT = resolve_comparator(_same)"
        )
    else:
        element = f"_ELEMENT = resolve_comparator({comparator!r})"
    return (
        f"{element}\n\n\n"
        "def same_outputs(expected, actual):\n"
        '    """Outputs of the calls compared one by one; the first call that differs is named."""\n'
        "    if len(expected) != len(actual):\n"
        "        raise AssertionError(f'{len(actual)} outputs for {len(expected)} calls')\n"
        "    for number, (one, other) in enumerate(zip(expected, actual)):\n"
        "        outcome = _ELEMENT.check(one, other)\n"
        "        if not outcome.equivalent:\n"
        "            raise AssertionError(f'call {number}: {outcome.difference}')\n"
        "    return True"
    )


def _safe(text: str) -> str:
    """Text for a docstring: no quotes that would end it, no backslashes, one line per line."""
    return text.replace("\\", "/").replace('"""', "'''")


def python_name(text: str) -> str:
    """A benchmark name from a function name: json:dumps -> json_dumps."""
    name = "".join(c if c.isalnum() else "_" for c in text).strip("_")
    return name if name and not name[0].isdigit() else f"isolated_{name}"
