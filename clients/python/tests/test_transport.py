"""Which refusals the client sends again, against a local server that answers from a list (a 503 cannot be
had from the real API without taking its Redis away), and how it reads answers that are not Tollgate's."""

from __future__ import annotations

import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, Tuple

from tollgate import (
    RateLimitedError,
    RetryAttempt,
    RetryPolicy,
    ServerError,
    ServiceUnavailableError,
    TollgateClient,
)

#: status, headers, body
Answer = Tuple[int, Dict[str, str], bytes]


def envelope(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


unavailable: Answer = (503, {"content-type": "application/json"}, envelope("TG_REDIS_UNAVAILABLE", "down"))
run_json = json.dumps(
    {
        "runId": "run_1",
        "threadId": "thread_1",
        "status": "queued",
        "phase": "model",
        "steps": 0,
        "createdAt": 1,
        "pendingApprovals": [],
        "userId": "u-1",
        "input": "hi",
    }
).encode()


class ScriptedServer:
    """Answers each request with the next answer of its list; records method, path and headers."""

    def __init__(self, answers: List[Answer]) -> None:
        self.answers = list(answers)
        self.requests: List[Tuple[str, str, Dict[str, str]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                if length:
                    self.rfile.read(length)
                server.requests.append(
                    (self.command, self.path, {k.lower(): v for k, v in self.headers.items()})
                )
                status, headers, body = server.answers.pop(0)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = answer
            do_POST = answer

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._http.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}"

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()


class TransportTest(unittest.TestCase):
    def serve(self, answers: List[Answer]) -> ScriptedServer:
        server = ScriptedServer(answers)
        self.addCleanup(server.close)
        return server

    def test_a_get_answered_503_is_sent_again_after_its_retry_after(self) -> None:
        server = self.serve(
            [
                (
                    503,
                    {"retry-after": "0", "content-type": "application/json"},
                    envelope("TG_REDIS_UNAVAILABLE", "x"),
                ),
                unavailable,
                (200, {"content-type": "application/json"}, run_json),
            ]
        )
        attempts: List[RetryAttempt] = []
        policy = RetryPolicy(max_retries=3, backoff_initial=0.01, on_retry=attempts.append)
        run = TollgateClient(server.url, "token", retry=policy).runs.get("run_1")
        self.assertEqual(run.run_id, "run_1")
        self.assertEqual(len(server.requests), 3)
        # The first wait is the Retry-After (0 s); the second answer had none: the backoff.
        self.assertEqual([attempt.delay for attempt in attempts], [0.0, 0.02])
        self.assertEqual([attempt.error.code for attempt in attempts], ["TG_REDIS_UNAVAILABLE"] * 2)

    def test_retries_stop_at_max_retries(self) -> None:
        server = self.serve([unavailable] * 3)
        client = TollgateClient(server.url, "token", retry=RetryPolicy(max_retries=2, backoff_initial=0))
        with self.assertRaises(ServiceUnavailableError) as raised:
            client.runs.get("run_1")
        self.assertEqual(raised.exception.code, "TG_REDIS_UNAVAILABLE")
        self.assertEqual(len(server.requests), 3)

    def test_a_post_without_an_idempotency_key_answered_503_is_not_sent_again(self) -> None:
        server = self.serve([unavailable])
        client = TollgateClient(server.url, "token", retry=RetryPolicy(backoff_initial=0))
        with self.assertRaises(ServiceUnavailableError):
            client.runs.cancel("run_1")
        self.assertEqual(len(server.requests), 1)

    def test_a_create_answered_503_is_sent_again_with_the_same_idempotency_key(self) -> None:
        created = json.dumps(
            {"runId": "run_1", "threadId": "t", "status": "queued", "created": True}
        ).encode()
        server = self.serve([unavailable, (202, {"content-type": "application/json"}, created)])
        client = TollgateClient(server.url, "token", retry=RetryPolicy(backoff_initial=0))
        client.runs.create("hi", user_id="u-1")
        keys = [headers.get("idempotency-key") for _, _, headers in server.requests]
        self.assertEqual(len(keys), 2)
        self.assertTrue(keys[0])
        self.assertEqual(keys[0], keys[1])

    def test_a_resume_answered_503_is_sent_again(self) -> None:
        # A run is resumed once (the resume's id derives from the run's): sending it again does it once.
        resumed = json.dumps(
            {"runId": "run_2", "threadId": "t", "status": "queued", "created": False, "resumeOf": "run_1"}
        ).encode()
        server = self.serve([unavailable, (202, {"content-type": "application/json"}, resumed)])
        client = TollgateClient(server.url, "token", retry=RetryPolicy(backoff_initial=0))
        self.assertEqual(client.runs.resume("run_1").resume_of, "run_1")
        self.assertEqual(
            [(method, path) for method, path, _ in server.requests], [("POST", "/v1/runs/run_1/resume")] * 2
        )

    def test_a_retry_after_longer_than_max_delay_is_raised_at_once(self) -> None:
        server = self.serve(
            [
                (
                    429,
                    {"retry-after": "120", "content-type": "application/json"},
                    envelope("TG_RATE_LIMITED", "slow"),
                )
            ]
        )
        client = TollgateClient(server.url, "token", retry=RetryPolicy(max_delay=1))
        with self.assertRaises(RateLimitedError) as raised:
            client.runs.get("run_1")
        self.assertEqual(raised.exception.retry_after, 120.0)
        self.assertEqual(len(server.requests), 1)

    def test_an_answer_that_is_not_tollgates_keeps_its_status_without_a_code(self) -> None:
        server = self.serve([(502, {"content-type": "text/html"}, b"<html>Bad Gateway</html>")])
        with self.assertRaises(ServerError) as raised:
            TollgateClient(server.url, "token").runs.get("run_1")
        self.assertEqual((raised.exception.status, raised.exception.code), (502, None))

    def test_the_token_and_the_path_are_sent_as_they_should_be(self) -> None:
        server = self.serve([(200, {"content-type": "application/json"}, run_json)])
        TollgateClient(server.url + "/", "secret-token").runs.get("run/with?odd#chars")
        ((method, path, headers),) = server.requests
        self.assertEqual((method, path), ("GET", "/v1/runs/run%2Fwith%3Fodd%23chars"))
        self.assertEqual(headers["authorization"], "Bearer secret-token")
        self.assertTrue(headers["user-agent"].startswith("tollgate-python/"))


if __name__ == "__main__":
    unittest.main()
