"""Error answers of the real API raise the TollgateError subclass of their status, with code and details."""

from __future__ import annotations

import socket
import unittest

from support import client, script, stack_url, text, unique

from tollgate import (
    AuthenticationError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    TollgateClient,
    TollgateConnectionError,
    TollgateError,
    UnprocessableEntityError,
)


class ErrorsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = client("service")

    def test_a_field_that_fails_its_schema_raises_invalid_request_error_with_the_field(self) -> None:
        with self.assertRaises(InvalidRequestError) as raised:
            self.client.runs.create(script(text("x")), user_id=unique("u-errors"), max_steps=0)
        error = raised.exception
        self.assertIsInstance(error, UnprocessableEntityError)
        self.assertIsInstance(error, TollgateError)
        self.assertEqual((error.code, error.status), ("TG_INVALID_REQUEST", 422))
        self.assertEqual(error.details["in"], "body")
        self.assertEqual([issue.path for issue in error.issues], ["maxSteps"])
        self.assertTrue(error.request_id)
        self.assertIn("TG_INVALID_REQUEST", str(error))

    def test_an_unknown_run_raises_not_found(self) -> None:
        with self.assertRaises(NotFoundError) as raised:
            self.client.runs.get("run_does_not_exist")
        self.assertEqual((raised.exception.code, raised.exception.status), ("TG_RUN_NOT_FOUND", 404))

    def test_a_wrong_token_raises_authentication_error(self) -> None:
        stranger = TollgateClient(stack_url(), "not-a-token-of-this-server")
        with self.assertRaises(AuthenticationError) as raised:
            stranger.runs.list()
        self.assertEqual((raised.exception.code, raised.exception.status), ("TG_UNAUTHORIZED", 401))

    def test_an_idempotency_key_reused_for_another_request_raises_conflict(self) -> None:
        key = unique("ticket")
        user_id = unique("u-errors")
        self.client.runs.create(script(text("One.")), user_id=user_id, idempotency_key=key)
        with self.assertRaises(ConflictError) as raised:
            self.client.runs.create(script(text("Another.")), user_id=user_id, idempotency_key=key)
        self.assertEqual((raised.exception.code, raised.exception.status), ("TG_IDEMPOTENCY_CONFLICT", 409))

    def test_a_server_that_does_not_answer_raises_a_connection_error(self) -> None:
        # A port that was free a moment ago: nothing listens there.
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        unreachable = TollgateClient(f"http://127.0.0.1:{port}", "token", timeout=5)
        with self.assertRaises(TollgateConnectionError) as raised:
            unreachable.runs.get("run_x")
        self.assertIsNone(raised.exception.status)
        self.assertIsNone(raised.exception.code)


if __name__ == "__main__":
    unittest.main()
