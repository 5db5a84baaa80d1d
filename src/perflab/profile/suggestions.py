"""Known faster alternatives for hot frames of a profile: candidates for perflab to prove, never verdicts.

Each entry of ``TABLE`` says which frames it is about (patterns on ``FILE NAME`` of a frame, its file
normalized as profiles show it: ``<stdlib>/json/encoder.py *``, ``<stdlib>/uuid.py uuid4``), what to try
instead, the built-in case study that measured it, and, where the alternative is a drop-in for one
function, ``contenders``: the source of contenders for a benchmark written by ``perflab isolate
--function FUNCTION --suggest``. A contender's source defines the set-up ``NAME()`` of a
``setup=True`` contender: it imports the package and builds what it needs (an encoder) once per
worker, outside the timed region, so that a missing package is reported as "skipped: not
installed" (perflab.bench.optional), and returns ``call_all(calls)``, which takes the recorded
calls (``[(args, kwargs), ...]``) and returns the outputs. Keyword arguments an alternative has no
equivalent for raise TypeError: that contender then fails on that case, visibly.

To add an alternative: add a Suggestion (and, for a drop-in, a contender) and a line to the table
in docs/isolate.md. The suggestion is only a candidate: the proof is ``perflab run`` on the
isolated benchmark (equivalence first, then timing).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass, field

from perflab.profile.frames import parse_frame
from perflab.profile.shares import FrameShare


@dataclass(frozen=True)
class Suggestion:
    topic: str  # what the hot frames are: "stdlib json encoding"
    frames: tuple[str, ...]  # fnmatch patterns on "FILE NAME" of a frame, its file normalized
    alternatives: str  # what to try, in a few words
    proven_by: str  # the built-in case study: perflab run NAME
    function: str | None = None  # module:qualname the contenders stand in for (isolate --function)
    contenders: dict[str, str] = field(default_factory=dict)  # name -> source of NAME(calls)


_ORJSON_DUMPS = """
def orjson_dumps():
    import orjson

    dumps, sort_keys, indent_2 = orjson.dumps, orjson.OPT_SORT_KEYS, orjson.OPT_INDENT_2

    def call_all(calls):
        outputs = []
        for args, kwargs in calls:
            kwargs = dict(kwargs)  # the recorded call is left as it is
            option = sort_keys if kwargs.pop("sort_keys", False) else 0
            indent = kwargs.pop("indent", None)
            if indent is not None:
                if indent != 2:
                    raise TypeError(f"orjson indents by 2 only, not {indent!r}")
                option |= indent_2
            kwargs.pop("ensure_ascii", None)  # orjson writes UTF-8; the JSON comparison accepts it
            if kwargs:
                raise TypeError(f"orjson.dumps has no equivalent of {sorted(kwargs)}")
            outputs.append(dumps(*args, option=option))
        return outputs

    return call_all
"""
_MSGSPEC_DUMPS = """
def msgspec_dumps():
    import msgspec

    encoder, encode = msgspec.json.Encoder(), msgspec.json.encode

    def call_all(calls):
        outputs = []
        for args, kwargs in calls:
            kwargs = dict(kwargs)  # the recorded call is left as it is
            order = "sorted" if kwargs.pop("sort_keys", False) else None
            kwargs.pop("ensure_ascii", None)
            if kwargs:
                raise TypeError(f"msgspec.json.encode has no equivalent of {sorted(kwargs)}")
            outputs.append(encode(*args, order=order) if order else encoder.encode(*args))
        return outputs

    return call_all
"""


def _strict_drop_in(name: str, module: str, setup: str, call: str) -> str:
    """A contender for a function whose alternative takes no keyword arguments at all."""
    return f"""
def {name}():
    import {module}

    {setup}

    def call_all(calls):
        outputs = []
        for args, kwargs in calls:
            if kwargs:
                raise TypeError(f"{name} has no equivalent of {{sorted(kwargs)}}")
            outputs.append({call})
        return outputs

    return call_all
"""


_ORJSON_LOADS = _strict_drop_in("orjson_loads", "orjson", "loads = orjson.loads", "loads(*args)")
_MSGSPEC_LOADS = _strict_drop_in(
    "msgspec_loads", "msgspec", "decoder = msgspec.json.Decoder()", "decoder.decode(*args)"
)

TABLE: tuple[Suggestion, ...] = (
    Suggestion(
        "stdlib json encoding",
        ("<stdlib>/json/encoder.py *", "<stdlib>/json/__init__.py dump*"),
        "orjson or msgspec (C/Rust encoders, bytes out)",
        "json_dumps",
        "json:dumps",
        {"orjson_dumps": _ORJSON_DUMPS, "msgspec_dumps": _MSGSPEC_DUMPS},
    ),
    Suggestion(
        "stdlib json decoding",
        ("<stdlib>/json/decoder.py *", "<stdlib>/json/__init__.py load*"),
        "orjson.loads or msgspec.json.decode",
        "json_loads",
        "json:loads",
        {"orjson_loads": _ORJSON_LOADS, "msgspec_loads": _MSGSPEC_LOADS},
    ),
    Suggestion(
        "stdlib logging",
        ("<stdlib>/logging/* *",),
        "the documented switches (logging.logThreads/logProcesses/logMultiprocessing = False, "
        "logging._srcfile = None), or picologging",
        "logging_messages",
    ),
    Suggestion("pure-Python AES (pyaes)", ("<site-packages>/pyaes/* *",), "cryptography (OpenSSL)", "crypto_aes"),
    Suggestion(
        "uuid.uuid4",
        ("<stdlib>/uuid.py uuid4",),
        "uuid.UUID(int=random.getrandbits(128), version=4) where a CSPRNG is not required, or uuid-utils",
        "uuids",
    ),
    Suggestion("h11 HTTP/1.1 parsing", ("<site-packages>/h11/* *",), "httptools (llhttp)", "http_parse"),
)


@dataclass(frozen=True)
class Hit:
    suggestion: Suggestion
    share: float  # the largest total share among the matching frames
    frame: str  # that frame


def matches(suggestion: Suggestion, frame_label: str) -> bool:
    frame = parse_frame(frame_label)
    if frame.name == "<module>":  # importing the module is not using it
        return False
    return any(fnmatch.fnmatchcase(f"{frame.file} {frame.name}", pattern) for pattern in suggestion.frames)


def suggest(shares: Sequence[FrameShare], minimum: float = 0.02) -> list[Hit]:
    """The table's entries whose frames hold at least ``minimum`` of the samples (total share), hottest first."""
    hits: dict[str, Hit] = {}
    for share in shares:
        if share.total.value < minimum:
            continue
        for suggestion in TABLE:
            best = hits.get(suggestion.topic)
            if matches(suggestion, share.frame) and (best is None or share.total.value > best.share):
                hits[suggestion.topic] = Hit(suggestion, share.total.value, share.frame)
    return sorted(hits.values(), key=lambda hit: -hit.share)


def for_function(function: str) -> Suggestion | None:
    """The entry whose contenders stand in for ``module:qualname``, if any."""
    return next((s for s in TABLE if s.function == function), None)
