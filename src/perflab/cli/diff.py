"""``perflab diff``: the differential profile of two saved profiles, time (or, of allocation
profiles, memory) per call per call path."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.cli.support.options import (
    EXIT_OK,
    UsageError,
    add_verb,
    allow_mismatch_option,
    check_outputs,
    output_option,
    say,
    write_output,
)

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "diff",
        "differential profile of two saved profiles: time (allocation profiles: memory) per call per call path",
        "perflab profile bench.py --case C --contender a --json a.json",
        "perflab profile bench.py --case C --contender b --json b.json",
        "perflab diff a.json b.json --html diff.html --firefox diff.firefox.json",
        "perflab profile bench.py --case C --contender b --memory --json b-memory.json   (and a's: bytes per call)",
    )
    parser.add_argument("before", help="profile A (perflab.profile/1 JSON, from perflab profile --json)")
    parser.add_argument("after", help="profile B")
    output_option(parser, "--html", "the differential flame graph and both flame graphs")
    parser.add_argument(
        "--firefox",
        metavar="FILE",
        help="write the Firefox Profiler's processed profile JSON "
        "(both profiles and their difference in time per call, as its compare view shows them)",
    )
    output_option(
        parser, "--json", "every call path's value per call on each side and the difference with its interval"
    )
    allow_mismatch_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.profile.diff import diff_profiles
    from perflab.profile.frames import parse_frame
    from perflab.profile.model import IncomparableProfiles, ProfileFileError, load_profile
    from perflab.profile.side_profiles import CaseProfiles
    from perflab.render import firefox
    from perflab.render.html import report
    from perflab.render.terminal.console import SafeConsole

    check_outputs(args, "--html", "--firefox", "--json", inputs=(args.before, args.after))
    try:
        a, b = load_profile(args.before), load_profile(args.after)
        labels = (_profile_name(a.metadata, args.before), _profile_name(b.metadata, args.after))
        if labels[0] == labels[1]:
            labels = (args.before, args.after)
        diff = diff_profiles(a, b, labels, args.allow_mismatch)
    except (ProfileFileError, IncomparableProfiles, ValueError) as error:
        raise UsageError(f"{args.before} vs {args.after}: {error}") from None
    out = SafeConsole(highlight=False, soft_wrap=True)
    out.print(diff.explain(), markup=False)
    for node in diff.largest_self_changes(8):
        change = node.b_self - node.a_self
        if change == 0:
            continue
        total = node.difference
        out.print(
            f"  {diff.signed(change):>10}  {' > '.join(parse_frame(p).name for p in node.path)}  (self; with what it "
            f"calls {diff.signed(total.value)} [95% CI {diff.signed(total.low)}, {diff.signed(total.high)}])",
            markup=False,
        )
    for note in diff.notes:
        say(err, f"note: {note}")
    if args.html:
        entry = CaseProfiles(str(a.metadata.get("case", "")), labels[0], labels[1], a, b, diff)
        page = report.render_profiles(entry, f"perflab diff: {labels[1]} vs {labels[0]}")
        write_output(args.html, page, "differential profile", err, shown=str(Path(args.html).resolve()))
    if args.firefox:
        title = f"perflab diff: {labels[1]} vs {labels[0]}"
        write_output(args.firefox, firefox.render_diff(diff, a, title), "Firefox Profiler profile", err)
    if args.json:
        write_output(args.json, json.dumps(diff.to_json(), indent=1), "differential profile", err)
    return EXIT_OK


def _profile_name(metadata: dict, path: str) -> str:
    return str(metadata.get("contender") or Path(path).stem)
