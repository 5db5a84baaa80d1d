"""Offload what-if: the operation's time if some of its work ran on a device (an accelerator behind
a link such as PCIe, or an on-core ISA extension), from the measured profile and a stated model.

The model (docs/what-if.md), per call of the operation, T its measured time:
- the offloaded part is what the matched frames run, callees included: a share s of T
  (perflab.profile.shares, with its interval across profiling runs), so s*T in software;
- on the device it takes 2*latency + bytes/bandwidth (the data moved to the device and back)
  + (depth + fixed + units/per_cycle) / clock (the pipeline's fill, the fixed logic per call and
  the units of work at the device's throughput);
- the operation then takes (1 - s)*T + device time: speedup T / that. Amdahl's bound, 1/(1 - s),
  is the speedup with an infinitely fast device and a free link.
Across input sizes the model scales the operation, the data moved and the units in proportion
(a factor f of this call's size): the fixed costs (latency, fill, logic) are what make small
inputs lose, so the speedup rises with f towards its limit and the break-even size is where the
device's time equals the software's.

The speedup rises with s and falls with T's lower bound being smaller, so its interval is taken at
the bounds of both (s low with T low, s high with T high).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from perflab.profile.folded import Stack
from perflab.profile.model import Profile
from perflab.profile.shares import share_intervals
from perflab.profile.whatif import matches
from perflab.results.model import json_numbers
from perflab.results.quantities import Interval


class OffloadError(Exception):
    """An offload request that is malformed or names no frame of the profile."""


@dataclass(frozen=True)
class Device:
    """Where the offloaded work runs: its link (None for on-core: no transfer) and its engine."""

    name: str
    bandwidth: float | None = None  # bytes per second across the link, each way
    latency: float = 0.0  # seconds per transfer, one way
    clock: float = 1e9  # Hz
    per_cycle: float = 1.0  # units of work per cycle once the pipeline is full
    depth: float = 0.0  # cycles to fill the pipeline
    fixed: float = 0.0  # cycles of logic per call besides the per-unit work

    def describe(self) -> str:
        link = (
            "on-core, no transfer"
            if self.bandwidth is None
            else f"{format_rate(self.bandwidth)} each way, {_seconds(self.latency)} latency"
        )
        engine = f"{self.clock / 1e9:g} GHz, {self.per_cycle:g} unit/cycle"
        extras = [f"depth {self.depth:g}"] * bool(self.depth) + [f"{self.fixed:g} fixed cycles"] * bool(self.fixed)
        return f"{self.name} ({link}; {', '.join([engine, *extras])})"


# PCIe bandwidth per lane and direction after line coding (3.0: 8 GT/s, 128b/130b), and a typical
# one-way latency of a small DMA transfer; other links are described with key=value.
_PCIE_LANE = {3: 0.985e9, 4: 1.969e9, 5: 3.938e9}
_PCIE_LATENCY = 1e-6
PRESETS: dict[str, Device] = {
    f"pcie{generation}x{lanes}": Device(f"pcie{generation}x{lanes}", per_lane * lanes, _PCIE_LATENCY)
    for generation, per_lane in _PCIE_LANE.items()
    for lanes in (1, 4, 8, 16)
}
PRESETS["on-core"] = Device("on-core")  # an ISA extension or a unit sharing the core's memory
DEFAULT_DEVICE = PRESETS["pcie3x1"]

_PREFIXES = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "ki": 2.0**10, "mi": 2.0**20, "gi": 2.0**30}
_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def parse_size(text: str) -> float:
    """A number of bytes: '32KiB', '32kB', '1.5MB', '4096'."""
    match = re.fullmatch(r"\s*([0-9.e+]+)\s*([kmgt]i?)?b?\s*", text, re.IGNORECASE)
    value = _number(match.group(1)) if match else math.nan
    if not value >= 0 or not math.isfinite(value):
        raise OffloadError(f"{text!r} is not a size in bytes (e.g. 4096, 32KiB, 1.5MB)")
    return value * _PREFIXES[(match.group(2) or "").lower()] if match else value


def parse_transfer(text: str) -> tuple[float, float]:
    """'IN[,OUT]': bytes moved to the device and back per call (OUT defaults to IN)."""
    moved_in, _, moved_out = text.partition(",")
    return parse_size(moved_in), parse_size(moved_out) if moved_out else parse_size(moved_in)


def parse_units(text: str) -> float:
    """Units of work per call: '8192', '32Ki'."""
    try:
        return parse_size(text)
    except OffloadError:
        raise OffloadError(f"{text!r} is not a number of units (e.g. 8192, 32Ki)") from None


def work_of(device: Device, transfer: tuple[float, float] | None, units: float | None) -> Work:
    """A call's work from --transfer and --units: over a link the bytes moved must be given; the
    units default to the bytes moved in."""
    if transfer is None and device.bandwidth is not None:
        raise OffloadError(f"--offload over a link ({device.name}) needs --transfer BYTES (moved per call)")
    moved_in, moved_out = transfer or (0.0, 0.0)
    return Work(moved_in, moved_out, moved_in if units is None else units)


def parse_device(text: str) -> Device:
    """'pcie3x1', 'on-core', or either followed by key=value changes (comma-separated), or key=value
    alone: link=8Gb/s (bits) or 1GB/s (bytes), latency=1us, clock=1GHz, per-cycle=1, depth=15,
    fixed=512."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    device = Device("custom", bandwidth=None)
    if parts and "=" not in parts[0]:
        name = parts.pop(0).lower()
        if name not in PRESETS:
            raise OffloadError(f"--device {text!r}: unknown device {name!r} (one of {', '.join(PRESETS)})")
        device = PRESETS[name]
    changes: dict[str, float | None] = {}
    for part in parts:
        key, _, value = part.partition("=")
        key, value = key.strip().lower(), value.strip()
        try:
            changes[_FIELDS[key]] = _DEVICE_VALUES[key](value)
        except KeyError:
            raise OffloadError(
                f"--device {text!r}: unknown setting {key!r} (link, latency, clock, per-cycle, depth, fixed)"
            ) from None
        except (ValueError, OffloadError):
            raise OffloadError(f"--device {text!r}: {key}={value!r} is not a valid {key}") from None
    if changes and device.name != "custom":
        changes["name"] = f"{device.name} with " + ", ".join(p for p in parts)  # type: ignore[assignment]
    elif changes:
        changes["name"] = ", ".join(parts)  # type: ignore[assignment]
    return replace(device, **changes)  # type: ignore[arg-type]


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def _positive(value: float) -> float:
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(value)
    return value


def _rate(text: str) -> float:
    """'8Gb/s' (bits) or '1GB/s', '1.024GB/s' (bytes) -> bytes per second."""
    match = re.fullmatch(r"([0-9.e+]+)\s*([kKmMgGtT]i?)?(b|B)/s", text.strip())
    if not match:
        raise ValueError(text)
    scale = _PREFIXES[(match.group(2) or "").lower()] / (8 if match.group(3) == "b" else 1)
    return _positive(_number(match.group(1)) * scale)


def _duration(text: str) -> float:
    match = re.fullmatch(r"([0-9.e+]+)\s*(s|ms|us|µs|ns)", text.strip())
    if not match:
        raise ValueError(text)
    value = _number(match.group(1)) * _TIME[match.group(2)]
    if not (value >= 0 and math.isfinite(value)):
        raise ValueError(text)
    return value


def _hertz(text: str) -> float:
    match = re.fullmatch(r"([0-9.e+]+)\s*([kmg])?hz", text.strip(), re.IGNORECASE)
    if not match:
        raise ValueError(text)
    return _positive(_number(match.group(1)) * _PREFIXES[(match.group(2) or "").lower()])


def _cycles(text: str) -> float:
    value = _number(text)
    if not (value >= 0 and math.isfinite(value)):
        raise ValueError(text)
    return value


# A setting's value keeps its case: in a link's rate, b is bits and B bytes.
_FIELDS = {
    "link": "bandwidth",
    "latency": "latency",
    "clock": "clock",
    "per-cycle": "per_cycle",
    "depth": "depth",
    "fixed": "fixed",
}
_DEVICE_VALUES = {
    "link": _rate,
    "latency": _duration,
    "clock": _hertz,
    "per-cycle": lambda text: _positive(_number(text)),
    "depth": _cycles,
    "fixed": _cycles,
}


@dataclass(frozen=True)
class Work:
    """What one call of the operation gives the device: bytes each way and units of work."""

    bytes_in: float
    bytes_out: float
    units: float


@dataclass(frozen=True)
class SizePoint:
    factor: float  # input size relative to the profiled call
    speedup: Interval


@dataclass(frozen=True)
class Offload:
    pattern: str
    frames: list[str]  # the frames the pattern matched
    device: Device
    work: Work
    share: Interval  # of the operation, the matched frames and their callees
    time_per_call: Interval  # the operation's, while profiled
    device_time: float  # per call: transfer + compute
    transfer_time: float
    speedup: Interval
    amdahl: Interval  # the bound with an infinitely fast device and a free link
    break_even: float | None  # the size factor where offloading starts to pay (None: never)
    sizes: list[SizePoint]

    @property
    def software_time(self) -> Interval:
        """The offloaded part's time per call in software, s*T, its bounds paired as the speedup's."""
        share, time = self.share, self.time_per_call
        return Interval(share.value * time.value, share.low * time.low, share.high * time.high)

    def to_json(self) -> dict[str, Any]:
        """The prediction as ``perflab profile --json`` writes it (docs/results-schema.md): seconds per
        call, bytes per second, sizes as factors of this call's and in bytes moved in."""
        return json_numbers(
            {
                "pattern": self.pattern,
                "frames": self.frames,
                "device": asdict(self.device),
                "work": asdict(self.work),
                "share": asdict(self.share),
                "time_per_call": asdict(self.time_per_call),
                "software_time": asdict(self.software_time),
                "device_time": self.device_time,
                "transfer_time": self.transfer_time,
                "speedup": asdict(self.speedup),
                "amdahl": asdict(self.amdahl),
                "break_even": None
                if self.break_even is None
                else {"factor": self.break_even, "bytes_in": self.break_even * self.work.bytes_in},
                "sizes": [
                    {"factor": p.factor, "bytes_in": p.factor * self.work.bytes_in, "speedup": asdict(p.speedup)}
                    for p in self.sizes
                ],
            }
        )


SIZE_FACTORS = tuple(2.0**k for k in range(-6, 7))


def device_time(device: Device, work: Work, factor: float = 1.0) -> tuple[float, float]:
    """(transfer, transfer + compute) in seconds for ``factor`` times the call's work."""
    transfer = 0.0
    if device.bandwidth is not None:
        transfer = 2 * device.latency + factor * (work.bytes_in + work.bytes_out) / device.bandwidth
    compute = (device.depth + device.fixed + factor * work.units / device.per_cycle) / device.clock
    return transfer, transfer + compute


def speedup(time_per_call: float, share: float, device: Device, work: Work, factor: float = 1.0) -> float:
    """The operation's speedup at ``factor`` times the call's size (time and work scaled alike)."""
    total = factor * time_per_call
    _, on_device = device_time(device, work, factor)
    after = (1 - share) * total + on_device
    return total / after if after > 0 else math.inf


def break_even(time_per_call: float, share: float, device: Device, work: Work) -> float | None:
    """The size factor f where the device's time equals the software's (s*T*f = a + b*f), or None."""
    _, fixed = device_time(device, work, 0.0)  # what does not scale: latency, fill, logic
    per_factor = device_time(device, work, 1.0)[1] - fixed
    gain = share * time_per_call - per_factor
    if gain <= 0:
        return None
    return fixed / gain


def predict(
    runs: Sequence[Mapping[Stack, int]],
    per_call: Sequence[float],
    pattern: str,
    device: Device,
    work: Work,
) -> Offload:
    """The offload prediction for the frames ``pattern`` matches, from the profile's runs and the
    operation's time per call in each run."""
    if not per_call:
        raise OffloadError("--offload needs the operation's time per call, which this profile does not have")
    frames = sorted({label for run in runs for stack in run for label in stack if matches(pattern, label)})
    if not frames:
        raise OffloadError(f"--offload {pattern!r}: no frame of the profile matches")
    inside = np.array([[sum(n for stack, n in run.items() if any(f in frames for f in stack)) for run in runs]])
    samples = np.array([sum(run.values()) for run in runs])
    share = Interval(*(float(x[0]) for x in share_intervals(inside, samples)))
    ordered = sorted(per_call)
    time = Interval(ordered[len(ordered) // 2], ordered[0], ordered[-1])
    transfer, on_device = device_time(device, work)

    def at(factor: float) -> Interval:
        return Interval(
            speedup(time.value, share.value, device, work, factor),
            speedup(time.low, share.low, device, work, factor),
            speedup(time.high, share.high, device, work, factor),
        )

    def bound(s: float) -> float:
        return 1 / (1 - s) if s < 1 else math.inf

    return Offload(
        pattern,
        frames,
        device,
        work,
        share,
        time,
        on_device,
        transfer,
        at(1.0),
        Interval(bound(share.value), bound(share.low), bound(share.high)),
        break_even(time.value, share.value, device, work),
        [SizePoint(f, at(f)) for f in SIZE_FACTORS],
    )


def predict_from(profile: Profile, pattern: str, device: Device, work: Work) -> Offload:
    """``predict`` from a profile: its runs and the time per call each run recorded."""
    per_call = [info["time_per_call"] for info in profile.metadata.get("run_info", []) if info.get("time_per_call")]
    return predict(profile.runs, per_call, pattern, device, work)


def format_speedup(speedup: Interval) -> str:
    """A predicted speedup in the one convention for ratios, the time ratio after/before:
    '1.05x faster [1.02x, 1.08x]', or 'slower' when the transfer eats the gain."""
    from perflab.units import format_ratio

    return format_ratio(1 / speedup.value, 1 / speedup.high, 1 / speedup.low)


def format_size_factor(factor: float) -> str:
    """An input size relative to the profiled call's: '4x', '1/16x'."""
    return f"{factor:g}x" if factor >= 1 else f"1/{1 / factor:g}x"


def format_rate(bytes_per_second: float) -> str:
    return f"{bytes_per_second * 8 / 1e9:.3g} Gb/s"


def _seconds(value: float) -> str:
    from perflab.units import format_time

    return format_time(value) if value else "no"
