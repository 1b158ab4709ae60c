"""Approvals as the API answers them: a tool call parked for a human, and its decision."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Optional

from .request_models import UserContext, extra_field

ApprovalStatus = Literal["pending", "approved", "refused", "rejected", "expired", "cancelled"]
DecisionKind = Literal["approved", "refused", "rejected", "expired", "cancelled"]
Verdict = Literal["ALLOW", "DENY", "NEEDS_APPROVAL"]


@dataclass
class CallInputs:
    """A call's three inputs: the model's, the one approved (an edit, else the proposal), the one that ran."""

    proposed: Any
    approved: Optional[Any] = None
    executed: Optional[Any] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class RejectOption:
    """A named way to reject a call: the model reads its ``prompt_fill``, then the reviewer's reason."""

    name: str
    title: str
    prompt_fill: str
    description: Optional[str] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class ChosenRejectOption:
    """The reject option a decision chose."""

    name: str
    title: str
    prompt_fill: str
    extra: Dict[str, Any] = extra_field()


@dataclass
class ApprovalDecision:
    """Who decided what, when; with an edit, the input approved and how the policy judged it again."""

    decision: DecisionKind
    decided_at: float
    approver: Optional[str] = None
    comment: Optional[str] = None
    edited_input: Optional[Any] = None
    verdict_on_edit: Optional[Verdict] = None
    rejection_text: Optional[str] = None
    reason: Optional[str] = None
    reject_option: Optional[ChosenRejectOption] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class DiffOperation:
    """One JSON-pointer change from the proposed input to the edited one."""

    op: Literal["add", "remove", "replace"]
    path: str
    #: ``from`` in JSON (a Python keyword): the value before.
    from_: Optional[Any] = field(default=None, metadata={"json": "from"})
    value: Optional[Any] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class ApprovalOutcome:
    """What happened when the approved call ran."""

    ok: bool
    finished_at: float
    status: Optional[float] = None
    code: Optional[str] = None
    executed_input: Optional[Any] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class QuorumVote:
    """One approver's vote of a quorum."""

    approver: str
    decided_at: float
    comment: Optional[str] = None
    edited_input: Optional[Any] = None
    verdict_on_edit: Optional[Verdict] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class Quorum:
    """An approval that several approvers must approve: how many, and the votes so far."""

    required: int
    approvals: List[QuorumVote]
    earlier_votes: Optional[List[QuorumVote]] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class ApprovalRefusal:
    """Why the token reading an approval may not decide it: the rule, and the 403's message."""

    rule: str
    message: str
    extra: Dict[str, Any] = extra_field()


@dataclass
class ApprovalViewer:
    """What the token reading a pending approval may do with it (``GET`` with approvals:decide)."""

    may_decide: bool
    refusal: Optional[ApprovalRefusal] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class Approval:
    """A tool call parked for a human (``GET /v1/approvals/{approvalId}``), pending or decided."""

    schema_version: float
    approval_id: str
    run_id: str
    thread_id: str
    call_id: str
    tool_name: str
    input: Any
    user_context: UserContext
    requested_at: float
    expires_at: float
    status: ApprovalStatus
    reason: Optional[str] = None
    rejection_text: Optional[str] = None
    tools: Optional[List[str]] = None
    additional_tools: Optional[List[str]] = None
    tool_list_hash: Optional[str] = None
    tenant: Optional[str] = None
    created_by: Optional[str] = None
    input_hash: Optional[str] = None
    reject_options: Optional[List[RejectOption]] = None
    inputs: Optional[CallInputs] = None
    decision: Optional[ApprovalDecision] = None
    diff: Optional[List[DiffOperation]] = None
    outcome: Optional[ApprovalOutcome] = None
    quorum: Optional[Quorum] = None
    #: ``approvals.get`` of a pending approval, with approvals:decide: whether this token may decide it.
    viewer: Optional[ApprovalViewer] = None
    extra: Dict[str, Any] = extra_field()


@dataclass
class ApprovalPage:
    """A page of ``GET /v1/approvals``; pass ``next_cursor`` back as ``cursor`` for the next one."""

    approvals: List[Approval]
    next_cursor: Optional[str] = None
    extra: Dict[str, Any] = extra_field()
