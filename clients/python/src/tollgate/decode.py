"""JSON to dataclasses and back: camelCase keys to snake_case fields, unknown keys kept in ``extra``.

A field's JSON name is its name in camelCase (``run_id`` is ``runId``), or ``metadata={"json": ...}``
when that is not it (``from_`` is ``from``). Every model has ``extra``: the keys of the answer the
model does not name (a field a newer server added), as they came. A request's ``extra`` is sent as it is,
over the fields.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any, Dict, List, Mapping, Tuple, Type, TypeVar, Union, get_args, get_origin, get_type_hints

from .errors import ResponseShapeError

if sys.version_info >= (3, 10):
    # `X | None` (PEP 604) is another union type than typing's; a caller's own models may use it.
    from types import UnionType

    _union_types: Tuple[Any, ...] = (Union, UnionType)
else:
    _union_types = (Union,)

T = TypeVar("T")

EXTRA = "extra"


def camel_case(name: str) -> str:
    """``run_id`` -> ``runId``; a name without ``_`` is left as it is (``userId`` stays)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def json_name(field: "dataclasses.Field[Any]") -> str:
    return str(field.metadata.get("json", camel_case(field.name)))


_hints_cache: Dict[type, Dict[str, Any]] = {}


def type_hints(cls: type) -> Dict[str, Any]:
    """The evaluated annotations of a dataclass (its module's names resolve them), cached."""
    hints = _hints_cache.get(cls)
    if hints is None:
        hints = get_type_hints(cls)
        _hints_cache[cls] = hints
    return hints


def model_fields(cls: type) -> List["dataclasses.Field[Any]"]:
    """The fields that map to JSON keys: every field but ``extra``."""
    return [field for field in dataclasses.fields(cls) if field.name != EXTRA]


def is_required(field: "dataclasses.Field[Any]") -> bool:
    return field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING


def from_json(cls: Type[T], data: Any) -> T:
    """A dataclass of ``cls`` from a decoded JSON object; ResponseShapeError when it does not fit."""
    if not isinstance(data, Mapping):
        raise ResponseShapeError(f"expected a JSON object for {cls.__name__}, got {type(data).__name__}")
    hints = type_hints(cls)
    values: Dict[str, Any] = {}
    known = set()
    for field in model_fields(cls):
        key = json_name(field)
        known.add(key)
        if key in data:
            values[field.name] = _convert(hints[field.name], data[key], f"{cls.__name__}.{key}")
        elif is_required(field):
            raise ResponseShapeError(f"{cls.__name__}: the answer has no {key!r}")
    extra = {key: value for key, value in data.items() if key not in known}
    return cls(**values, **{EXTRA: extra})


def _convert(hint: Any, value: Any, where: str) -> Any:
    if value is None:
        return None
    origin = get_origin(hint)
    if origin in _union_types:
        options = [option for option in get_args(hint) if option is not type(None)]
        return _convert(options[0], value, where) if len(options) == 1 else value
    if origin in (list, List):
        (item,) = get_args(hint) or (Any,)
        if not isinstance(value, list):
            raise ResponseShapeError(f"{where}: expected a list")
        return [_convert(item, entry, f"{where}[]") for entry in value]
    if origin in (dict, Dict):
        arguments = get_args(hint)
        item = arguments[1] if len(arguments) == 2 else Any
        if not isinstance(value, Mapping):
            raise ResponseShapeError(f"{where}: expected an object")
        return {key: _convert(item, entry, f"{where}.{key}") for key, entry in value.items()}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return from_json(hint, value)
    return value


def to_json(value: Any) -> Any:
    """A request dataclass (or anything holding one) as JSON-ready values; ``None`` fields are left out."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        body: Dict[str, Any] = {}
        for field in model_fields(type(value)):
            field_value = getattr(value, field.name)
            if field_value is not None:
                body[json_name(field)] = to_json(field_value)
        for key, extra_value in (getattr(value, EXTRA, None) or {}).items():
            body[key] = to_json(extra_value)
        return body
    if isinstance(value, Mapping):
        return {key: to_json(entry) for key, entry in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(entry) for entry in value]
    return value


def extra_fields(keywords: Mapping[str, Any]) -> Dict[str, Any]:
    """Keyword arguments a method does not name, as body fields (``new_field`` is ``newField``)."""
    return {camel_case(name): value for name, value in keywords.items()}
