"""What ``perflab profile`` and ``perflab merge`` show and write of a profile: the terminal tables,
what-if predictions and the output files (--html, --folded, --speedscope, --firefox, --json)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from perflab.cli.support.options import (
    EXIT_FAILURES,
    EXIT_INTERRUPTED,
    EXIT_OK,
    UsageError,
    output_option,
    say,
    write_output,
)
from perflab.option_types import whole_number

if TYPE_CHECKING:
    from rich.console import Console

    from perflab.profile.model import Profile
    from perflab.profile.offload import Device, Offload, Work
    from perflab.profile.session import ProfileOutcome
    from perflab.profile.shares import FrameShare
    from perflab.profile.whatif import WhatIf

OUTPUTS = ("--html", "--folded", "--speedscope", "--firefox", "--json")


def view_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--top", type=whole_number(1), default=15, metavar="N", help="rows in the terminal tables (default 15)"
    )
    parser.add_argument(
        "--what-if",
        action="append",
        type=_what_if,
        default=[],
        metavar="FRAME=Kx",
        help="predict the operation's speedup if FRAME's self time were K times faster "
        "(a function name or a pattern such as '*escape*'; repeatable)",
    )
    parser.add_argument(
        "--offload",
        metavar="FRAME",
        help="predict the operation's speedup if FRAME and its callees ran on --device, with the data "
        "of --transfer moved to it and back (docs/what-if.md)",
    )
    parser.add_argument(
        "--device",
        type=_device,
        metavar="SPEC",
        help="the --offload device: pcie3x1 (default), pcie4x16, on-core, ..., then key=value changes: "
        "link=8Gb/s, latency=1us, clock=1GHz, per-cycle=1, depth=15, fixed=512",
    )
    parser.add_argument(
        "--transfer",
        type=_transfer,
        metavar="IN[,OUT]",
        help="bytes per call moved to the --offload device and back (OUT defaults to IN), e.g. 32KiB",
    )
    parser.add_argument(
        "--units",
        type=_units,
        metavar="N",
        help="units of work per call for the --offload device's per-cycle throughput (default: the bytes of IN)",
    )
    output_option(parser, "--html", "an interactive flame graph")
    parser.add_argument("--folded", metavar="FILE", help="write folded stacks (FlameGraph / py-spy raw format)")
    parser.add_argument("--speedscope", metavar="FILE", help="write speedscope JSON")
    parser.add_argument(
        "--firefox", metavar="FILE", help="write the Firefox Profiler's processed profile JSON (profiler.firefox.com)"
    )
    output_option(parser, "--json", "perflab.profile/1: the profile with its runs and metadata; input of perflab merge")


def _what_if(text: str) -> tuple[str, float]:
    from perflab.profile.whatif import WhatIfError, parse_what_if

    try:
        return parse_what_if(text)
    except WhatIfError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix(f"--what-if {text!r}: ")) from None


def _device(text: str) -> Device:
    from perflab.profile.offload import OffloadError, parse_device

    try:
        return parse_device(text)
    except OffloadError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix(f"--device {text!r}: ")) from None


def _transfer(text: str) -> tuple[float, float]:
    from perflab.profile.offload import OffloadError, parse_transfer

    try:
        return parse_transfer(text)
    except OffloadError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _units(text: str) -> float:
    from perflab.profile.offload import OffloadError, parse_units

    try:
        return parse_units(text)
    except OffloadError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


@dataclass(frozen=True)
class Offloading:
    """An --offload request: which frames go to which device with how much data and work per call."""

    pattern: str
    device: Device
    work: Work

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Offloading | None:
        from perflab.profile.offload import DEFAULT_DEVICE, OffloadError, work_of

        given = [name for name in ("device", "transfer", "units") if getattr(args, name) is not None]
        if args.offload is None:
            if given:
                raise UsageError(f"--{given[0]} describes an --offload: give --offload FRAME too")
            return None
        device = args.device or DEFAULT_DEVICE
        try:
            return cls(args.offload, device, work_of(device, args.transfer, args.units))
        except OffloadError as error:
            raise UsageError(str(error)) from None


@dataclass(frozen=True)
class Views:
    """What to show and write of a profile: the terminal tables' rows, what-if predictions and the
    output files (None: not written)."""

    top: int = 10
    what_if: Sequence[tuple[str, float]] = ()
    offload: Offloading | None = None
    html: str | None = None
    folded: str | None = None
    speedscope: str | None = None
    firefox: str | None = None
    json: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Views:
        return cls(
            args.top,
            args.what_if,
            Offloading.from_args(args),
            args.html,
            args.folded,
            args.speedscope,
            args.firefox,
            args.json,
        )


def report(outcome: ProfileOutcome, views: Views, err: Console) -> int:
    """Show and write what was collected (also a partial profile), then the exit code."""
    from perflab.profile.shares import frame_shares
    from perflab.render.terminal import profile as profile_terminal
    from perflab.render.terminal.console import stdout_console
    from perflab.units import counted

    profile = outcome.profile
    if outcome.error and profile.runs:  # every output of a profile cut short says so, and why
        profile.metadata["partial"] = outcome.error
    shares = frame_shares(profile.runs)
    what_ifs, what_if_error = _what_ifs(profile, views.what_if)
    offload, offload_error = _offload(profile, views.offload)
    what_if_error = what_if_error or offload_error
    if profile.runs:
        profile_terminal.render(profile, stdout_console(), what_ifs, outcome.notes, views.top, shares, offload)
        _write(profile, views, err, shares, offload)
    else:
        for note in outcome.notes:
            say(err, f"note: {note}")
    if outcome.interrupted:
        say(err, "perflab: interrupted (the runs above were kept)")
        return EXIT_INTERRUPTED
    if outcome.error:
        kept = (
            f" (the {counted(len(profile.runs), 'run')} sampled until then kept, marked partial)"
            if profile.runs
            else " (no run was finished: nothing is written)"
        )
        say(err, f"perflab: error: {outcome.error}{kept}")
        return EXIT_FAILURES
    if what_if_error:
        raise UsageError(what_if_error)
    return EXIT_OK


def _what_ifs(profile: Profile, requests: Sequence[tuple[str, float]]) -> tuple[list[WhatIf], str | None]:
    from perflab.profile.whatif import WhatIfError, predict

    results = []
    for pattern, factor in requests:
        try:
            results.append(predict(profile.runs, pattern, factor))
        except WhatIfError as error:
            return results, str(error)
    return results, None


def _offload(profile: Profile, request: Offloading | None) -> tuple[Offload | None, str | None]:
    from perflab.profile.offload import OffloadError, predict_from

    if request is None or not profile.runs:
        return None, None
    try:
        return predict_from(profile, request.pattern, request.device, request.work), None
    except OffloadError as error:
        return None, str(error)


def _write(profile: Profile, views: Views, err: Console, shares: list[FrameShare], offload: Offload | None) -> None:
    import json

    from perflab.profile.folded import format_folded
    from perflab.profile.processors import with_operation_frame
    from perflab.render import firefox, speedscope

    if views.json:
        # the prediction beside the profile it was made from: merge and diff read the profile alone
        saved = profile.to_json() | ({"offload": offload.to_json()} if offload else {})
        write_output(views.json, json.dumps(saved), "profile", err)
    if views.folded:
        write_output(views.folded, format_folded(with_operation_frame(profile.merged())), "folded stacks", err)
    if views.speedscope:
        write_output(views.speedscope, speedscope.render(profile, _title(profile)), "speedscope profile", err)
    if views.firefox:
        write_output(views.firefox, firefox.render(profile, _title(profile)), "Firefox Profiler profile", err)
    if views.html:
        from perflab.render.html import flamegraph  # jinja2 and the metrics' tables: for --html only

        write_output(views.html, flamegraph.render(profile, _title(profile), shares, offload), "flame graph", err)


def _title(profile: Profile) -> str:
    m = profile.metadata
    parts = [str(m[key]) for key in ("benchmark", "case", "contender") if m.get(key)]
    return " / ".join(parts) or "merged profile"
