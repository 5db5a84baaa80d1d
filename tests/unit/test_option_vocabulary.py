"""One word, one meaning: every verb's parser, walked as ``perflab --help`` builds it.

An option that several verbs take means the same in each (same destination, same help up to the
verb's own detail in the help's last parenthesis: its default, what it writes); every verb that
produces a result writes it in the same formats; old spellings still work, with a warning."""

from __future__ import annotations

import argparse
import re
from collections import defaultdict

import pytest

from perflab.cli import parser
from perflab.cli.support.options import OUTPUT_FORMATS

# The verbs that measure and decide something: each writes its result as --json, --markdown, --html.
RESULT_VERBS = ("run", "compare", "check", "bisect")
# The verb's own detail: the help's last parenthesis (one level of nesting inside it).
DETAIL = re.compile(r"\s*\((?:[^()]|\([^()]*\))*\)$")


def verbs() -> dict[str, argparse.ArgumentParser]:
    top = parser()
    subcommands = next(action for action in top._actions if isinstance(action, argparse._SubParsersAction))
    return dict(subcommands.choices)


def meaning(action: argparse.Action) -> str:
    return DETAIL.sub("", (action.help or "").replace("%%", "%"))


def uses() -> dict[str, list[tuple[str, str, str]]]:
    """Option string -> (verb, dest, meaning) of every verb that lists it in --help."""
    found = defaultdict(list)
    for verb, verb_parser in verbs().items():
        for action in verb_parser._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
                continue  # deprecated aliases and hidden test options; -h
            for option in action.option_strings:
                found[option].append((verb, action.dest, meaning(action)))
    return found


def test_an_option_means_the_same_in_every_verb():
    differing = {
        option: sorted({(dest, said) for _, dest, said in seen})
        for option, seen in uses().items()
        if len({(dest, said) for _, dest, said in seen}) > 1
    }
    assert not differing, differing


def test_the_shared_options_are_shared_widely():
    """The walk sees what it should: the options this vocabulary is about, in the verbs that take them."""
    seen = {option: {verb for verb, _, _ in found} for option, found in uses().items()}
    assert {"run", "compare", "check", "bisect", "history", "profile", "import"} <= seen["--contender"]
    assert {"run", "compare", "check", "bisect", "history", "profile"} <= seen["--case"]
    assert {"run", "compare", "profile"} <= seen["--native"] & seen["--samples"]
    assert {"run", "compare", "demo"} <= seen["--profile"]


def test_every_verb_with_a_result_offers_the_same_output_formats():
    parsers = verbs()
    missing = {
        (verb, option)
        for verb in RESULT_VERBS
        for option in OUTPUT_FORMATS
        if option not in parsers[verb]._option_string_actions
    }
    assert missing == set()
    for verb in RESULT_VERBS:
        for option in OUTPUT_FORMATS:
            assert parsers[verb]._option_string_actions[option].help.startswith(OUTPUT_FORMATS[option])


@pytest.mark.parametrize(
    ("argv", "dest", "value", "old"),
    [
        (["compare", "b.py", "--contenders", "a,b"], "contender", ["a,b"], "--contenders"),
        (["run", "b.py", "--profile-native"], "native", True, "--profile-native"),
        (["run", "b.py", "--profile-samples", "50"], "samples", 50, "--profile-samples"),
        (["worker", "--name", "box-1"], "worker_name", "box-1", "--name"),
    ],
)
def test_old_spellings_still_work_and_say_they_are_deprecated(capsys, argv, dest, value, old):
    args = parser().parse_args(argv)
    assert getattr(args, dest) == value
    warning = capsys.readouterr().err
    assert warning.count("\n") == 1 and f"{old} is deprecated" in warning, warning


def test_a_verb_that_follows_one_contender_says_so_when_given_two(capsys):
    from perflab.cli import main

    assert main(["bisect", __file__, "--good", "HEAD~1", "--bad", "HEAD", "--contender", "a,b"]) == 2
    assert "--contender: this command takes one (a, b given)" in capsys.readouterr().err
