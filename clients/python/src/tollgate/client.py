"""``TollgateClient``: the HTTP API of one Tollgate deployment, with one token."""

from __future__ import annotations

import os
import uuid
from typing import Any, Dict, List, Optional

from .approvals import Approvals
from .decode import from_json
from .request_models import StructuredOutputLike, UserContextLike
from .retry import RetryPolicy
from .run_models import RunResponse
from .run_stream import StreamSettings
from .runs import Runs, run_request_of
from .schedules import Schedules
from .transport import Transport
from .version import __version__

#: The longest ``ask`` waits on a server with the default settings (its askMaxWaitMs), in ms.
DEFAULT_ASK_WAIT_MS = 120_000


class TollgateClient:
    """A client of Tollgate's HTTP API.

    ``base_url`` (``http://tollgate.internal:3000``) and ``token`` default to the environment's
    ``TOLLGATE_URL`` and ``TOLLGATE_TOKEN``, as for the ``tollgate`` CLI. ``timeout`` is the seconds a
    request may go without a byte of its answer (``ask`` waits longer: its own ``timeout_ms``);
    ``retry`` says which 429 and 503 answers are sent again and how long to wait; ``stream`` how
    event streams are followed.
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        token: Optional[str] = None,
        *,
        timeout: float = 30.0,
        retry: Optional[RetryPolicy] = None,
        stream: Optional[StreamSettings] = None,
    ) -> None:
        url = base_url or os.environ.get("TOLLGATE_URL")
        if not url:
            raise ValueError("TollgateClient needs base_url (or TOLLGATE_URL in the environment)")
        self._transport = Transport(
            url,
            token if token is not None else os.environ.get("TOLLGATE_TOKEN"),
            timeout=timeout,
            retry=retry or RetryPolicy(),
            user_agent=f"tollgate-python/{__version__}",
        )
        self.runs = Runs(self._transport, stream or StreamSettings())
        self.approvals = Approvals(self._transport)
        self.schedules = Schedules(self._transport)

    @property
    def base_url(self) -> str:
        return self._transport.base_url

    def ask(
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
    ) -> RunResponse:
        """Runs a request and waits for its response (``POST /v1/ask``), whatever its ``status``.

        ``timeout_ms`` is both the wait and the run's deadline (at most the server's askMaxWaitMs,
        120000 by default, which is also the default). A run past it ends ``timed_out``. Like
        ``runs.create``, an Idempotency-Key is sent (made up when not given), so a retry never runs it twice.
        """
        # The run request's fields are this method's keyword arguments, named alike (as for runs.create).
        fields = dict(locals())
        for name in ("self", "input", "idempotency_key", "extra"):
            fields.pop(name)
        request = run_request_of(input, fields, extra)
        key = idempotency_key if idempotency_key is not None else f"tollgate-python-{uuid.uuid4()}"
        # The answer comes when the run ends: wait past its deadline, with a margin for the response.
        wait_seconds = (timeout_ms if timeout_ms is not None else DEFAULT_ASK_WAIT_MS) / 1000 + 30
        answer = self._transport.request_json(
            "POST",
            "/v1/ask",
            body=request,
            headers={"idempotency-key": key},
            timeout=max(wait_seconds, self._transport.timeout),
        )
        return from_json(RunResponse, answer)
