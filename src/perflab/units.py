"""Human units for times and throughputs."""

from __future__ import annotations

import math

_TIME_UNITS = ((1e-9, "ns"), (1e-6, "us"), (1e-3, "ms"), (1.0, "s"))
_RATE_PREFIXES = ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def time_unit(seconds: float) -> tuple[float, str]:
    """The scale and name that show ``seconds`` with 1 to 3 digits before the point."""
    for scale, name in reversed(_TIME_UNITS):
        if abs(seconds) >= scale:
            return scale, name
    return _TIME_UNITS[0]


def format_time(seconds: float, scale_of: float | None = None) -> str:
    scale, name = time_unit(seconds if scale_of is None else scale_of)
    return f"{seconds / scale:.3g} {name}" if math.isfinite(seconds) else "?"


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


def format_factor(factor: float) -> str:
    """A speedup or ratio with three significant digits, in plain digits: 0.5 -> '0.5', 4530.2 ->
    '4,530' (not '4.53e+03')."""
    if not math.isfinite(factor):
        return "?"
    return f"{factor:,.0f}" if abs(factor) >= 1000 else f"{factor:.3g}"


def format_percent(fraction: float) -> str:
    """A fraction as a percentage with the digits it needs: 0.2 -> '20%', 0.0001 -> '0.01%'."""
    if not math.isfinite(fraction):
        return "?"
    percent = fraction * 100
    return f"{percent:.1f}%" if abs(percent) >= 0.1 else f"{percent:.2g}%"


def format_speedup(ratio: float, bare: bool = False) -> str:
    """A time ratio (side / reference) as the speedup factor the terminal prints: 0.071 -> 'x14.1'."""
    if not math.isfinite(ratio) or ratio <= 0:
        return "?"
    factor = format_factor(1 / ratio)
    return factor if bare else f"x{factor}"


def format_speedup_interval(value: float, low: float, high: float) -> str:
    """'x14.1 [13.9–14.3]': the speedup with its 95% interval (a ratio's high end is the speedup's low end)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{format_speedup(value)} [no interval]"
    return f"{format_speedup(value)} [{format_speedup(high, True)}–{format_speedup(low, True)}]"


def format_change(ratio: float) -> str:
    """A ratio of levels as a signed percentage: 1.099 -> '+9.9%'."""
    return f"{ratio - 1:+.1%}" if math.isfinite(ratio) else "?"
