"""Schema constraints and relational preconditions in words, for people reading the catalogue."""

from __future__ import annotations

from typing import Any

from axag.compile.serialize import dumps_compact


def value_text(value: Any) -> str:
    """A JSON value as it is written in JSON (strings quoted), for showing it inline."""
    try:
        return dumps_compact(value)
    except (TypeError, ValueError):
        return repr(value)


def type_text(schema: dict[str, Any]) -> str:
    t = schema.get("type")
    if isinstance(t, list):
        return " or ".join(str(x) for x in t)
    if isinstance(t, str):
        if t == "array" and isinstance(schema.get("items"), dict):
            return f"array of {type_text(schema['items'])}"
        return t
    if "const" in schema:
        return "constant"
    return "any"


def _range(low: Any, high: Any, what: str, unit: str) -> list[str]:
    if low is not None and high is not None:
        return [f"{what} {value_text(low)} to {value_text(high)}{unit}"]
    if low is not None:
        return [f"{what} at least {value_text(low)}{unit}"]
    if high is not None:
        return [f"{what} at most {value_text(high)}{unit}"]
    return []


def constraints(schema: Any) -> list[str]:
    """Every constraint of a property schema as a short phrase, in the key order of the property schema."""
    if not isinstance(schema, dict):
        return []
    out: list[str] = []
    if "format" in schema:
        out.append(f"format {schema['format']}")
    if isinstance(schema.get("enum"), list):
        out.append("one of " + ", ".join(value_text(v) for v in schema["enum"]))
    if "const" in schema:
        out.append(f"always {value_text(schema['const'])}")
    if "default" in schema:
        out.append(f"default {value_text(schema['default'])}")
    if isinstance(schema.get("examples"), list):
        out.append("for example " + ", ".join(value_text(v) for v in schema["examples"]))
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        out.append(f"from {value_text(low)} to {value_text(high)}")
    elif low is not None:
        out.append(f"at least {value_text(low)}")
    elif high is not None:
        out.append(f"at most {value_text(high)}")
    if schema.get("exclusiveMinimum") is not None:
        out.append(f"greater than {value_text(schema['exclusiveMinimum'])}")
    if schema.get("exclusiveMaximum") is not None:
        out.append(f"less than {value_text(schema['exclusiveMaximum'])}")
    if schema.get("multipleOf") is not None:
        out.append(f"a multiple of {value_text(schema['multipleOf'])}")
    out += _range(schema.get("minLength"), schema.get("maxLength"), "length", " characters")
    if "pattern" in schema:
        out.append(f"matches the pattern {schema['pattern']}")
    items = schema.get("items")
    if isinstance(items, dict):
        inner = constraints(items)
        if inner:
            out.append("each item: " + "; ".join(inner))
    out += _range(schema.get("minItems"), schema.get("maxItems"), "", " items")
    if schema.get("uniqueItems") is True:
        out.append("no duplicate items")
    props = schema.get("properties")
    if isinstance(props, dict):
        required = schema["required"] if isinstance(schema.get("required"), list) else []
        fields = [f"{k} ({type_text(v) if isinstance(v, dict) else 'any'}{', required' if k in required else ''})"
                  for k, v in props.items()]
        out.append("fields: " + (", ".join(fields) if fields else "none"))
    return [x.strip() for x in out]


_ORDER_WORDS = {
    # form: (words for strings (dates, times), words for numbers)
    "greater_than": ("must be after", "must be greater than"),
    "greater_than_or_equal": ("must be on or after", "must be at least"),
    "less_than": ("must be before", "must be less than"),
    "less_than_or_equal": ("must be on or before", "must be at most"),
    "equal": ("must equal", "must equal"),
    "not_equal": ("must differ from", "must differ from"),
}


def _names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def precondition_text(item: Any, properties: dict[str, Any]) -> str:
    """A relational precondition (relational output object) in words; a state precondition is its text."""
    if not isinstance(item, dict):
        return value_text(item)
    text = str(item.get("text", ""))
    form = item.get("form")
    params = [str(p) for p in item.get("params", []) if isinstance(p, str)] if isinstance(item.get("params"),
                                                                                         list) else []
    if item.get("kind") != "relational" or not isinstance(form, str) or not params:
        return text
    has_value = "value" in item
    other = value_text(item["value"]) if has_value else (params[1] if len(params) > 1 else "")
    a = params[0]
    if form in _ORDER_WORDS:
        prop = properties.get(a)
        is_string = isinstance(prop, dict) and prop.get("type") == "string"
        words = _ORDER_WORDS[form][0 if is_string else 1]
        return f"{a} {words} {other}, when both are given" if not has_value else f"{a} {words} {other}, when given"
    if form == "requires" and len(params) > 1:
        return f"when {a} is given, {params[1]} must be given too"
    if form == "mutually_exclusive" and len(params) > 1:
        return f"{a} and {params[1]} cannot both be given"
    if form == "exactly_one_of":
        return f"exactly one of {_names(params)} must be given"
    if form == "at_least_one_of":
        return f"at least one of {_names(params)} must be given"
    if form == "required_when_equal" and len(params) > 1 and has_value:
        return f"{a} is required when {params[1]} is {other}"
    if form == "required_when_present" and len(params) > 1:
        return f"{a} is required when {params[1]} is given"
    return text
