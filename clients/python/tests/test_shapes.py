"""The client's shapes agree with the OpenAPI document the API serves (GET /v1/openapi.json).

For each request body and answer the client uses, its dataclass names every one of the schema's properties
(in camelCase), and no other unless optional (a field of another server version, such as one on an
approval read by GET only); a field is required exactly when the schema requires it, its type is of the
schema's kind, and a Literal lists the schema's enum; nested dataclasses are compared with the nested
schemas. The query parameters of the list methods are the operations' parameters. A field the API adds
fails here, naming the dataclass to extend (until then it reaches callers in ``extra``).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import inspect
import json
import unittest
import urllib.request
from typing import AbstractSet, Any, Dict, List, Literal, Mapping, Set, Union, get_args, get_origin

from support import stack_url

import tollgate
from tollgate.approvals import Approvals
from tollgate.decode import camel_case, is_required, json_name, model_fields, type_hints
from tollgate.errors import (
    InvalidRequestError,
    RerunRepeatsEffectsError,
    RunNotResumableError,
    error_class_for,
)
from tollgate.runs import Runs
from tollgate.schedules import Schedules

_document: Dict[str, Any] = {}


def document() -> Dict[str, Any]:
    if not _document:
        with urllib.request.urlopen(stack_url() + "/v1/openapi.json", timeout=30) as response:
            _document.update(json.load(response))
    return _document


def resolve(schema: Dict[str, Any]) -> Dict[str, Any]:
    reference = schema.get("$ref")
    if not reference:
        return schema
    node: Any = document()
    for part in reference.lstrip("#/").split("/"):
        node = node[part]
    return resolve(node)


def operation(path: str, method: str) -> Dict[str, Any]:
    return document()["paths"][path][method]


def answer_schema(path: str, method: str, status: str, media: str = "application/json") -> Dict[str, Any]:
    return resolve(operation(path, method)["responses"][status]["content"][media]["schema"])


def body_schema(path: str, method: str) -> Dict[str, Any]:
    return resolve(operation(path, method)["requestBody"]["content"]["application/json"]["schema"])


def kinds_of_schema(schema: Dict[str, Any]) -> Set[str]:
    """The Python kinds a value of the schema may be; ``any`` when it says nothing of its type."""
    schema = resolve(schema)
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return set().union(*(kinds_of_schema(option) for option in options))
    declared = schema.get("type")
    if declared is None:
        return {"any"}
    names = declared if isinstance(declared, list) else [declared]
    mapping = {"string": {"str"}, "integer": {"int"}, "number": {"float", "int"}, "boolean": {"bool"}}
    mapping.update({"array": {"list"}, "object": {"dict"}, "null": {"none"}})
    return set().union(*(mapping[name] for name in names))


def unwrap_optional(hint: Any) -> Any:
    if get_origin(hint) is Union:
        options = [option for option in get_args(hint) if option is not type(None)]
        return options[0] if len(options) == 1 else Union[tuple(options)]  # type: ignore[return-value]
    return hint


def kinds_of_hint(hint: Any) -> Set[str]:
    hint = unwrap_optional(hint)
    origin = get_origin(hint)
    if hint is Any:
        return {"any"}
    if origin is Union:
        return set().union(*(kinds_of_hint(option) for option in get_args(hint)))
    if origin is Literal:
        return {type(value).__name__ for value in get_args(hint)}
    if origin is list:
        return {"list"}
    if origin in (dict, collections.abc.Mapping) or hint in (dict, Mapping):
        return {"dict"}
    if dataclasses.is_dataclass(hint):
        return {"dict"}
    return {hint.__name__}


def nested_dataclass(hint: Any) -> Any:
    """The dataclass a field holds (itself, in a list, or in a union with its JSON), if any."""
    hint = unwrap_optional(hint)
    if get_origin(hint) is Union:
        found = [nested_dataclass(option) for option in get_args(hint)]
        found = [candidate for candidate in found if candidate is not None]
        return found[0] if found else None
    if get_origin(hint) is list:
        return nested_dataclass(get_args(hint)[0])
    return hint if dataclasses.is_dataclass(hint) else None


def nested_object_schema(schema: Dict[str, Any]) -> Dict[str, Any]:
    schema = resolve(schema)
    if schema.get("type") == "array":
        return nested_object_schema(schema["items"])
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        objects = [resolve(option) for option in options if "properties" in resolve(option)]
        return objects[0] if objects else schema
    return schema


def disagreements(cls: type, schema: Dict[str, Any], where: str) -> List[str]:
    """Every way the dataclass differs from the object schema, and from its nested schemas."""
    schema = resolve(schema)
    properties: Dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    hints = type_hints(cls)
    found: List[str] = []
    names = {json_name(field): field for field in model_fields(cls)}
    for missing in sorted(set(properties) - set(names)):
        found.append(f"{where}: {cls.__name__} lacks {missing!r} (the document has it)")
    for unknown in sorted(set(names) - set(properties)):
        # An optional field the document lacks is one a server of another version answers (None here).
        if is_required(names[unknown]):
            found.append(
                f"{where}: {cls.__name__}.{names[unknown].name} is required, and not in the document"
            )
    for key in sorted(set(properties) & set(names)):
        field = names[key]
        hint = hints[field.name]
        place = f"{where}.{key}"
        property_schema = resolve(properties[key])
        if is_required(field) != (key in required):
            wanted, has = key in required, is_required(field)
            found.append(f"{place}: required: {wanted} in the document, {has} in {cls.__name__}")
        schema_kinds, hint_kinds = kinds_of_schema(property_schema), kinds_of_hint(hint)
        if "any" not in schema_kinds and not hint_kinds <= schema_kinds | {"none"}:
            found.append(
                f"{place}: {cls.__name__}.{field.name} is {sorted(hint_kinds)}, not {sorted(schema_kinds)}"
            )
        literal = unwrap_optional(hint)
        if get_origin(literal) is Literal and set(get_args(literal)) != set(property_schema.get("enum", [])):
            found.append(
                f"{place}: {cls.__name__}.{field.name} lists {sorted(get_args(literal))}, "
                f"the document {sorted(property_schema.get('enum', []))}"
            )
        inner = nested_dataclass(hint)
        if inner is not None:
            found.extend(disagreements(inner, nested_object_schema(property_schema), place))
    return found


#: (dataclass, where its schema is): every answer the client reads.
answers = [
    (tollgate.EnqueuedRun, ("/v1/runs", "post", "202")),
    (tollgate.RunPage, ("/v1/runs", "get", "200")),
    (tollgate.Run, ("/v1/runs/{runId}", "get", "200")),
    (tollgate.RunResponse, ("/v1/ask", "post", "200")),
    (tollgate.RerunResult, ("/v1/runs/{runId}/rerun", "post", "202")),
    (tollgate.ResumeResult, ("/v1/runs/{runId}/resume", "post", "202")),
    (tollgate.ForkResult, ("/v1/runs/{runId}/fork", "post", "202")),
    (tollgate.CancelResult, ("/v1/runs/{runId}/cancel", "post", "202")),
    (tollgate.ApprovalPage, ("/v1/approvals", "get", "200")),
    (tollgate.Approval, ("/v1/approvals/{approvalId}", "get", "200")),
    (tollgate.Approval, ("/v1/approvals/{approvalId}/approve", "post", "200")),
    (tollgate.Approval, ("/v1/approvals/{approvalId}/reject", "post", "200")),
    (tollgate.Schedule, ("/v1/schedules", "post", "201")),
    (tollgate.SchedulePage, ("/v1/schedules", "get", "200")),
    (tollgate.Schedule, ("/v1/schedules/{scheduleId}", "get", "200")),
    (tollgate.Schedule, ("/v1/schedules/{scheduleId}/pause", "post", "200")),
    (tollgate.Schedule, ("/v1/schedules/{scheduleId}/resume", "post", "200")),
    (tollgate.ScheduleDeleted, ("/v1/schedules/{scheduleId}", "delete", "200")),
]

#: (dataclass, operation): every body the client sends.
bodies = [
    (tollgate.RunRequest, ("/v1/runs", "post")),
    (tollgate.RunRequest, ("/v1/ask", "post")),
    (tollgate.RerunRequest, ("/v1/runs/{runId}/rerun", "post")),
    (tollgate.ForkRequest, ("/v1/runs/{runId}/fork", "post")),
    (tollgate.ApproveRequest, ("/v1/approvals/{approvalId}/approve", "post")),
    (tollgate.RejectRequest, ("/v1/approvals/{approvalId}/reject", "post")),
    (tollgate.ScheduleRequest, ("/v1/schedules", "post")),
]

#: (method, operation): the list methods, whose keyword arguments are the query's parameters.
listings = [
    (Runs.list, ("/v1/runs", "get")),
    (Approvals.list, ("/v1/approvals", "get")),
    (Schedules.list, ("/v1/schedules", "get")),
]


def keyword_names(method: Any, leave_out: AbstractSet[str] = frozenset()) -> Set[str]:
    parameters = inspect.signature(method).parameters.values()
    return {
        parameter.name
        for parameter in parameters
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and parameter.name not in leave_out
    }


class ShapesTest(unittest.TestCase):
    def test_answers_agree_with_the_document(self) -> None:
        for cls, (path, method, status) in answers:
            with self.subTest(f"{method.upper()} {path} {status}"):
                self.assertEqual(
                    disagreements(cls, answer_schema(path, method, status), f"{method} {path}"), []
                )

    def test_request_bodies_agree_with_the_document(self) -> None:
        for cls, (path, method) in bodies:
            with self.subTest(f"{method.upper()} {path}"):
                self.assertEqual(disagreements(cls, body_schema(path, method), f"{method} {path} body"), [])

    def test_run_events_agree_with_the_event_stream_the_document_describes(self) -> None:
        stream = answer_schema("/v1/runs/{runId}/events", "get", "200", "text/event-stream")
        self.assertEqual(set(stream["required"]), {"id", "event", "data"})
        data = stream["properties"]["data"]
        self.assertEqual(data["contentMediaType"], "application/json")
        self.assertEqual(disagreements(tollgate.RunEvent, data["contentSchema"], "RunEvent"), [])

    def test_the_list_methods_take_the_operations_query_parameters(self) -> None:
        for method, (path, verb) in listings:
            with self.subTest(f"{verb.upper()} {path}"):
                parameters = {parameter["name"] for parameter in operation(path, verb)["parameters"]}
                self.assertEqual({camel_case(name) for name in keyword_names(method)}, parameters)

    def test_create_and_ask_take_every_field_of_a_run_request(self) -> None:
        fields = {field.name for field in model_fields(tollgate.RunRequest)} - {"input"}
        for method in (Runs.create, tollgate.TollgateClient.ask):
            with self.subTest(method.__qualname__):
                self.assertEqual(keyword_names(method, {"user_id", "idempotency_key"}), fields)
        for path in ("/v1/runs", "/v1/ask"):
            headers = {parameter["name"] for parameter in operation(path, "post")["parameters"]}
            self.assertIn("idempotency-key", headers)

    def test_error_answers_carry_the_envelope_the_client_reads(self) -> None:
        envelope = resolve(document()["components"]["schemas"]["ErrorResponse"])
        error = envelope["properties"]["error"]
        self.assertEqual(set(error["required"]), {"code", "message"})
        self.assertIn("details", error["properties"])
        self.assertIn("issues", error["properties"]["details"]["properties"])
        codes = error["properties"]["code"]["enum"]
        self.assertTrue(codes and all(code.startswith("TG_") for code in codes))
        # The codes with a class of their own are the server's, and choose it under their status.
        for status, code, cls in [
            (422, "TG_INVALID_REQUEST", InvalidRequestError),
            (409, "TG_RERUN_REPEATS_EFFECTS", RerunRepeatsEffectsError),
            (409, "TG_RUN_NOT_RESUMABLE", RunNotResumableError),
        ]:
            with self.subTest(code):
                self.assertIn(code, codes)
                self.assertIs(error_class_for(status, code), cls)


if __name__ == "__main__":
    unittest.main()
