"""The worker's side of the event stream: one JSON line per event (perflab.bench.protocol), flushed
at once, so that a worker killed half-way has handed over everything it measured. Standard library only."""

from __future__ import annotations

import json

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: see perflab.bench's docstring
if TYPE_CHECKING:
    from typing import TextIO

    from perflab.bench.protocol import Event


class EventStream:
    def __init__(self, stream: TextIO):
        self.stream = stream

    def send(self, event: Event) -> None:
        self.stream.write(json.dumps(event) + "\n")
        self.stream.flush()
