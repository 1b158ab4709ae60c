"""Approvals against the real stack: list, get, approve with an edit, reject with a named option."""

from __future__ import annotations

import unittest

from support import calls, client, script, text, unique, wait_until

from tollgate import Approval, ConflictError, PermissionDeniedError, UnprocessableEntityError

refund_input = {"orderId": "A-1002", "amount": 180}


class ApprovalsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.service = client("service")
        self.reviewer = client("reviewer")
        self.user_id = unique("u-approvals")

    def park_refund(self) -> Approval:
        """A run whose refund parks for a human; its approval once listed."""
        run = self.service.runs.create(
            script(calls("refund", refund_input), text("Refund decided.")), user_id=self.user_id
        )
        return wait_until(
            lambda: next(iter(self.reviewer.approvals.list(run_id=run.run_id).approvals), None),
            message="the refund parks",
        )

    def test_list_and_get_a_pending_approval_with_its_reject_options(self) -> None:
        listed = self.park_refund()
        self.assertEqual((listed.tool_name, listed.status), ("refund", "pending"))
        self.assertEqual(listed.input, refund_input)
        self.assertEqual(listed.user_context.user_id, self.user_id)
        page = self.reviewer.approvals.list(user_id=self.user_id, status="pending", limit=10)
        self.assertEqual([approval.approval_id for approval in page.approvals], [listed.approval_id])
        approval = self.reviewer.approvals.get(listed.approval_id)
        self.assertEqual(approval.run_id, listed.run_id)
        self.assertEqual(approval.created_by, "py-service")
        assert approval.reject_options is not None
        self.assertEqual([option.name for option in approval.reject_options], ["wrong_customer"])
        self.assertEqual(approval.reject_options[0].title, "Wrong customer")
        self.assertIsNotNone(approval.input_hash)
        assert approval.inputs is not None
        self.assertEqual(approval.inputs.proposed, refund_input)
        self.service.runs.cancel(approval.run_id)

    def test_approve_with_an_edit_runs_the_edited_input(self) -> None:
        pending = self.park_refund()
        edited = {"orderId": "A-1002", "amount": 120}
        decided = self.reviewer.approvals.approve(
            pending.approval_id, input=edited, comment="capped at 120", input_hash=pending.input_hash
        )
        self.assertEqual(decided.status, "approved")
        assert decided.decision is not None
        self.assertEqual(decided.decision.approver, "py-reviewer")
        self.assertEqual(decided.decision.comment, "capped at 120")
        self.assertEqual(decided.decision.edited_input, edited)
        assert decided.diff is not None
        self.assertEqual(
            [(change.op, change.path, change.from_, change.value) for change in decided.diff],
            [("replace", "/amount", 180, 120)],
        )
        run = self.service.runs.wait(decided.run_id, timeout=60)
        assert run.response is not None
        (result,) = run.response.tool_results
        self.assertEqual(result.input, edited)
        self.assertEqual(result.output, {"orderId": "A-1002", "refunded": 120})
        assert result.approval is not None
        self.assertEqual((result.approval.decision, result.approval.approver), ("approved", "py-reviewer"))
        with self.assertRaises(ConflictError) as raised:
            self.reviewer.approvals.approve(pending.approval_id)
        self.assertEqual(raised.exception.code, "TG_APPROVAL_DECIDED")
        decided_page = self.reviewer.approvals.list(
            status="decided", approver="py-reviewer", run_id=run.run_id
        )
        self.assertEqual([approval.approval_id for approval in decided_page.approvals], [pending.approval_id])

    def test_reject_with_a_named_option_tells_the_model_its_text(self) -> None:
        pending = self.park_refund()
        decided = self.reviewer.approvals.reject(
            pending.approval_id, option="wrong_customer", reason="Ada moved"
        )
        self.assertEqual(decided.status, "rejected")
        assert decided.decision is not None and decided.decision.reject_option is not None
        self.assertEqual(decided.decision.reject_option.name, "wrong_customer")
        self.assertEqual(decided.decision.comment, "Ada moved")
        run = self.service.runs.wait(decided.run_id, timeout=60)
        assert run.response is not None
        (result,) = run.response.tool_results
        self.assertEqual(result.outcome, "rejected")
        self.assertIn("look the customer up again", result.text)
        self.assertIn("Ada moved", result.text)
        assert result.approval is not None
        self.assertEqual(result.approval.reject_option, "wrong_customer")

    def test_an_unknown_reject_option_is_422_and_the_approval_stays_pending(self) -> None:
        pending = self.park_refund()
        with self.assertRaises(UnprocessableEntityError) as raised:
            self.reviewer.approvals.reject(pending.approval_id, option="no_such_option")
        self.assertEqual(raised.exception.status, 422)
        self.assertEqual(self.reviewer.approvals.get(pending.approval_id).status, "pending")
        self.service.runs.cancel(pending.run_id)

    def test_an_edit_that_fails_the_tool_schema_is_422_and_the_approval_stays_pending(self) -> None:
        pending = self.park_refund()
        with self.assertRaises(UnprocessableEntityError) as raised:
            self.reviewer.approvals.approve(pending.approval_id, input={"orderId": "A-1002", "amount": -5})
        error = raised.exception
        self.assertEqual((error.code, error.status), ("TG_APPROVAL_INVALID_EDIT", 422))
        self.assertEqual([issue.path for issue in error.issues], ["input.amount"])
        self.assertEqual(self.reviewer.approvals.get(pending.approval_id).status, "pending")
        self.service.runs.cancel(pending.run_id)

    def test_a_token_without_the_approvals_roles_is_refused(self) -> None:
        with self.assertRaises(PermissionDeniedError) as raised:
            self.service.approvals.list()
        self.assertEqual((raised.exception.code, raised.exception.status), ("TG_FORBIDDEN", 403))


if __name__ == "__main__":
    unittest.main()
