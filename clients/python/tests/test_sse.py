"""The event stream reader, on the format's own cases."""

from __future__ import annotations

import io
import unittest

from tollgate.sse import ServerSentEvent, read_events


def events_of(raw: bytes):
    return list(read_events(io.BufferedReader(io.BytesIO(raw))))


class ServerSentEventsTest(unittest.TestCase):
    def test_events_with_ids_types_comments_and_lines_of_data(self) -> None:
        raw = (
            b": connected\n\n"
            b'id: 1-0\nevent: run-queued\ndata: {"a":1}\n\n'
            b": heartbeat\n\n"
            b"event: text-delta\r\ndata: first\r\ndata: second\r\n\r\n"
            b"id: 2-0\ndata:no space\n\n"
        )
        self.assertEqual(
            events_of(raw),
            [
                ServerSentEvent(id="1-0", event="run-queued", data='{"a":1}'),
                # No id of its own: the last id seen, as the format says.
                ServerSentEvent(id="1-0", event="text-delta", data="first\nsecond"),
                ServerSentEvent(id="2-0", event="message", data="no space"),
            ],
        )

    def test_an_event_the_stream_ends_in_the_middle_of_is_dropped(self) -> None:
        self.assertEqual(
            events_of(b"id: 1-0\ndata: whole\n\nid: 2-0\ndata: cut"),
            [ServerSentEvent("1-0", "message", "whole")],
        )

    def test_a_character_split_across_reads_is_read_whole(self) -> None:
        class Trickle(io.RawIOBase):
            """Hands out one byte per read, so a two-byte character arrives in two reads."""

            def __init__(self, data: bytes) -> None:
                self.data = data

            def readable(self) -> bool:
                return True

            def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
                if not self.data:
                    return 0
                buffer[0] = self.data[0]
                self.data = self.data[1:]
                return 1

        stream = io.BufferedReader(Trickle("data: d\u00e9j\u00e0 vu\n\n".encode("utf-8")), buffer_size=1)
        self.assertEqual([event.data for event in read_events(stream)], ["d\u00e9j\u00e0 vu"])


if __name__ == "__main__":
    unittest.main()
