"""``client.runs``: enqueue, find, wait for, follow, cancel, resume, re-run and fork runs."""

from __future__ import annotations

import time
import uuid
from datetime import datetime
from typing import Any, Dict, Iterator, List, Mapping, Optional, Union

from .decode import extra_fields, from_json
from .request_models import (
    ForkRequest,
    RerunRequest,
    RunRequest,
    StructuredOutputLike,
    UserContext,
    UserContextLike,
)
from .run_models import (
    CancelResult,
    EnqueuedRun,
    ForkResult,
    RerunResult,
    ResumeResult,
    Run,
    RunEvent,
    RunPage,
    RunStatus,
    RunSummary,
)
from .run_stream import StreamSettings, follow_run
from .transport import Transport, path_of

#: An instant for a filter: a datetime (a naive one is local time, as Python reads it), epoch ms, or ISO 8601.
Instant = Union[datetime, int, str]


def instant_of(value: Optional[Instant]) -> Optional[str]:
    """A filter's instant as the API reads it: epoch milliseconds, or the ISO 8601 text given."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return str(int(value.timestamp() * 1000))
    return str(value)


def user_context_of(
    user_id: Optional[str], user_context: Optional[UserContextLike]
) -> Optional[UserContextLike]:
    """``user_id`` is a shorthand for ``UserContext(user_id)``; naming both is a mistake."""
    if user_id is not None and user_context is not None:
        raise ValueError("pass user_id or user_context, not both")
    return UserContext(user_id=user_id) if user_id is not None else user_context


def run_request_of(input: str, fields: Dict[str, Any], extra: Mapping[str, Any]) -> RunRequest:
    """A run request from a method's keyword arguments; the ones it does not name become body fields."""
    fields = dict(fields)
    fields["user_context"] = user_context_of(fields.pop("user_id"), fields["user_context"])
    return RunRequest(input=input, **fields, extra=extra_fields(extra))


class Runs:
    """The runs of the token's tenant."""

    def __init__(self, transport: Transport, stream_settings: StreamSettings) -> None:
        self._transport = transport
        self._stream_settings = stream_settings

    def create(
        self,
        input: str,
        *,
        user_id: Optional[str] = None,
        user_context: Optional[UserContextLike] = None,
        thread_id: Optional[str] = None,
        tools: Optional[List[str]] = None,
        additional_tools: Optional[List[str]] = None,
        max_steps: Optional[int] = None,
        timeout_ms: Optional[int] = None,
        max_total_tokens: Optional[int] = None,
        max_tool_calls: Optional[int] = None,
        metadata: Optional[Dict[str, Any]] = None,
        instructions: Optional[str] = None,
        tenant: Optional[str] = None,
        model: Optional[str] = None,
        output: Optional[StructuredOutputLike] = None,
        idempotency_key: Optional[str] = None,
        **extra: Any,
    ) -> EnqueuedRun:
        """Enqueues a run (``POST /v1/runs``); once this returns, the run is never lost.

        ``idempotency_key``: a request sent again with the same key returns the same run
        (``created=False``). Without one the client makes one up for this call, so that its own retries
        (a 503) never enqueue the run twice. Keyword arguments this method does not name are sent as
        body fields, in camelCase (``new_field=1`` is ``newField``).
        """
        # The run request's fields are this method's keyword arguments, named alike: one list to keep.
        fields = dict(locals())
        for name in ("self", "input", "idempotency_key", "extra"):
            fields.pop(name)
        request = run_request_of(input, fields, extra)
        key = idempotency_key if idempotency_key is not None else f"tollgate-python-{uuid.uuid4()}"
        answer = self._transport.request_json(
            "POST", "/v1/runs", body=request, headers={"idempotency-key": key}
        )
        return from_json(EnqueuedRun, answer)

    def get(self, run_id: str) -> Run:
        """The run: status, pending approvals, progress while unfinished, its response once finished."""
        return from_json(Run, self._transport.request_json("GET", path_of("v1", "runs", run_id)))

    def list(
        self,
        *,
        status: Optional[RunStatus] = None,
        user_id: Optional[str] = None,
        thread_id: Optional[str] = None,
        tool: Optional[str] = None,
        created_by: Optional[str] = None,
        schedule_id: Optional[str] = None,
        since: Optional[Instant] = None,
        until: Optional[Instant] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        tenant: Optional[str] = None,
    ) -> RunPage:
        """One page of the tenant's runs, newest first, every filter exact; see ``iterate`` for all pages."""
        query = {
            "status": status,
            "userId": user_id,
            "threadId": thread_id,
            "tool": tool,
            "createdBy": created_by,
            "scheduleId": schedule_id,
            "since": instant_of(since),
            "until": instant_of(until),
            "limit": limit,
            "cursor": cursor,
            "tenant": tenant,
        }
        return from_json(RunPage, self._transport.request_json("GET", "/v1/runs", query=query))

    def iterate(self, *, page_size: Optional[int] = None, **filters: Any) -> Iterator[RunSummary]:
        """Every run the filters of ``list`` match, newest first, following the cursors page by page."""
        cursor: Optional[str] = None
        while True:
            page = self.list(limit=page_size, cursor=cursor, **filters)
            yield from page.runs
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    def events(
        self,
        run_id: str,
        *,
        last_event_id: Optional[str] = None,
        settings: Optional[StreamSettings] = None,
    ) -> Iterator[RunEvent]:
        """The run's events (Server-Sent Events) after ``last_event_id`` (else all), to ``run-finished``.

        A connection that breaks is opened again with the last id seen (Last-Event-ID): no event is
        lost or repeated. Keep an event's ``id`` to resume in another process later.
        """
        return follow_run(
            self._transport,
            run_id,
            last_event_id=last_event_id,
            settings=settings or self._stream_settings,
            is_finished=lambda: self.get(run_id).finished,
        )

    def wait(self, run_id: str, *, timeout: Optional[float] = None) -> Run:
        """Waits until the run finishes (following its events, not polling) and returns it.

        ``timeout`` in seconds; past it WaitTimeoutError (code TG_WAIT_TIMEOUT). The run goes on.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        run = self.get(run_id)
        if run.finished:
            return run
        for _event in follow_run(
            self._transport,
            run_id,
            last_event_id=None,
            settings=self._stream_settings,
            is_finished=lambda: self.get(run_id).finished,
            deadline=deadline,
        ):
            pass
        return self.get(run_id)

    def cancel(self, run_id: str) -> CancelResult:
        """Cancels the run (ConflictError TG_RUN_FINISHED once it finished), and its parked calls."""
        answer = self._transport.request_json("POST", path_of("v1", "runs", run_id, "cancel"))
        return from_json(CancelResult, answer)

    def resume(self, run_id: str) -> ResumeResult:
        """Continues a failed, timed-out or cancelled run as a new run (``resume_of``): what it completed
        (model replies, tool results, human decisions) is taken over, never run again; the step that
        failed is tried again.

        A run is resumed once: asking again returns the same resume (``created=False``), so a 503 is
        retried as for a GET. ConflictError TG_RUN_NOT_RESUMABLE (RunNotResumableError) for a completed
        run (rerun it instead), an unfinished one, or while a call it cut may still run.
        """
        answer = self._transport.request_json(
            "POST", path_of("v1", "runs", run_id, "resume"), repeatable=True
        )
        return from_json(ResumeResult, answer)

    def rerun(
        self,
        run_id: str,
        *,
        input: Optional[str] = None,
        user_id: Optional[str] = None,
        user_context: Optional[UserContextLike] = None,
        model: Optional[str] = None,
        repeat_effects: Optional[bool] = None,
        **extra: Any,
    ) -> RerunResult:
        """Queues the run's request again, with another input, user or model if given.

        A rerun runs every call again: when the run executed calls of tools not declared read-only it is
        refused (RerunRepeatsEffectsError, naming them; nothing created) unless ``repeat_effects=True``.
        To finish a failed run without repeating what it did, ``resume`` it.
        """
        request = RerunRequest(
            input=input,
            user_context=user_context_of(user_id, user_context),
            model=model,
            repeat_effects=repeat_effects,
            extra=extra_fields(extra),
        )
        answer = self._transport.request_json("POST", path_of("v1", "runs", run_id, "rerun"), body=request)
        return from_json(RerunResult, answer)

    def fork(
        self,
        run_id: str,
        from_call_id: str,
        *,
        input: Optional[Any] = None,
        repeat_effects: Optional[bool] = None,
        **extra: Any,
    ) -> ForkResult:
        """Queues a run that starts from the run's state just before ``from_call_id``, that call's input
        replaced by ``input`` when given (checked by the tool's schema: TG_FORK_INVALID_INPUT).

        The fork runs that call and the ones after it again: when the run executed any of them with tools
        not declared read-only it is refused (RerunRepeatsEffectsError) unless ``repeat_effects=True``.
        """
        request = ForkRequest(
            from_call_id=from_call_id, input=input, repeat_effects=repeat_effects, extra=extra_fields(extra)
        )
        answer = self._transport.request_json("POST", path_of("v1", "runs", run_id, "fork"), body=request)
        return from_json(ForkResult, answer)
