"""``perflab merge``: saved profiles (perflab JSON or folded stacks) merged into one."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from perflab.cli.support.options import UsageError, add_verb, check_outputs
from perflab.cli.support.profile_views import OUTPUTS, Views, report, view_options

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    merge = add_verb(
        verbs,
        "merge",
        "merge saved profiles (perflab JSON or folded stacks) into one",
        "perflab merge a.profile.json b.profile.json --html merged.html",
        "perflab merge run1.folded run2.folded --json merged.profile.json",
    )
    merge.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="perflab profile JSON (--json of perflab profile) or folded stacks, one run each",
    )
    view_options(merge)
    merge.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.profile.model import IncomparableProfiles, ProfileFileError, load_profile, merge_profiles
    from perflab.profile.session import ProfileOutcome

    views = Views.from_args(args)
    check_outputs(args, *OUTPUTS, inputs=args.files)
    try:
        merged = merge_profiles([(name, load_profile(name)) for name in args.files])
    except (ProfileFileError, IncomparableProfiles) as error:
        raise UsageError(str(error)) from error
    return report(ProfileOutcome(merged), views, err)
