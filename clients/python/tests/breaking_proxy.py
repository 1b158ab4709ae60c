"""A TCP proxy that cuts its first connection after the first event it passes: a broken event stream."""

from __future__ import annotations

import socket
import threading
from typing import List, Tuple


class BreakingProxy:
    """Relays to ``upstream``; the first connection is closed once the first complete chunk holding an
    event (a ``data:`` line, then ``\\n\\n`` and the chunk's ``\\r\\n``) has reached the client.
    ``requests`` holds each connection's request head as it arrived."""

    def __init__(self, upstream: Tuple[str, int]) -> None:
        self._upstream = upstream
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.requests: List[str] = []
        self._connections = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                downstream, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                self._connections += 1
                breaks = self._connections == 1
            threading.Thread(target=self._relay, args=(downstream, breaks), daemon=True).start()

    def _relay(self, downstream: socket.socket, breaks: bool) -> None:
        upstream = socket.create_connection(self._upstream)
        head = b""
        while b"\r\n\r\n" not in head:
            piece = downstream.recv(65536)
            if not piece:
                break
            head += piece
        with self._lock:
            self.requests.append(head.decode("latin-1"))
        upstream.sendall(head)
        seen = b""
        try:
            while True:
                piece = upstream.recv(65536)
                if not piece:
                    break
                if breaks:
                    seen += piece
                    data = seen.find(b"\ndata: ")
                    end = seen.find(b"\n\n\r\n", data) if data >= 0 else -1
                    if end >= 0:
                        # Up to the end of that chunk, then the connection drops mid-stream.
                        downstream.sendall(piece[: len(piece) - (len(seen) - (end + 4))])
                        break
                downstream.sendall(piece)
        except OSError:
            pass
        finally:
            upstream.close()
            downstream.close()

    def last_event_ids(self) -> List[str]:
        """The Last-Event-ID header of each request, in order ("" for none)."""
        found = []
        for request in self.requests:
            value = ""
            for line in request.split("\r\n")[1:]:
                name, _, rest = line.partition(":")
                if name.strip().lower() == "last-event-id":
                    value = rest.strip()
            found.append(value)
        return found
