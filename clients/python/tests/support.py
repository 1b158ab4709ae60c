"""What the suite shares: the stack it runs against (test/e2e/python-client starts it), scripts for the
scripted model, and waiting with a deadline."""

from __future__ import annotations

import json
import os
import time
import uuid
from typing import Any, Callable, Dict, Optional, TypeVar

from tollgate import RetryPolicy, TollgateClient

T = TypeVar("T")


def stack_url() -> str:
    url = os.environ.get("TOLLGATE_TEST_URL")
    if not url:
        raise RuntimeError(
            "TOLLGATE_TEST_URL is not set: run the suite with `npm run test:python`, which starts the API, "
            "a worker and the scripted model"
        )
    return url


def token(name: str) -> str:
    """The bearer token of ``service`` (runs), ``reviewer`` (approvals) or ``limited`` (1 run a minute)."""
    tokens: Dict[str, str] = json.loads(os.environ.get("TOLLGATE_TEST_TOKENS", "{}"))
    return tokens[name]


def client(name: str = "service", **options: Any) -> TollgateClient:
    """A client of the stack with the named token; no retries unless ``retry`` says otherwise."""
    options.setdefault("retry", RetryPolicy(max_retries=0))
    return TollgateClient(stack_url(), token(name), **options)


def script(*entries: Dict[str, Any]) -> str:
    """A user message that scripts the model's replies (docs/SCRIPTED-MODEL.md)."""
    return json.dumps({"script": list(entries)})


def calls(name: str, input: Dict[str, Any]) -> Dict[str, Any]:
    return {"calls": [{"name": name, "input": input}]}


def text(answer: str) -> Dict[str, Any]:
    return {"text": answer}


def unique(label: str) -> str:
    """A name no other test uses (user ids, idempotency keys, schedule names)."""
    return f"{label}-{uuid.uuid4().hex[:10]}"


def wait_until(
    probe: Callable[[], Optional[T]], *, timeout: float = 30.0, interval: float = 0.05, message: str = ""
) -> T:
    """Calls ``probe`` until it returns something other than None or False; fails past ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None and value is not False:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {message}")
        time.sleep(interval)
