"""Runs against the real API, worker and scripted model: create, get, list, wait, events, cancel, resume,
rerun, fork and ask."""

from __future__ import annotations

import unittest
from typing import Callable, Dict
from urllib.parse import urlsplit

from breaking_proxy import BreakingProxy
from support import calls, client, script, text, token, unique, wait_until

from tollgate import (
    Approval,
    ConflictError,
    EnqueuedRun,
    InvalidRequestError,
    RepeatedCall,
    RerunRepeatsEffectsError,
    ResumeResult,
    Run,
    RunNotResumableError,
    RunResponse,
    StreamSettings,
    TollgateClient,
    WaitTimeoutError,
)

refund_input = {"orderId": "A-1002", "amount": 180}


def parked_approval(run_id: str) -> Approval:
    """The run's approval, once the call parked (what a reviewer's inbox shows)."""
    reviewer = client("reviewer")
    return wait_until(
        lambda: next(iter(reviewer.approvals.list(run_id=run_id).approvals), None),
        message=f"run {run_id} parks an approval",
    )


class RunsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = client("service")
        self.user_id = unique("u-runs")

    def test_create_with_an_idempotency_key_twice_returns_the_same_run(self) -> None:
        key = unique("ticket")
        first = self.client.runs.create(script(text("Once.")), user_id=self.user_id, idempotency_key=key)
        second = self.client.runs.create(script(text("Once.")), user_id=self.user_id, idempotency_key=key)
        self.assertIsInstance(first, EnqueuedRun)
        self.assertTrue(first.run_id.startswith("run_"))
        self.assertEqual((first.created, second.created), (True, False))
        self.assertEqual(second.run_id, first.run_id)
        self.assertEqual(second.thread_id, first.thread_id)
        # Without a key each call is a run of its own (the client's own key is new each time).
        third = self.client.runs.create(script(text("Once.")), user_id=self.user_id)
        self.assertNotEqual(third.run_id, first.run_id)

    def test_get_returns_the_run_as_it_was_asked(self) -> None:
        message = script(text("Hello."))
        run = self.client.runs.create(message, user_id=self.user_id, metadata={"ticket": 981})
        fetched = self.client.runs.get(run.run_id)
        self.assertIsInstance(fetched, Run)
        self.assertEqual(fetched.run_id, run.run_id)
        self.assertEqual(fetched.user_id, self.user_id)
        self.assertEqual(fetched.input, message)
        self.assertEqual(fetched.metadata, {"ticket": 981})
        self.assertEqual(fetched.created_by, "py-service")

    def test_wait_returns_the_finished_run_with_its_response(self) -> None:
        run = self.client.runs.create(
            script(calls("lookup_order", {"orderId": "A-1001"}), text("It was delivered.")),
            user_id=self.user_id,
        )
        finished = self.client.runs.wait(run.run_id, timeout=60)
        self.assertTrue(finished.finished)
        self.assertEqual(finished.status, "completed")
        assert finished.response is not None
        self.assertEqual(finished.response.text, "It was delivered.")
        self.assertEqual(finished.response.stop_reason, "answered")
        (result,) = finished.response.tool_results
        self.assertEqual((result.tool_name, result.outcome), ("lookup_order", "ok"))
        self.assertEqual(result.output, {"orderId": "A-1001", "status": "delivered", "total": 180})
        self.assertGreater(finished.response.usage.total_tokens, 0)

    def test_wait_past_its_timeout_raises_and_the_run_goes_on(self) -> None:
        run = self.client.runs.create(
            script(calls("refund", refund_input), text("Done.")), user_id=self.user_id
        )
        parked_approval(run.run_id)
        with self.assertRaises(WaitTimeoutError) as raised:
            self.client.runs.wait(run.run_id, timeout=0.5)
        self.assertEqual(raised.exception.code, "TG_WAIT_TIMEOUT")
        self.assertFalse(self.client.runs.get(run.run_id).finished)
        self.client.runs.cancel(run.run_id)

    def test_list_filters_and_follows_the_cursor_across_pages(self) -> None:
        created = [
            self.client.runs.create(script(text(f"Answer {index}.")), user_id=self.user_id).run_id
            for index in range(3)
        ]
        for run_id in created:
            self.client.runs.wait(run_id, timeout=60)
        first = self.client.runs.list(user_id=self.user_id, limit=2)
        self.assertLessEqual(len(first.runs), 2)
        self.assertIsNotNone(first.next_cursor)
        summaries = list(first.runs)
        cursor = first.next_cursor
        while cursor is not None:
            page = self.client.runs.list(user_id=self.user_id, limit=2, cursor=cursor)
            summaries.extend(page.runs)
            cursor = page.next_cursor
        seen = [summary.run_id for summary in summaries]
        # Each once, newest first (runs created in the same millisecond are ordered by their ids).
        self.assertEqual(sorted(seen), sorted(created))
        created_at = [summary.created_at for summary in summaries]
        self.assertEqual(created_at, sorted(created_at, reverse=True))
        self.assertEqual(
            [summary.run_id for summary in self.client.runs.iterate(page_size=1, user_id=self.user_id)], seen
        )
        completed = self.client.runs.list(user_id=self.user_id, status="completed")
        self.assertEqual({summary.status for summary in completed.runs}, {"completed"})
        self.assertEqual(len(completed.runs), 3)
        self.assertEqual(self.client.runs.list(user_id=self.user_id, status="failed").runs, [])
        self.assertEqual(
            {summary.input_first_line for summary in completed.runs},
            {f'{{"script": [{{"text": "Answer {index}."}}]}}' for index in range(3)},
        )

    def test_events_resume_after_a_last_event_id(self) -> None:
        run = self.client.runs.create(
            script(calls("lookup_order", {"orderId": "A-1001"}), text("Delivered.")), user_id=self.user_id
        )
        self.client.runs.wait(run.run_id, timeout=60)
        events = list(self.client.runs.events(run.run_id))
        types = [event.type for event in events]
        self.assertEqual(types[0], "run-queued")
        self.assertEqual(types[-1], "run-finished")
        self.assertIn("tool-call-settled", types)
        self.assertTrue(all(event.run_id == run.run_id for event in events))
        resumed = list(self.client.runs.events(run.run_id, last_event_id=events[1].id))
        self.assertEqual([event.id for event in resumed], [event.id for event in events[2:]])
        # Resumed from its last event: nothing more, and the stream still ends.
        self.assertEqual(list(self.client.runs.events(run.run_id, last_event_id=events[-1].id)), [])

    def test_events_reconnect_with_the_last_event_id_when_the_connection_breaks(self) -> None:
        run = self.client.runs.create(
            script(calls("lookup_order", {"orderId": "A-1001"}), text("Delivered.")), user_id=self.user_id
        )
        self.client.runs.wait(run.run_id, timeout=60)
        expected = [event.id for event in self.client.runs.events(run.run_id)]
        address = urlsplit(self.client.base_url)
        proxy = BreakingProxy((address.hostname or "127.0.0.1", address.port or 80))
        try:
            through_proxy = TollgateClient(
                f"http://127.0.0.1:{proxy.port}",
                token("service"),
                stream=StreamSettings(reconnect_delay=0.01),
            )
            received = [event.id for event in through_proxy.runs.events(run.run_id)]
        finally:
            proxy.close()
        self.assertEqual(received, expected)
        resumed_from = proxy.last_event_ids()
        self.assertEqual(len(resumed_from), 2, "one connection broken, one resumed")
        self.assertEqual(resumed_from[0], "")
        self.assertIn(resumed_from[1], expected[:-1])

    def test_cancel_ends_a_parked_run_and_a_second_cancel_is_a_conflict(self) -> None:
        run = self.client.runs.create(
            script(calls("refund", refund_input), text("Done.")), user_id=self.user_id
        )
        approval = parked_approval(run.run_id)
        cancelled = self.client.runs.cancel(run.run_id)
        self.assertEqual((cancelled.run_id, cancelled.cancel_requested), (run.run_id, True))
        finished = self.client.runs.wait(run.run_id, timeout=60)
        self.assertEqual(finished.status, "cancelled")
        reviewer = client("reviewer")
        wait_until(
            lambda: reviewer.approvals.get(approval.approval_id).status == "cancelled",
            message="the parked call's approval is cancelled with its run",
        )
        with self.assertRaises(ConflictError) as raised:
            self.client.runs.cancel(run.run_id)
        self.assertEqual((raised.exception.code, raised.exception.status), ("TG_RUN_FINISHED", 409))

    def test_resume_continues_a_run_the_model_failed_without_running_its_calls_again(self) -> None:
        order_id = unique("A")
        run = self.client.runs.create(
            script(
                calls("lookup_order", {"orderId": order_id}),
                # An error the model's client does not retry: the run fails at its second model call.
                {"status": 400},
                text("Found it."),
            ),
            user_id=self.user_id,
        )
        failed = self.client.runs.wait(run.run_id, timeout=60)
        self.assertEqual(failed.status, "failed")
        assert failed.response is not None and failed.response.error is not None
        self.assertEqual(failed.response.error.code, "TG_MODEL_FAILED")

        resumed = self.client.runs.resume(run.run_id)
        self.assertIsInstance(resumed, ResumeResult)
        self.assertEqual((resumed.resume_of, resumed.created), (run.run_id, True))
        self.assertNotEqual(resumed.run_id, run.run_id)
        finished = self.client.runs.wait(resumed.run_id, timeout=60)
        self.assertEqual((finished.status, finished.resume_of), ("completed", run.run_id))
        assert finished.response is not None
        self.assertEqual(finished.response.text, "Found it.")
        (result,) = finished.response.tool_results
        self.assertEqual((result.tool_name, result.outcome), ("lookup_order", "ok"))
        self.assertEqual(result.output, {"orderId": order_id, "status": "delivered", "total": 180})
        self.assertEqual(self.client.runs.get(run.run_id).resumed_by, resumed.run_id)
        # The lookup's result is taken over: the resume dispatches no call, it asks the model again.
        events = list(self.client.runs.events(resumed.run_id))
        self.assertEqual([event.type for event in events[:2]], ["run-queued", "run-resumed"])
        self.assertEqual(events[0].data["resumeOf"], run.run_id)
        self.assertEqual(
            {key: events[1].data[key] for key in ("resumeOf", "status", "completedCalls", "modelAskedAgain")},
            {"resumeOf": run.run_id, "status": "failed", "completedCalls": 1, "modelAskedAgain": True},
        )
        self.assertNotIn("tool-call-dispatched", [event.type for event in events])
        listed = {summary.run_id: summary for summary in self.client.runs.iterate(user_id=self.user_id)}
        self.assertEqual(listed[resumed.run_id].resume_of, run.run_id)
        # A run is resumed once: asking again answers the same resume.
        again = self.client.runs.resume(run.run_id)
        self.assertEqual((again.run_id, again.created), (resumed.run_id, False))

    def test_resume_of_a_completed_run_is_refused(self) -> None:
        run = self.client.runs.create(script(text("Done.")), user_id=self.user_id)
        self.client.runs.wait(run.run_id, timeout=60)
        with self.assertRaises(RunNotResumableError) as raised:
            self.client.runs.resume(run.run_id)
        error = raised.exception
        self.assertIsInstance(error, ConflictError)
        self.assertEqual((error.code, error.status), ("TG_RUN_NOT_RESUMABLE", 409))
        self.assertEqual(error.reason, "completed")
        # Nothing was created.
        listed = [summary.run_id for summary in self.client.runs.iterate(user_id=self.user_id)]
        self.assertEqual(listed, [run.run_id])

    def test_rerun_queues_the_request_again_with_another_input(self) -> None:
        run = self.client.runs.create(script(text("First answer.")), user_id=self.user_id)
        self.client.runs.wait(run.run_id, timeout=60)
        rerun = self.client.runs.rerun(run.run_id, input=script(text("Second answer.")))
        self.assertEqual(rerun.rerun_of, run.run_id)
        self.assertNotEqual(rerun.run_id, run.run_id)
        finished = self.client.runs.wait(rerun.run_id, timeout=60)
        assert finished.response is not None
        self.assertEqual(finished.response.text, "Second answer.")
        self.assertEqual(finished.rerun_of, run.run_id)
        self.assertEqual(finished.user_id, self.user_id)
        self.assertEqual(self.client.runs.get(run.run_id).reruns, [rerun.run_id])

    def test_fork_starts_from_a_call_with_another_input(self) -> None:
        run = self.client.runs.create(
            script(calls("lookup_order", {"orderId": "A-1001"}), text("Looked it up.")), user_id=self.user_id
        )
        original = self.client.runs.wait(run.run_id, timeout=60)
        assert original.response is not None
        call_id = original.response.tool_results[0].call_id
        fork = self.client.runs.fork(run.run_id, call_id, input={"orderId": "A-2002"})
        self.assertEqual((fork.fork_of.run_id, fork.fork_of.call_id), (run.run_id, call_id))
        forked = self.client.runs.wait(fork.run_id, timeout=60)
        self.assertEqual(forked.status, "completed")
        assert forked.response is not None
        (result,) = forked.response.tool_results
        self.assertEqual(result.input, {"orderId": "A-2002"})
        self.assertEqual(result.output, {"orderId": "A-2002", "status": "delivered", "total": 180})
        assert forked.fork_of is not None
        self.assertEqual(forked.fork_of.call_id, call_id)

    def test_a_replay_that_would_refund_again_is_refused_unless_it_says_repeat_effects(self) -> None:
        run = self.client.runs.create(
            script(calls("refund", refund_input), text("Refunded.")), user_id=self.user_id
        )
        client("reviewer").approvals.approve(parked_approval(run.run_id).approval_id)
        original = self.client.runs.wait(run.run_id, timeout=60)
        assert original.response is not None
        call_id = original.response.tool_results[0].call_id
        replays: Dict[str, Callable[[], object]] = {
            "rerun": lambda: self.client.runs.rerun(run.run_id),
            "fork": lambda: self.client.runs.fork(run.run_id, call_id),
        }
        for name, replay in replays.items():
            with self.subTest(name), self.assertRaises(RerunRepeatsEffectsError) as raised:
                replay()
            error = raised.exception
            self.assertIsInstance(error, ConflictError)
            self.assertEqual((error.code, error.status), ("TG_RERUN_REPEATS_EFFECTS", 409))
            self.assertEqual(error.calls, [RepeatedCall(call_id=call_id, tool_name="refund")])
            self.assertEqual(error.details["calls"], [{"callId": call_id, "toolName": "refund"}])
            self.assertEqual(error.tool_names, ["refund"])
        # Nothing was created.
        listed = [summary.run_id for summary in self.client.runs.iterate(user_id=self.user_id)]
        self.assertEqual(listed, [run.run_id])

        # Said: the fork refunds again, its call under the tool's policy (a human approves it again).
        fork = self.client.runs.fork(
            run.run_id, call_id, input={"orderId": "A-1002", "amount": 20}, repeat_effects=True
        )
        approval = parked_approval(fork.run_id)
        self.assertEqual(approval.input, {"orderId": "A-1002", "amount": 20})
        client("reviewer").approvals.approve(approval.approval_id)
        forked = self.client.runs.wait(fork.run_id, timeout=60)
        assert forked.response is not None
        (result,) = forked.response.tool_results
        self.assertEqual((result.outcome, result.output), ("ok", {"orderId": "A-1002", "refunded": 20}))
        rerun = self.client.runs.rerun(
            run.run_id, input=script(text("No refund this time.")), repeat_effects=True
        )
        self.assertEqual(rerun.rerun_of, run.run_id)
        self.assertEqual(self.client.runs.wait(rerun.run_id, timeout=60).status, "completed")

    def test_ask_returns_the_response(self) -> None:
        response = self.client.ask(
            script(calls("lookup_order", {"orderId": "A-1001"}), text("Delivered on Monday.")),
            user_id=self.user_id,
            timeout_ms=60_000,
        )
        self.assertIsInstance(response, RunResponse)
        self.assertEqual((response.status, response.text), ("completed", "Delivered on Monday."))
        self.assertEqual(response.steps, 2)
        self.assertEqual([result.tool_name for result in response.tool_results], ["lookup_order"])

    def test_keyword_arguments_the_client_does_not_name_reach_the_body(self) -> None:
        # The API refuses unknown fields, so its refusal shows the field arrived, in camelCase.
        with self.assertRaises(InvalidRequestError) as raised:
            self.client.runs.create(script(text("x")), user_id=self.user_id, not_yet_a_field=True)
        described = " ".join(f"{issue.path} {issue.message}" for issue in raised.exception.issues)
        self.assertIn("notYetAField", described)


if __name__ == "__main__":
    unittest.main()
