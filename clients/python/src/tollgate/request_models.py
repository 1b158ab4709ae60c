"""The bodies the client sends: run requests, schedules, re-runs, forks and decisions.

A ``None`` field is left out of the body (the server's default applies). ``extra`` holds fields this
version does not name, sent as they are: a newer server's fields reach it without a new client.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Mapping, Optional, Union


def extra_field() -> Any:
    """The ``extra`` of a model: JSON keys it does not name, as they are."""
    return field(default_factory=dict, repr=False, compare=False)


@dataclass
class UserContext:
    """Who a run acts for: its user, and the profile, roles and attributes policies read."""

    user_id: str
    profile: Optional[str] = None
    roles: Optional[List[str]] = None
    attributes: Optional[Dict[str, Any]] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class StructuredOutput:
    """A structured answer: a JSON Schema (2020-12) whose root is an object, and the name given the model."""

    schema: Dict[str, Any]
    name: Optional[str] = None
    extra: Dict[str, Any] = extra_field()


#: A user context as a model or as its JSON (``{"userId": ...}``).
UserContextLike = Union[UserContext, Mapping[str, Any]]
#: A structured output as a model or as its JSON (``{"schema": ..., "name": ...}``).
StructuredOutputLike = Union[StructuredOutput, Mapping[str, Any]]


@dataclass
class RunRequest:
    """The body of ``POST /v1/runs`` and ``POST /v1/ask``, and the request a schedule's ticks enqueue."""

    input: str
    user_context: Optional[UserContextLike] = None
    thread_id: Optional[str] = None
    tools: Optional[List[str]] = None
    additional_tools: Optional[List[str]] = None
    max_steps: Optional[int] = None
    timeout_ms: Optional[int] = None
    max_total_tokens: Optional[int] = None
    max_tool_calls: Optional[int] = None
    metadata: Optional[Dict[str, Any]] = None
    instructions: Optional[str] = None
    tenant: Optional[str] = None
    model: Optional[str] = None
    output: Optional[StructuredOutputLike] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class RerunRequest:
    """The body of ``POST /v1/runs/{runId}/rerun``: what changes; everything else is the run's own."""

    input: Optional[str] = None
    user_context: Optional[UserContextLike] = None
    model: Optional[str] = None
    #: Run again the calls the run executed of tools not declared read-only (else TG_RERUN_REPEATS_EFFECTS).
    repeat_effects: Optional[bool] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class ForkRequest:
    """The body of ``POST /v1/runs/{runId}/fork``: the call to start from and, optionally, its new input."""

    from_call_id: str
    input: Optional[Any] = None
    #: Run again, from this call on, the calls the run executed of tools not declared read-only.
    repeat_effects: Optional[bool] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class ApproveRequest:
    """The body of ``POST /v1/approvals/{approvalId}/approve``: an edited input, a comment, the input seen."""

    input: Optional[Any] = None
    comment: Optional[str] = None
    input_hash: Optional[str] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class RejectRequest:
    """The body of ``POST /v1/approvals/{approvalId}/reject``: a reason, a named option, the input seen."""

    reason: Optional[str] = None
    option: Optional[str] = None
    input_hash: Optional[str] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class ScheduleRequest:
    """The body of ``POST /v1/schedules``: when it ticks (``cron`` or ``every_ms``), what each tick runs."""

    request: Union[RunRequest, Mapping[str, Any]]
    cron: Optional[str] = None
    every_ms: Optional[int] = None
    timezone: Optional[str] = None
    name: Optional[str] = None
    overlap: Optional[Literal["skip", "queue"]] = None
    extra: Dict[str, Any] = extra_field()
