"""Schedules against the real stack: create, list, get, pause, resume, delete."""

from __future__ import annotations

import unittest

from support import client, script, text, unique, wait_until

from tollgate import InvalidRequestError, NotFoundError, RunRequest, Schedule


class SchedulesTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = client("service")

    def test_a_schedule_ticks_runs_and_is_paused_resumed_and_deleted(self) -> None:
        user_id = unique("u-schedule")
        name = unique("digest")
        # An interval schedule's first tick is at once; the next one is a minute away.
        created = self.client.schedules.create(
            RunRequest(input=script(text("Digest.")), user_context={"userId": user_id}),
            every_ms=60_000,
            name=name,
        )
        self.assertIsInstance(created, Schedule)
        self.assertTrue(created.schedule_id.startswith("sch_"))
        self.assertEqual(
            (created.name, created.every_ms, created.overlap, created.paused), (name, 60_000, "skip", False)
        )
        self.assertEqual(created.request["input"], script(text("Digest.")))
        self.assertEqual(created.created_by, "py-service")

        ticked = wait_until(
            lambda: next(iter(self.client.runs.list(schedule_id=created.schedule_id).runs), None),
            message="the first tick enqueues a run",
        )
        self.assertEqual(ticked.user_id, user_id)
        fired = wait_until(
            lambda: (lambda schedule: schedule if schedule.ticks_fired >= 1 else None)(
                self.client.schedules.get(created.schedule_id)
            ),
            message="the schedule counts its tick",
        )
        self.assertEqual(fired.recent_ticks[0].outcome, "fired")
        self.assertEqual(fired.recent_ticks[0].run_id, ticked.run_id)

        listed = [schedule.schedule_id for schedule in self.client.schedules.iterate(page_size=1)]
        self.assertIn(created.schedule_id, listed)

        paused = self.client.schedules.pause(created.schedule_id)
        self.assertTrue(paused.paused)
        self.assertTrue(self.client.schedules.get(created.schedule_id).paused)
        resumed = self.client.schedules.resume(created.schedule_id)
        self.assertFalse(resumed.paused)

        deleted = self.client.schedules.delete(created.schedule_id)
        self.assertEqual((deleted.schedule_id, deleted.deleted), (created.schedule_id, True))
        with self.assertRaises(NotFoundError) as raised:
            self.client.schedules.get(created.schedule_id)
        self.assertEqual((raised.exception.code, raised.exception.status), ("TG_SCHEDULE_NOT_FOUND", 404))
        # Its runs stay.
        self.assertEqual(self.client.runs.get(ticked.run_id).schedule_id, created.schedule_id)

    def test_a_cron_pattern_that_does_not_parse_is_refused_naming_it(self) -> None:
        with self.assertRaises(InvalidRequestError) as raised:
            self.client.schedules.create(script(text("Never.")), cron="not a pattern")
        self.assertEqual(raised.exception.code, "TG_INVALID_REQUEST")
        self.assertIn("cron", [issue.path for issue in raised.exception.issues])


if __name__ == "__main__":
    unittest.main()
