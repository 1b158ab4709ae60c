"""When a refused request is sent again, and how long the client waits first."""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass
from typing import Callable, Mapping, Optional

from .errors import TollgateError


@dataclass(frozen=True)
class RetryAttempt:
    """What ``RetryPolicy.on_retry`` is told before the client waits and sends a request again."""

    method: str
    path: str
    #: 1 for the first retry.
    attempt: int
    #: Seconds the client waits before sending it again.
    delay: float
    #: The refusal: a RateLimitedError (429) or a ServiceUnavailableError (503).
    error: TollgateError


@dataclass(frozen=True)
class RetryPolicy:
    """Retries of 429 and 503 answers, honouring the server's Retry-After.

    A 429 is always retried: the server refused before doing anything (a tenant's runs per minute, the
    open streams of a token). A 503 is retried only when sending the request again cannot do its work
    twice: GET and DELETE, requests with an Idempotency-Key (``runs.create`` and ``ask`` always send
    one), and ``runs.resume`` (a run is resumed once). The wait is the answer's Retry-After (seconds or an
    HTTP date), else its ``details["retryAfterMs"]``, else an exponential backoff from ``backoff_initial``.
    A wait longer than ``max_delay`` is not waited for: the error is raised at once, its ``retry_after``
    saying how long the server asked for.
    """

    #: Retries after the first attempt; 0 turns retries off.
    max_retries: int = 3
    #: The longest wait (seconds) the client honours; a longer Retry-After raises instead.
    max_delay: float = 60.0
    #: The first backoff (seconds) when the answer says nothing of when to come back; doubled each time.
    backoff_initial: float = 0.5
    #: Called before each wait (for logs or metrics).
    on_retry: Optional[Callable[[RetryAttempt], None]] = None

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("RetryPolicy.max_retries must be 0 or more")
        if self.max_delay < 0 or self.backoff_initial < 0:
            raise ValueError("RetryPolicy.max_delay and backoff_initial must be 0 or more")


#: A policy that never retries.
NO_RETRIES = RetryPolicy(max_retries=0)


def retry_after_seconds(headers: Mapping[str, str], details: Mapping[str, object]) -> Optional[float]:
    """How long the answer asks the caller to wait: Retry-After (seconds or a date), else retryAfterMs."""
    header = headers.get("retry-after")
    if header:
        header = header.strip()
        if header.isdigit():
            return float(header)
        try:
            when = email.utils.parsedate_to_datetime(header)
        except (TypeError, ValueError):
            when = None
        if when is not None:
            return max(0.0, when.timestamp() - time.time())
    milliseconds = details.get("retryAfterMs")
    if isinstance(milliseconds, (int, float)) and not isinstance(milliseconds, bool):
        return max(0.0, float(milliseconds) / 1000)
    return None
