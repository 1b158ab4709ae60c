"""``client.schedules``: run requests enqueued on a cron pattern or an interval."""

from __future__ import annotations

from typing import Any, Iterator, Literal, Mapping, Optional, Union

from .decode import extra_fields, from_json
from .request_models import RunRequest, ScheduleRequest
from .schedule_models import Schedule, ScheduleDeleted, SchedulePage
from .transport import Transport, path_of


class Schedules:
    """The schedules of the token's tenant. There is no update: pause, resume, or delete and create."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def create(
        self,
        request: Union[RunRequest, Mapping[str, Any], str],
        *,
        cron: Optional[str] = None,
        every_ms: Optional[int] = None,
        timezone: Optional[str] = None,
        name: Optional[str] = None,
        overlap: Optional[Literal["skip", "queue"]] = None,
        **extra: Any,
    ) -> Schedule:
        """Creates a schedule: each tick (``cron``, with ``timezone``; or every ``every_ms``) enqueues one
        run of ``request`` (a RunRequest, its JSON, or just the input). It is checked now, never at 3 a.m.:
        a request ``runs.create`` would refuse, a bad pattern, or a tenant's limits reached are 422."""
        run_request = RunRequest(input=request) if isinstance(request, str) else request
        body = ScheduleRequest(
            request=run_request,
            cron=cron,
            every_ms=every_ms,
            timezone=timezone,
            name=name,
            overlap=overlap,
            extra=extra_fields(extra),
        )
        return from_json(Schedule, self._transport.request_json("POST", "/v1/schedules", body=body))

    def list(
        self, *, limit: Optional[int] = None, cursor: Optional[str] = None, tenant: Optional[str] = None
    ) -> SchedulePage:
        """One page of schedules, newest first."""
        query = {"limit": limit, "cursor": cursor, "tenant": tenant}
        return from_json(SchedulePage, self._transport.request_json("GET", "/v1/schedules", query=query))

    def iterate(self, *, page_size: Optional[int] = None, tenant: Optional[str] = None) -> Iterator[Schedule]:
        """Every schedule, newest first, following the cursors page by page."""
        cursor: Optional[str] = None
        while True:
            page = self.list(limit=page_size, cursor=cursor, tenant=tenant)
            yield from page.schedules
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    def get(self, schedule_id: str) -> Schedule:
        """The schedule with its next tick, counters and recent ticks."""
        return from_json(
            Schedule, self._transport.request_json("GET", path_of("v1", "schedules", schedule_id))
        )

    def pause(self, schedule_id: str) -> Schedule:
        """No tick starts a run until it is resumed."""
        answer = self._transport.request_json("POST", path_of("v1", "schedules", schedule_id, "pause"))
        return from_json(Schedule, answer)

    def resume(self, schedule_id: str) -> Schedule:
        """Ticks start runs again (an ``every_ms`` schedule ticks at once)."""
        answer = self._transport.request_json("POST", path_of("v1", "schedules", schedule_id, "resume"))
        return from_json(Schedule, answer)

    def delete(self, schedule_id: str) -> ScheduleDeleted:
        """Deletes the schedule; the runs its ticks created stay."""
        answer = self._transport.request_json("DELETE", path_of("v1", "schedules", schedule_id))
        return from_json(ScheduleDeleted, answer)
