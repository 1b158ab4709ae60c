"""A reader of Server-Sent Events (the WHATWG event stream format), line by line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Iterator, List, Optional


@dataclass(frozen=True)
class ServerSentEvent:
    """One dispatched event: its ``id:`` (the last one seen, as the format says), ``event:`` and ``data:``."""

    id: Optional[str]
    event: str
    data: str


class ServerSentEventParser:
    """Turns lines into events: a blank line dispatches, ``:`` lines are comments (heartbeats)."""

    def __init__(self) -> None:
        self._last_id: Optional[str] = None
        self._event = ""
        self._data: List[str] = []

    def feed(self, line: str) -> Optional[ServerSentEvent]:
        """Reads one line (without its end); returns the event a blank line completes, else None."""
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id" and "\0" not in value:
            self._last_id = value
        return None

    def _dispatch(self) -> Optional[ServerSentEvent]:
        if not self._data:
            self._event = ""
            return None
        event = ServerSentEvent(id=self._last_id, event=self._event or "message", data="\n".join(self._data))
        self._event = ""
        self._data = []
        return event


def read_lines(stream: IO[bytes]) -> Iterator[str]:
    """The lines of a byte stream as they arrive, without their ends.

    Reads with ``read1`` (what is there, up to a limit), not ``readline``: an HTTP response's ``readline``
    takes a chunked body cut mid-stream for its end, where ``read1`` raises IncompleteRead, so that a
    broken stream is told from one the server ended.
    """
    read = getattr(stream, "read1", stream.read)
    pending = b""
    while True:
        piece = read(65536)
        if not piece:
            return
        pending += piece
        *lines, pending = pending.split(b"\n")
        for line in lines:
            yield line.rstrip(b"\r").decode("utf-8")


def read_events(stream: IO[bytes]) -> Iterator[ServerSentEvent]:
    """The events of a byte stream, as they arrive; ends with the stream (an unfinished event is dropped)."""
    parser = ServerSentEventParser()
    for line in read_lines(stream):
        event = parser.feed(line)
        if event is not None:
            yield event
