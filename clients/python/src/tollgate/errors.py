"""Every error the client raises: a TollgateError subclass chosen by the answer's HTTP status, or by its
code where the code has a class of its own under that status's (InvalidRequestError under the 422's).

The API answers errors as ``{"error": {"code", "message", "details"?}}`` with a stable ``TG_`` code
(docs/ERRORS.md lists them). Branch on the class or on ``code``, never on ``message``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Type


@dataclass(frozen=True)
class FieldIssue:
    """One offending field of a 400 or 422: a dotted path (relative to ``details["in"]``) and why."""

    path: str
    message: str


class TollgateError(Exception):
    """The base of every error of this package.

    ``code`` is the answer's ``TG_`` code (``None`` when the answer did not come from Tollgate, such as a
    proxy's HTML page, or when no answer came at all); ``status`` the HTTP status (``None`` without an
    answer); ``details`` the envelope's details (``{}`` when it had none); ``request_id`` the
    ``x-request-id`` the server logged the request under.
    """

    def __init__(
        self,
        message: str,
        *,
        code: Optional[str] = None,
        status: Optional[int] = None,
        details: Optional[Mapping[str, Any]] = None,
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.details: Dict[str, Any] = dict(details or {})
        self.request_id = request_id
        self.retry_after = retry_after

    @property
    def issues(self) -> List[FieldIssue]:
        """The offending fields a 400 or 422 names (``details["issues"]``), else an empty list."""
        raw = self.details.get("issues")
        if not isinstance(raw, list):
            return []
        return [
            FieldIssue(path=str(issue.get("path", "")), message=str(issue.get("message", "")))
            for issue in raw
            if isinstance(issue, dict)
        ]

    def __str__(self) -> str:
        where = " ".join(part for part in (self.code, str(self.status) if self.status else None) if part)
        return f"{where}: {self.message}" if where else self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status!r}, message={self.message!r})"


class BadRequestError(TollgateError):
    """400: the request could not be read (malformed JSON, a bad cursor, bad percent-encoding)."""


class AuthenticationError(TollgateError):
    """401 TG_UNAUTHORIZED: no valid bearer token."""


class PermissionDeniedError(TollgateError):
    """403: the token lacks the route's role, or names another tenant (TG_FORBIDDEN, TG_LINK_INVALID)."""


class NotFoundError(TollgateError):
    """404: no such run, approval, schedule, thread, call or route in the caller's tenant."""


class RequestTimeoutError(TollgateError):
    """408 TG_REQUEST_TIMEOUT: the request did not all arrive within the server's request timeout."""


class ConflictError(TollgateError):
    """409: too late (a finished run, a decided approval), a reused Idempotency-Key, a stale input..."""


@dataclass(frozen=True)
class RepeatedCall:
    """A call a refused rerun or fork would have run again: its id in the run, and its tool."""

    call_id: str
    tool_name: str


class RerunRepeatsEffectsError(ConflictError):
    """409 TG_RERUN_REPEATS_EFFECTS: a rerun or fork would run again calls of tools not declared read-only
    that the run executed (``calls``, ``tool_names``); nothing was created. Send ``repeat_effects=True``
    to run them again, or resume the run instead.
    """

    @property
    def calls(self) -> List[RepeatedCall]:
        """The calls it would run again (``details["calls"]``)."""
        raw = self.details.get("calls")
        if not isinstance(raw, list):
            return []
        return [
            RepeatedCall(call_id=str(call.get("callId", "")), tool_name=str(call.get("toolName", "")))
            for call in raw
            if isinstance(call, dict)
        ]

    @property
    def tool_names(self) -> List[str]:
        """Their tools, each once (``details["toolNames"]``)."""
        raw = self.details.get("toolNames")
        return [str(name) for name in raw] if isinstance(raw, list) else []


class RunNotResumableError(ConflictError):
    """409 TG_RUN_NOT_RESUMABLE: ``runs.resume`` of a run that cannot be resumed; nothing was created.

    ``reason`` says why: ``completed`` (rerun it instead), ``unfinished``, or ``call-in-flight`` (a call
    its ending cut may still run, named in ``details["calls"]``: try again once it ended).
    """

    @property
    def reason(self) -> Optional[str]:
        raw = self.details.get("reason")
        return raw if isinstance(raw, str) else None


class GoneError(TollgateError):
    """410 TG_LINK_EXPIRED: an approval link past its expiry."""


class PayloadTooLargeError(TollgateError):
    """413 TG_PAYLOAD_TOO_LARGE: the body or the run's input is over the server's limit."""


class UnprocessableEntityError(TollgateError):
    """422: a field failed its schema, an unknown tool, an invalid edit or fork input, a limit reached."""


class InvalidRequestError(UnprocessableEntityError):
    """422 TG_INVALID_REQUEST: ``issues`` names each field that failed, ``details["in"]`` where."""


class RateLimitedError(TollgateError):
    """429 TG_RATE_LIMITED: ``retry_after`` is the seconds the server asked to wait (Retry-After)."""


class HeadersTooLargeError(TollgateError):
    """431 TG_HEADERS_TOO_LARGE: the request's headers are over 16 KiB."""


class ServerError(TollgateError):
    """A 5xx answer."""


class InternalServerError(ServerError):
    """500: a fault of the server's; ``details["requestId"]`` finds it in the server's log."""


class ServiceUnavailableError(ServerError):
    """503: Redis could not serve the request (TG_REDIS_UNAVAILABLE), or TG_RUN_OUTCOME_UNKNOWN."""


class GatewayTimeoutError(ServerError):
    """504 TG_WAIT_TIMEOUT, or a proxy's timeout."""


class TollgateConnectionError(TollgateError):
    """No answer: the server could not be reached, or the connection broke (a stream past its retries)."""


class WaitTimeoutError(TollgateError):
    """``runs.wait`` reached its timeout before the run finished (code TG_WAIT_TIMEOUT, no status)."""


class ResponseShapeError(TollgateError):
    """An answer that is not what the API documents (not JSON, or a required field missing)."""


_by_status: Dict[int, Type[TollgateError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    408: RequestTimeoutError,
    409: ConflictError,
    410: GoneError,
    413: PayloadTooLargeError,
    422: UnprocessableEntityError,
    429: RateLimitedError,
    431: HeadersTooLargeError,
    500: InternalServerError,
    503: ServiceUnavailableError,
    504: GatewayTimeoutError,
}

_by_code: Dict[str, Type[TollgateError]] = {
    "TG_INVALID_REQUEST": InvalidRequestError,
    "TG_RUN_NOT_RESUMABLE": RunNotResumableError,
    "TG_RERUN_REPEATS_EFFECTS": RerunRepeatsEffectsError,
}


def error_class_for(status: int, code: Optional[str]) -> Type[TollgateError]:
    """The class of an error answer: the code's own class when one is of this status, else the status's."""
    by_status = _by_status.get(status) or (ServerError if status >= 500 else TollgateError)
    by_code = _by_code.get(code or "")
    return by_code if by_code is not None and issubclass(by_code, by_status) else by_status
