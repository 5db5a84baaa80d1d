"""``perflab profile --native-command CMD`` with no sampling option: perf's own defaults, not None
(``--samples``, ``--runs`` and ``--rate`` default to None, meaning "the default for what is profiled")."""

from perflab import cli
from perflab.cli.support.native_profile import settings_from
from perflab.profile.native_perf import NativeSettings


def test_options_not_given_keep_perfs_defaults():
    args = cli.parser().parse_args(["profile", "--native-command", "sort -n nums.txt"])
    assert settings_from(args) == NativeSettings(max_time=args.max_time, timeout=args.timeout)


def test_options_given_are_kept():
    given = ["--samples", "300", "--runs", "3", "--rate", "499", "--call-graph", "fp", "--max-time", "20"]
    args = cli.parser().parse_args(["profile", "--native-command", "true", *given])
    assert settings_from(args) == NativeSettings(samples=300, runs=3, rate=499, call_graph="fp", max_time=20.0)
