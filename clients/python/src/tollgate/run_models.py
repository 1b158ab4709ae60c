"""Runs as the API answers them: enqueued, listed, one run, its response and its events."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Optional, Union

from .approval_models import Approval, CallInputs, DecisionKind, Verdict
from .request_models import extra_field

RunStatus = Literal["queued", "running", "waiting", "completed", "failed", "cancelled", "timed_out"]
FinishedStatus = Literal["completed", "failed", "cancelled", "timed_out"]
RunPhase = Literal["model", "tools", "final-model", "finished"]
StopReason = Literal[
    "answered", "ended_by_tool", "max_steps", "budget_exhausted", "cancelled", "timed_out", "failed"
]
ToolOutcome = Literal[
    "ok",
    "error",
    "timeout",
    "denied",
    "invalid_input",
    "hidden",
    "unknown_tool",
    "rejected",
    "expired",
    "cancelled",
]
OpenCallState = Literal["pending", "dispatched", "parked"]
RunEventType = Literal[
    "run-queued",
    "run-resumed",
    "run-started",
    "model-replied",
    "text-delta",
    "step-retracted",
    "tool-call-dispatched",
    "model-fallback",
    "tool-call-settled",
    "tool-call-parked",
    "approval-decided",
    "step-settled",
    "run-cancel-requested",
    "run-finished",
]

#: The statuses of a run that has ended.
FINISHED_STATUSES = frozenset(["completed", "failed", "cancelled", "timed_out"])


@dataclass
class EnqueuedRun:
    """``POST /v1/runs``: the run is queued; ``created`` is False when the Idempotency-Key matched one."""

    run_id: str
    thread_id: str
    status: RunStatus
    created: bool
    extra: Dict[str, Any] = extra_field()


@dataclass
class ForkLink:
    """A run and one of its tool calls: where a fork started."""

    run_id: str
    call_id: str
    extra: Dict[str, Any] = extra_field()


@dataclass
class RerunResult:
    """``POST /v1/runs/{runId}/rerun``: the new run, and the run it re-runs."""

    run_id: str
    thread_id: str
    status: RunStatus
    created: bool
    rerun_of: str
    extra: Dict[str, Any] = extra_field()


@dataclass
class ResumeResult:
    """``POST /v1/runs/{runId}/resume``: the run that continues it; ``created`` is False when an earlier
    request made it (a run is resumed once)."""

    run_id: str
    thread_id: str
    status: RunStatus
    created: bool
    resume_of: str
    extra: Dict[str, Any] = extra_field()


@dataclass
class ForkResult:
    """``POST /v1/runs/{runId}/fork``: the new run, and the run and call it starts from."""

    run_id: str
    thread_id: str
    status: RunStatus
    created: bool
    fork_of: ForkLink
    extra: Dict[str, Any] = extra_field()


@dataclass
class CancelResult:
    """``POST /v1/runs/{runId}/cancel``: the cancellation is recorded; the run ends soon after."""

    run_id: str
    cancel_requested: bool
    extra: Dict[str, Any] = extra_field()


@dataclass
class Usage:
    """Tokens the model reported."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    extra: Dict[str, Any] = extra_field()


@dataclass
class ModelFallback:
    """One switch of a model call to the next named model, and why (``rate_limited``, ``timeout``...)."""

    from_: str = field(metadata={"json": "from"})
    to: str
    reason: Literal[
        "rate_limited",
        "server_error",
        "timeout",
        "unreachable",
        "cooling_down",
        "paused",
        "tools_unsupported",
    ]
    extra: Dict[str, Any] = extra_field()


@dataclass
class RunLink:
    """A run a fork took a model reply over from."""

    run_id: str
    extra: Dict[str, Any] = extra_field()


@dataclass
class ForkEdit:
    """A fork's call whose input the fork request gave: the input it had in the run forked."""

    original_input: Any
    extra: Dict[str, Any] = extra_field()


@dataclass
class ModelReply:
    """One model call: which named model answered the step, its tokens and how long it took."""

    step: int
    model: str
    usage: Usage
    duration_ms: Optional[float] = None
    #: The switches to fallbacks the call made before this model answered.
    fallbacks: Optional[List[ModelFallback]] = None
    #: In a fork: the run this reply was taken over from.
    taken_from: Optional[RunLink] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class ToolDecision:
    """The human decision on a call that waited for one."""

    approval_id: str
    decision: DecisionKind
    decided_at: float
    approver: Optional[str] = None
    comment: Optional[str] = None
    edited_input: Optional[Any] = None
    verdict_on_edit: Optional[Verdict] = None
    reject_option: Optional[str] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class ToolResult:
    """One tool call of a run: its input as it ran, its output or error, and how it was decided."""

    tool_call_id: str
    call_id: str
    tool_name: str
    step: int
    input: Any
    text: str
    is_error: bool
    outcome: ToolOutcome
    duration_ms: float
    output: Optional[Any] = None
    output_stored_apart: Optional[bool] = None
    status: Optional[int] = None
    error_code: Optional[Union[str, int]] = None
    verdict: Optional[Verdict] = None
    truncated_chars: Optional[int] = None
    approval: Optional[ToolDecision] = None
    inputs: Optional[CallInputs] = None
    ended_run: Optional[bool] = None
    #: In a fork: the run and call this result was taken over from (not run again).
    taken_from: Optional[ForkLink] = None
    fork_edit: Optional[ForkEdit] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class RunError:
    """Why a run failed: a ``TG_`` code, a message, and the code's details."""

    code: str
    message: str
    details: Optional[Dict[str, Any]] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class RunResponse:
    """A finished run's answer: what ``ask`` returns and ``Run.response`` holds."""

    run_id: str
    thread_id: str
    status: FinishedStatus
    text: str
    tool_results: List[ToolResult]
    stop_reason: StopReason
    steps: int
    usage: Usage
    output: Optional[Any] = None
    ended_by_tool: Optional[str] = None
    model_replies: Optional[List[ModelReply]] = None
    error: Optional[RunError] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class OpenCall:
    """A call of the current step not settled yet: being checked, running, or waiting for a human."""

    call_id: str
    tool_name: str
    state: OpenCallState
    input: Any
    approval_id: Optional[str] = None
    approval: Optional[ToolDecision] = None
    fork_edit: Optional[ForkEdit] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class RunProgress:
    """An unfinished run's calls and model replies so far, its usage, and the current step's open calls."""

    tool_results: List[ToolResult]
    model_replies: List[ModelReply]
    usage: Usage
    open_calls: List[OpenCall]
    extra: Dict[str, Any] = extra_field()


@dataclass
class Run:
    """``GET /v1/runs/{runId}``: a run's state, its pending approvals, and its response once finished."""

    run_id: str
    thread_id: str
    status: RunStatus
    phase: RunPhase
    steps: int
    created_at: float
    pending_approvals: List[Approval]
    user_id: str
    input: str
    started_at: Optional[float] = None
    finished_at: Optional[float] = None
    metadata: Optional[Dict[str, Any]] = None
    tenant: Optional[str] = None
    created_by: Optional[str] = None
    response: Optional[RunResponse] = None
    rerun_of: Optional[str] = None
    reruns: Optional[List[str]] = None
    progress: Optional[RunProgress] = None
    fork_of: Optional[ForkLink] = None
    forks: Optional[List[ForkLink]] = None
    #: The failed, timed-out or cancelled run this one continues (``runs.resume``).
    resume_of: Optional[str] = None
    #: The run that continues this one.
    resumed_by: Optional[str] = None
    schedule_id: Optional[str] = None
    scheduled_at: Optional[float] = None
    extra: Dict[str, Any] = extra_field()

    @property
    def finished(self) -> bool:
        """Whether the run has ended (completed, failed, cancelled or timed out)."""
        return self.status in FINISHED_STATUSES


@dataclass
class ApprovalCounts:
    """A listed run's approvals: pending and decided."""

    pending: int
    decided: int
    extra: Dict[str, Any] = extra_field()


@dataclass
class RunSummary:
    """A run as ``GET /v1/runs`` lists it."""

    run_id: str
    thread_id: str
    status: RunStatus
    user_id: str
    input_first_line: str
    tools_called: List[str]
    approvals: ApprovalCounts
    steps: int
    tokens: int
    created_at: float
    tenant: Optional[str] = None
    created_by: Optional[str] = None
    started_at: Optional[float] = None
    finished_at: Optional[float] = None
    duration_ms: Optional[float] = None
    error_code: Optional[str] = None
    rerun_of: Optional[str] = None
    fork_of: Optional[ForkLink] = None
    resume_of: Optional[str] = None
    schedule_id: Optional[str] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class RunPage:
    """A page of ``GET /v1/runs``, newest first; pass ``next_cursor`` back as ``cursor`` for the next one."""

    runs: List[RunSummary]
    next_cursor: Optional[str] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class RunEvent:
    """One event of a run's stream; ``id`` resumes after it (``last_event_id``)."""

    id: str
    run_id: str
    type: RunEventType
    data: Dict[str, Any]
    extra: Dict[str, Any] = extra_field()
