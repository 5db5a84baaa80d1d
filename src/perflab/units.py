"""Human units for times, throughputs and memory."""

from __future__ import annotations

import math

_TIME_UNITS = ((1e-9, "ns"), (1e-6, "us"), (1e-3, "ms"), (1.0, "s"))
_RATE_PREFIXES = ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """A count and its noun, singular for one: '1 run', '3 runs', '1 process', '2 processes'."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def time_unit(seconds: float) -> tuple[float, str]:
    """The scale and name that show ``seconds`` with 1 to 3 digits before the point."""
    for scale, name in reversed(_TIME_UNITS):
        if abs(seconds) >= scale:
            return scale, name
    return _TIME_UNITS[0]


def format_time(seconds: float, scale_of: float | None = None) -> str:
    scale, name = time_unit(seconds if scale_of is None else scale_of)
    return f"{seconds / scale:.3g} {name}" if math.isfinite(seconds) else "?"


def format_budget(seconds: float) -> str:
    """A budget in seconds, as --max-time takes it: 60 -> '60 s', 1200 -> '1,200 s' (never '1.2e+03 s')."""
    return f"{seconds:,.3g} s" if seconds < 1000 else f"{seconds:,.0f} s"


def format_signed_time(seconds: float) -> str:
    """'+3.1 us', '-250 ns': a difference of times."""
    if not math.isfinite(seconds):
        return "?"
    return ("+" if seconds >= 0 else "-") + format_time(abs(seconds))


def format_rate(per_second: float, unit: str) -> str:
    """'123 MB/s', '4.5 k items/s'."""
    for scale, prefix in _RATE_PREFIXES:
        if per_second >= scale:
            return (
                f"{per_second / scale:.3g} {prefix}{unit}/s"
                if unit == "B"
                else f"{per_second / scale:.3g} {prefix} {unit}/s".replace("  ", " ")
            )
    return f"{per_second:.3g} {unit}/s"


def format_percent(fraction: float) -> str:
    """A fraction as a percentage with the digits it needs: 0.2 -> '20%', 0.0001 -> '0.01%'."""
    if not math.isfinite(fraction):
        return "?"
    percent = fraction * 100
    if abs(percent) >= 1e6:  # (a floor from 2 noisy rounds: 5e+49%, not fifty digits that wrap a table)
        return f"{percent:.2g}%"
    return f"{percent:.1f}%" if abs(percent) >= 0.1 else f"{percent:.2g}%"


def format_times(value: float, low: float, high: float) -> str:
    """A time with its 95% interval, each bound in its own unit: '853 ns [846 ns, 1.84 us]'.

    Intervals of times are not symmetric (they are widened on the log scale), so they are never
    shown as '± x%': that would read as a lower bound the interval does not have."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{format_time(value)} [no interval]"
    return f"{format_time(value)} [{format_time(low)}, {format_time(high)}]"


# The one convention for a comparison of times, in every output (docs/statistics.md, "How a
# comparison reads"): the quantity is the time ratio new/old (contender/reference,
# current/baseline) with its 95% interval; it is shown as a factor of at least 1 with its
# direction, as pyperf does, and the interval in the same orientation.
FASTER_WORD, SLOWER_WORD = "faster", "slower"
# The same convention for a ratio of bytes allocated per call: '1.99x more memory [1.98x, 2.00x]'.
TIME_WORDS, MEMORY_WORDS = (FASTER_WORD, SLOWER_WORD), ("less memory", "more memory")


def format_times_factor(factor: float) -> str:
    """A factor of times with three significant digits: 1.386 -> '1.39x', 14.08 -> '14.1x',
    4530.2 -> '4,530x' (never '4.53e+03')."""
    if not math.isfinite(factor) or factor <= 0:
        return "?"
    if factor < 1:  # a bound of an interval that reaches the other direction: '0.373x'
        return f"{factor:#.3g}x"
    decimals = 2 if factor < 10 else 1 if factor < 100 else 0  # three significant digits, at least
    return f"{factor:,.{decimals}f}x"


def format_ratio_estimate(value: float, words: tuple[str, str] = TIME_WORDS) -> str:
    """The time ratio new/old without its interval: 0.72 -> '1.39x faster', 1.22 -> '1.22x slower'
    (``words``: what under 1 and over 1 say)."""
    if not math.isfinite(value) or value <= 0:
        return "?"
    faster = value < 1
    return f"{format_times_factor(1 / value if faster else value)} {words[0] if faster else words[1]}"


def format_ratio(value: float, low: float, high: float, words: tuple[str, str] = TIME_WORDS) -> str:
    """The time ratio new/old as people read it: 0.72 [0.70, 0.74] -> '1.39x faster [1.35x, 1.43x]',
    1.22 [1.18, 1.26] -> '1.22x slower [1.18x, 1.26x]'. The interval is in the direction of the
    estimate (for 'faster', the speedups the interval allows: 1/high to 1/low), so a bound under
    1x means the other direction is not excluded. '?' when there is no ratio."""
    text = format_ratio_estimate(value, words)
    if text == "?":
        return text
    faster = value < 1
    bounds = (high, low) if faster else (low, high)
    if not all(math.isfinite(b) and b > 0 for b in bounds):
        return f"{text} [no interval]"
    near, far = (1 / b if faster else b for b in bounds)
    return f"{text} [{format_times_factor(near)}, {format_times_factor(far)}]"


def format_count(value: float | None) -> str:
    """A count per call: '1,234,567' from 1,000 up, else 3 significant digits ('0.0123', '12.5');
    '' for none."""
    return "" if value is None else f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def format_bytes_range(value: float, low: float, high: float) -> str:
    """A memory figure with its range: ``48.9 KiB [48.9 KiB, 49 KiB]``."""
    return f"{format_bytes(value)} [{format_bytes(low)}, {format_bytes(high)}]"


def format_bytes(value: float) -> str:
    """Memory in binary units with 3 significant digits: ``1.21 KiB``, ``48 B``."""
    for scale, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.3g} B" if abs(value) < 1000 else f"{value:,.0f} B"  # 1000-1023: not '1e+03 B'
