"""The tenant's runs per minute (1 for the ``limited`` token's tenant): a 429 with Retry-After, raised when
retries are off or the wait is past ``max_delay``, and waited for and retried otherwise.

The retried create waits what the server asks: up to a minute, the rest of the tenant's window.
"""

from __future__ import annotations

import time
import unittest
from typing import List

from support import client, script, text, unique

from tollgate import RateLimitedError, RetryAttempt, RetryPolicy


class RateLimitTest(unittest.TestCase):
    def test_a_429_is_raised_with_retry_after_or_retried_once_it_has_passed(self) -> None:
        user_id = unique("u-limited")
        message = script(text("Within the limit."))
        without_retries = client("limited")
        first = without_retries.runs.create(message, user_id=user_id)
        self.assertTrue(first.created)

        with self.assertRaises(RateLimitedError) as raised:
            without_retries.runs.create(message, user_id=user_id)
        refused = raised.exception
        self.assertEqual((refused.code, refused.status), ("TG_RATE_LIMITED", 429))
        assert refused.retry_after is not None
        self.assertGreater(refused.retry_after, 0)
        self.assertLessEqual(refused.retry_after, 60)
        self.assertGreater(refused.details["retryAfterMs"], 0)

        # A wait longer than max_delay is not waited for: raised at once.
        started = time.monotonic()
        with self.assertRaises(RateLimitedError):
            client("limited", retry=RetryPolicy(max_retries=3, max_delay=0.5)).runs.create(
                message, user_id=user_id
            )
        self.assertLess(time.monotonic() - started, refused.retry_after)

        attempts: List[RetryAttempt] = []
        patient = client("limited", retry=RetryPolicy(max_retries=2, max_delay=65, on_retry=attempts.append))
        started = time.monotonic()
        second = patient.runs.create(message, user_id=user_id)
        waited = time.monotonic() - started
        self.assertTrue(second.created)
        self.assertEqual(len(attempts), 1)
        (attempt,) = attempts
        self.assertIsInstance(attempt.error, RateLimitedError)
        self.assertEqual((attempt.method, attempt.path, attempt.attempt), ("POST", "/v1/runs", 1))
        # The wait is the answer's Retry-After, and it was waited.
        self.assertEqual(attempt.delay, attempt.error.retry_after)
        self.assertGreaterEqual(waited, attempt.delay)


if __name__ == "__main__":
    unittest.main()
