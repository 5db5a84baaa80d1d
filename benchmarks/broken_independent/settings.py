"""Independent corpus: a port setting read from text, raising the application's SettingError
(a ValueError) on bad input; callers catch SettingError by name."""

import perflab


class SettingError(ValueError):
    """A setting that cannot be used."""


class PortSettingError(SettingError):
    """A port setting that cannot be used."""


bench = perflab.Benchmark("settings", description="A port number from a setting's text")


@bench.case
def HTTP():
    return "8080"


@bench.case
def TLS():
    return "443"


@bench.contender(reference=True)
def checked(text):
    """int(), range check, SettingError for both"""
    try:
        port = int(text)
    except ValueError:
        raise SettingError(f"not a port: {text!r}") from None
    if not 0 < port < 65536:
        raise SettingError(f"port out of range: {port}")
    return port


@bench.contender
def int_error_escapes(text):
    """the range check raises SettingError, but int()'s own ValueError goes through"""
    port = int(text)
    if not 0 < port < 65536:
        raise SettingError(f"port out of range: {port}")
    return port


@bench.contender
def plain_value_error(text):
    """raises the base class: an except SettingError no longer catches it"""
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"not a port: {text!r}")
    return int(text)


@bench.contender
def narrower(text):
    """control: raises PortSettingError, which every handler of SettingError catches"""
    try:
        port = int(text)
    except ValueError:
        raise PortSettingError(f"not a port: {text!r}") from None
    if port <= 0 or port >= 65536:
        raise PortSettingError(f"port out of range: {port}")
    return port
