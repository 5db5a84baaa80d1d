"""pytest-benchmark's options that perflab's plugin does not honour: each is refused at start-up
with one line naming it and saying what to use instead, never accepted and silently ignored.

When pytest-benchmark is installed and taken over (``--perflab``), its own parser declares them;
otherwise perflab declares them (``declare``), so that a command line written for pytest-benchmark
gets this line rather than pytest's "unrecognized arguments". An option is refused when its value
differs from pytest-benchmark's default (an explicit ``--benchmark-sort=min`` cannot be told apart
from the default, and changes nothing anyway).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

_SAVED = (
    "perflab saves every session to its results store (.perflab/perflab.db, read by perflab history; "
    "--perflab-no-store to skip), and --benchmark-json PATH writes pytest-benchmark's JSON"
)
_LAYOUT = (
    "perflab's summary has one layout (the median with its 95% interval); every statistic of "
    "pytest-benchmark's table is in --benchmark-json PATH"
)


@dataclass(frozen=True)
class Unsupported:
    flag: str
    default: Any  # pytest-benchmark's default: any other value was asked for
    instead: str
    declare: dict[str, Any] = field(default_factory=dict)  # argparse keywords, when perflab declares it

    @property
    def dest(self) -> str:
        return self.flag.removeprefix("--").replace("-", "_")


UNSUPPORTED = (
    Unsupported("--benchmark-autosave", None, _SAVED, {"action": "store_const", "const": True}),
    Unsupported("--benchmark-save", None, _SAVED, {"metavar": "NAME"}),
    Unsupported(
        "--benchmark-compare",
        [],
        "use --perflab-against REF|FILE (a file written by --perflab-json, or a git revision's stored runs)",
        {"nargs": "?", "const": True, "metavar": "NUM|_ID"},
    ),
    Unsupported(
        "--benchmark-compare-fail",
        None,
        "use --perflab-against REF|FILE --perflab-threshold PCT (fails only on a slowdown the data support)",
        {"nargs": "+", "metavar": "EXPR"},
    ),
    Unsupported("--benchmark-columns", None, _LAYOUT, {"metavar": "LABELS"}),
    Unsupported("--benchmark-sort", "min", _LAYOUT, {"metavar": "COL"}),
    Unsupported("--benchmark-group-by", "group", _LAYOUT, {"metavar": "LABEL"}),
    Unsupported("--benchmark-histogram", [], _LAYOUT, {"action": "append", "nargs": "?", "const": True}),
    Unsupported(
        "--benchmark-cprofile",
        None,
        "mark the test @pytest.mark.benchmark(cprofile=True); its profile goes to --benchmark-json",
        {"metavar": "COLUMN"},
    ),
)


def declare(group: pytest.OptionGroup) -> None:
    """Declare the options (pytest-benchmark is not installed), with pytest-benchmark's defaults."""
    for option in UNSUPPORTED:
        group.addoption(
            option.flag,
            default=option.default,
            help="not supported by perflab: " + option.instead.replace("%", "%%"),
            **option.declare,
        )


def refuse_asked(config: pytest.Config) -> None:
    """A UsageError naming the first of these options the command line asked for."""
    for option in UNSUPPORTED:
        if config.getoption(option.dest, option.default) != option.default:
            raise pytest.UsageError(f"{option.flag} is not supported by perflab's plugin: {option.instead}")
