"""Defaults a project keeps in its pyproject.toml, read by every verb; the command line wins.

    [tool.perflab]              # for every verb that has the option
    max-time = 120
    db = "perf/perflab.db"

    [tool.perflab.check]        # for one verb, over the table above
    threshold = 3

A key is an option's long name without its dashes; a value is what the option takes (a number or
a string, true or false for a flag, a list for an option given more than once), checked as the
option's own value is; a path is taken as on the command line, from the current directory. An
option's environment variable ($PERFLAB_DB for ``db``) wins over the file. The file is the nearest
pyproject.toml from the current directory up, as ruff and pytest find theirs. A key no verb has,
or a bad value, is a one-line error naming the file and the key.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from perflab.cli.support.options import UsageError
from perflab.option_types import IGNORE_PROJECT_DEFAULTS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

FILE = "pyproject.toml"
# An option's environment variable wins over the file (a CI job's store over a developer's).
ENVIRONMENT = {"db": "PERFLAB_DB"}
IGNORED = IGNORE_PROJECT_DEFAULTS  # set by a queue worker for its jobs


def apply(top: argparse.ArgumentParser, verb: str, start: Path) -> None:
    """Set ``verb``'s defaults from the nearest pyproject.toml's ``[tool.perflab]`` tables."""
    found = None if os.environ.get(IGNORED) else _nearest(start)
    if found is None:
        return
    try:
        table = tomllib.loads(found.read_text()).get("tool", {}).get("perflab", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as error:
        raise UsageError(f"{found}: cannot read its [tool.perflab] defaults ({error})") from None
    if not isinstance(table, dict) or not table:
        return
    verbs = _verbs(top)
    general = {key: value for key, value in table.items() if not isinstance(value, dict)}
    for name, value in table.items():
        if isinstance(value, dict) and name not in verbs:
            raise UsageError(f"{found}: [tool.perflab.{name}]: perflab has no command {name!r}")
    for key in general:
        if not any(_option(parser, key) for parser in verbs.values()):
            raise UsageError(f"{found}: [tool.perflab] {key}: no perflab command has an option --{key}")
    specific = table.get(verb, {})
    for key in specific:
        if _option(verbs[verb], key) is None:
            raise UsageError(f"{found}: [tool.perflab.{verb}] {key}: perflab {verb} has no option --{key}")
    parser = verbs[verb]
    for key, value in {**general, **specific}.items():
        action = _option(parser, key)
        if action is not None and not os.environ.get(ENVIRONMENT.get(key, "")):
            where = f"[tool.perflab{'.' + verb if key in specific else ''}] {key}"
            parser.set_defaults(**{action.dest: _value(action, value, f"{found}: {where}")})


def _nearest(start: Path) -> Path | None:
    for directory in [start, *start.parents]:
        if (directory / FILE).is_file():
            return directory / FILE
    return None


def _verbs(top: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _option(parser: argparse.ArgumentParser, key: str) -> argparse.Action | None:
    return next((a for a in parser._actions if f"--{key}" in a.option_strings), None)


def _value(action: argparse.Action, value: Any, where: str) -> Any:
    """``value`` as the option would take it from the command line, or a UsageError naming ``where``."""
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse.BooleanOptionalAction)):
        if not isinstance(value, bool):
            raise UsageError(f"{where}: {value!r}: give true or false")
        return value if not isinstance(action, argparse._StoreFalseAction) else not value
    if isinstance(action, argparse._AppendAction):
        return [_one(action, item, where) for item in (value if isinstance(value, list) else [value])]
    if isinstance(value, (list, dict)):
        raise UsageError(f"{where}: {value!r}: give one value")
    return _one(action, value, where)


def _one(action: argparse.Action, value: Any, where: str) -> Any:
    if isinstance(value, bool):
        raise UsageError(f"{where}: {value!r}: give a value, not true or false")
    text = str(value)
    try:
        converted = action.type(text) if callable(action.type) else text
    except (argparse.ArgumentTypeError, TypeError, ValueError) as error:
        raise UsageError(f"{where}: {error}") from None
    if action.choices is not None and converted not in action.choices:
        raise UsageError(f"{where}: {text!r}: choose from {', '.join(map(str, action.choices))}")
    return converted
