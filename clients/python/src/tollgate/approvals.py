"""``client.approvals``: find the tool calls parked for a human, and decide them."""

from __future__ import annotations

from typing import Any, Iterator, Literal, Optional

from .approval_models import Approval, ApprovalPage
from .decode import extra_fields, from_json
from .request_models import ApproveRequest, RejectRequest
from .runs import Instant, instant_of
from .transport import Transport, path_of

#: ``pending``, ``decided`` (any final status) or one final status.
ApprovalListStatus = Literal["pending", "decided", "approved", "rejected", "refused", "expired", "cancelled"]


class Approvals:
    """The approvals of the token's tenant. The token's subject is recorded as the approver."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(
        self,
        *,
        status: Optional[ApprovalListStatus] = None,
        run_id: Optional[str] = None,
        tool: Optional[str] = None,
        user_id: Optional[str] = None,
        user_id_contains: Optional[str] = None,
        approver: Optional[str] = None,
        since: Optional[Instant] = None,
        until: Optional[Instant] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        tenant: Optional[str] = None,
    ) -> ApprovalPage:
        """One page: pending approvals (the default) soonest expiry first, decided ones newest first."""
        query = {
            "status": status,
            "runId": run_id,
            "tool": tool,
            "userId": user_id,
            "userIdContains": user_id_contains,
            "approver": approver,
            "since": instant_of(since),
            "until": instant_of(until),
            "limit": limit,
            "cursor": cursor,
            "tenant": tenant,
        }
        return from_json(ApprovalPage, self._transport.request_json("GET", "/v1/approvals", query=query))

    def iterate(self, *, page_size: Optional[int] = None, **filters: Any) -> Iterator[Approval]:
        """Every approval the filters of ``list`` match, following the cursors page by page."""
        cursor: Optional[str] = None
        while True:
            page = self.list(limit=page_size, cursor=cursor, **filters)
            yield from page.approvals
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    def get(self, approval_id: str) -> Approval:
        """The approval, pending or decided, with its inputs, decision, diff and outcome."""
        return from_json(
            Approval, self._transport.request_json("GET", path_of("v1", "approvals", approval_id))
        )

    def approve(
        self,
        approval_id: str,
        *,
        input: Optional[Any] = None,
        comment: Optional[str] = None,
        input_hash: Optional[str] = None,
        **extra: Any,
    ) -> Approval:
        """Approves the call, with ``input`` as an edit of its input when given (checked by the tool's
        schema: UnprocessableEntityError TG_APPROVAL_INVALID_EDIT, the approval staying pending).

        ``input_hash``: the approval's ``input_hash`` as shown to the approver; another one now is
        ConflictError TG_APPROVAL_STALE.
        """
        request = ApproveRequest(
            input=input, comment=comment, input_hash=input_hash, extra=extra_fields(extra)
        )
        answer = self._transport.request_json(
            "POST", path_of("v1", "approvals", approval_id, "approve"), body=request
        )
        return from_json(Approval, answer)

    def reject(
        self,
        approval_id: str,
        *,
        reason: Optional[str] = None,
        option: Optional[str] = None,
        input_hash: Optional[str] = None,
        **extra: Any,
    ) -> Approval:
        """Rejects the call: the model reads the named ``option``'s text (one of ``reject_options``), then
        the ``reason``."""
        request = RejectRequest(
            reason=reason, option=option, input_hash=input_hash, extra=extra_fields(extra)
        )
        answer = self._transport.request_json(
            "POST", path_of("v1", "approvals", approval_id, "reject"), body=request
        )
        return from_json(Approval, answer)
