"""Following a run's events: one stream across reconnections, resumed with Last-Event-ID."""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

from .decode import from_json
from .errors import ResponseShapeError, TollgateConnectionError, WaitTimeoutError
from .run_models import RunEvent
from .sse import read_events
from .transport import Transport, path_of


@dataclass(frozen=True)
class StreamSettings:
    """How a run's stream is followed."""

    #: Seconds without a byte before the connection counts as lost (the server writes a heartbeat every 15 s).
    read_timeout: float = 60.0
    #: Connections in a row that may break (or end before ``run-finished``) before TollgateConnectionError.
    max_reconnects: int = 5
    #: The first pause (seconds) before a reconnection; doubled each time, at most 5 s.
    reconnect_delay: float = 0.25


def follow_run(
    transport: Transport,
    run_id: str,
    *,
    last_event_id: Optional[str],
    settings: StreamSettings,
    is_finished: Callable[[], bool],
    deadline: Optional[float] = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[RunEvent]:
    """The run's events after ``last_event_id`` (all of them without one), until ``run-finished``.

    A connection that breaks, or stays silent for ``read_timeout``, is opened again with the last id
    seen as Last-Event-ID, so no event is lost or repeated: at once when it brought events, else after a
    pause, at most ``max_reconnects`` times in a row. A stream the server ends before ``run-finished`` (a
    server shutting down closes its streams) is opened again too, unless it sent nothing and the run has
    finished (``is_finished``): a resume from its last event has nothing more to send. Past ``deadline``
    (a ``time.monotonic()`` value) WaitTimeoutError is raised.
    """
    path = path_of("v1", "runs", run_id, "events")
    last = last_event_id
    failures = 0
    while True:
        timeout = settings.read_timeout
        if deadline is not None:
            remaining = deadline - clock()
            if remaining <= 0:
                raise WaitTimeoutError(f"run {run_id} did not finish in time", code="TG_WAIT_TIMEOUT")
            timeout = min(timeout, remaining)
        headers = {"last-event-id": last} if last else {}
        broken: Optional[Exception] = None
        received = 0
        try:
            response = transport.send(
                "GET", path, headers=headers, timeout=timeout, accept="text/event-stream"
            )
            with response:
                for message in read_events(response):
                    event = _event_of(message.data, run_id)
                    last = message.id or event.id
                    received += 1
                    yield event
                    if event.type == "run-finished":
                        return
        except (OSError, http.client.HTTPException, TollgateConnectionError) as failure:
            broken = failure
        # Ended before run-finished: nothing more to come only when the run finished and this connection,
        # opened after the last event seen, had nothing to send.
        if broken is None and received == 0 and is_finished():
            return
        if deadline is not None and clock() >= deadline:
            raise WaitTimeoutError(f"run {run_id} did not finish in time", code="TG_WAIT_TIMEOUT") from broken
        if received > 0:
            failures = 0
            continue
        failures += 1
        if failures > settings.max_reconnects:
            reason = broken or "the server ended the stream before run-finished"
            raise TollgateConnectionError(f"run {run_id}'s events: {reason}") from broken
        sleep(min(settings.reconnect_delay * 2 ** (failures - 1), 5.0))


def _event_of(data: str, run_id: str) -> RunEvent:
    try:
        decoded = json.loads(data)
    except ValueError as failure:
        raise ResponseShapeError(f"run {run_id}'s events: a data line is not JSON") from failure
    return from_json(RunEvent, decoded)
