"""HTTP with the standard library: JSON bodies, the bearer token, error answers as exceptions, retries."""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, Mapping, Optional, cast
from urllib.parse import quote, urlencode

from .decode import to_json
from .errors import ResponseShapeError, TollgateConnectionError, TollgateError, error_class_for
from .retry import RetryAttempt, RetryPolicy, retry_after_seconds

#: Methods whose repetition does no work twice, so a 503 may be retried.
_repeatable_methods = frozenset(["GET", "HEAD", "DELETE"])


def path_of(*segments: str) -> str:
    """A path from segments, each percent-encoded whole (an id may hold ``/``)."""
    return "/" + "/".join(quote(segment, safe="") for segment in segments)


class Transport:
    """Sends requests to one API with one token; every error answer is raised as a TollgateError."""

    def __init__(
        self,
        base_url: str,
        token: Optional[str],
        *,
        timeout: float,
        retry: RetryPolicy,
        user_agent: str,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retry = retry
        self._token = token
        self._user_agent = user_agent
        self._sleep = sleep
        self._opener = urllib.request.build_opener()

    def request_json(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
        repeatable: bool = False,
    ) -> Any:
        """Sends a request and returns its JSON answer, decoded.

        ``repeatable``: sending it twice does its work once (a resume), so a 503 is retried whatever the
        method, as for a GET.
        """
        response = self.send(
            method, path, query=query, body=body, headers=headers, timeout=timeout, repeatable=repeatable
        )
        with response:
            try:
                raw = response.read()
            except (OSError, http.client.HTTPException) as failure:
                raise TollgateConnectionError(
                    f"{method} {path}: the answer broke off ({failure})"
                ) from failure
        try:
            return json.loads(raw.decode("utf-8"))
        except ValueError as failure:
            raise ResponseShapeError(
                f"{method} {path}: the answer is not JSON", status=response.status
            ) from failure

    def send(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
        accept: str = "application/json",
        repeatable: bool = False,
    ) -> http.client.HTTPResponse:
        """Sends a request and returns the open 2xx response; retries 429 and 503 as the policy says."""
        url = self.base_url + path
        parameters = {name: value for name, value in (query or {}).items() if value is not None}
        if parameters:
            url += "?" + urlencode(parameters)
        data = None if body is None else json.dumps(to_json(body)).encode("utf-8")
        all_headers = {"accept": accept, "user-agent": self._user_agent}
        if self._token:
            all_headers["authorization"] = f"Bearer {self._token}"
        if data is not None:
            all_headers["content-type"] = "application/json"
        all_headers.update({name.lower(): value for name, value in (headers or {}).items()})
        attempt = 0
        while True:
            request = urllib.request.Request(url, data=data, method=method, headers=all_headers)
            try:
                response = self._opener.open(request, timeout=self.timeout if timeout is None else timeout)
                return cast(http.client.HTTPResponse, response)
            except urllib.error.HTTPError as answer:
                error = _error_of(answer)
            except (OSError, http.client.HTTPException) as failure:
                reason = getattr(failure, "reason", failure)
                raise TollgateConnectionError(f"{method} {path}: {reason}") from failure
            delay = self._retry_delay(repeatable or _is_repeatable(method, all_headers), error, attempt)
            if delay is None:
                raise error
            attempt += 1
            if self.retry.on_retry is not None:
                self.retry.on_retry(
                    RetryAttempt(method=method, path=path, attempt=attempt, delay=delay, error=error)
                )
            self._sleep(delay)

    def _retry_delay(self, repeatable: bool, error: TollgateError, attempt: int) -> Optional[float]:
        """How long to wait before sending the request again, or None when it must not be sent again."""
        if attempt >= self.retry.max_retries:
            return None
        if error.status == 429:
            pass
        elif error.status == 503 and repeatable:
            pass
        else:
            return None
        delay = error.retry_after
        if delay is None:
            delay = self.retry.backoff_initial * (2**attempt)
        return delay if delay <= self.retry.max_delay else None


def _is_repeatable(method: str, headers: Mapping[str, str]) -> bool:
    """Whether sending the request again cannot do its work twice: its method, or an Idempotency-Key."""
    return method in _repeatable_methods or "idempotency-key" in headers


def _error_of(answer: urllib.error.HTTPError) -> TollgateError:
    """The exception for an error answer, from its envelope ``{ error: { code, message, details? } }``."""
    try:
        raw = answer.read()
    except (OSError, http.client.HTTPException):
        raw = b""
    finally:
        answer.close()
    headers: Dict[str, str] = {name.lower(): value for name, value in answer.headers.items()}
    code: Optional[str] = None
    message = f"HTTP {answer.code} {answer.reason}"
    details: Dict[str, Any] = {}
    try:
        envelope = json.loads(raw.decode("utf-8"))
    except ValueError:
        envelope = None
    error = envelope.get("error") if isinstance(envelope, dict) else None
    if isinstance(error, dict):
        code = error.get("code") if isinstance(error.get("code"), str) else None
        message = str(error.get("message", message))
        raw_details = error.get("details")
        details = raw_details if isinstance(raw_details, dict) else {}
    cls = error_class_for(answer.code, code)
    return cls(
        message,
        code=code,
        status=answer.code,
        details=details,
        request_id=headers.get("x-request-id"),
        retry_after=retry_after_seconds(headers, details),
    )
