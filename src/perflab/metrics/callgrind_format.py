"""Reading one callgrind output file (its "callgrind format", documented in valgrind's manual):
the total of every event, and each function's own (exclusive) counts.

A cost line is positions then event counts (missing trailing counts are zero); the line after a
``calls=`` line is the inclusive cost of that call, already counted in the callee, so it is
skipped. Names may be compressed: ``fn=(12) name`` the first time, ``fn=(12)`` afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Dump:
    events: list[str] = field(default_factory=list)  # e.g. Ir Dr Dw I1mr D1mr D1mw ... Bc Bcm Bi Bim
    totals: dict[str, int] = field(default_factory=dict)  # event -> count over the whole dump
    functions: dict[str, dict[str, int]] = field(default_factory=dict)  # function -> event -> own count
    descriptions: list[str] = field(default_factory=list)  # "desc:" lines, e.g. the simulated caches


def parse(text: str) -> Dump:
    dump = Dump()
    positions = 1
    names: dict[str, str] = {}  # compressed function ids -> names
    function: dict[str, int] | None = None
    skip_call_cost = False
    for line in text.splitlines():
        if not line:
            continue
        if line[0].isdigit() or line[0] in "+-*":
            if skip_call_cost:
                skip_call_cost = False
            elif function is not None:
                for event, value in zip(dump.events, line.split()[positions:]):
                    function[event] = function.get(event, 0) + int(value)
        elif line.startswith("fn="):
            function = dump.functions.setdefault(_name(line[3:], names), {})
        elif line.startswith("calls="):
            skip_call_cost = True
        elif line.startswith("events:"):
            dump.events = line.split()[1:]
        elif line.startswith("positions:"):
            positions = len(line.split()) - 1
        elif line.startswith(("totals:", "summary:")):
            dump.totals = dict(zip(dump.events, map(int, line.split()[1:])))
        elif line.startswith("desc:"):
            dump.descriptions.append(line[5:].strip())
    dump.totals = {event: dump.totals.get(event, 0) for event in dump.events}
    return dump


def _name(text: str, names: dict[str, str]) -> str:
    """``(12) name`` (and remember it), ``(12)`` (a name seen before), or a plain name."""
    if text.startswith("("):
        key, _, name = text.partition(")")
        if name.strip():
            names[key] = name.strip()
        return names.get(key, text)
    return text
