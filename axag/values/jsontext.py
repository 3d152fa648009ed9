"""JSON values and their canonical text (canonical numbers): `is_number`, `canonical_number`, `normalise`,
`dumps_compact` (values inside messages, descriptions and fixes) and `dumps_canonical` (the guard fingerprint
form). A leaf module (standard library only) shared by the model, `axag.compile.validate` and
`axag.compile.serialize`, which writes whole documents with it. (The guard runtime, `axag.values.pyruntime`, is
copied verbatim into generated code and keeps its own copies.)"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = ["canonical_number", "dumps_canonical", "dumps_compact", "escape_surrogates", "is_number", "normalise"]

_SAFE_INTEGER = 2**53
_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """Lone surrogates cannot be encoded as UTF-8; JSON writes them as ``\\uXXXX`` escapes."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def is_number(value: object) -> bool:
    """A finite JSON number: an ``int`` or a finite ``float``, never a ``bool``."""
    return not isinstance(value, bool) and (isinstance(value, int) or (isinstance(value, float)
                                                                          and math.isfinite(value)))


def canonical_number(x: float) -> str:
    """The canonical text of a JSON number.

    An integral value of magnitude below 2^53 is written without fraction or exponent (``10.0`` -> ``10``,
    ``-0.0`` -> ``0``); Python integers are written exactly, however big; every other float uses the shortest
    round-tripping form (``repr``). Booleans and non-finite values are rejected.
    """
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"not a JSON number: {x!r}")
    if isinstance(x, int):
        return str(int(x))
    if not math.isfinite(x):
        raise ValueError(f"non-finite number cannot be serialised: {x!r}")
    if x.is_integer() and abs(x) < _SAFE_INTEGER:
        return str(int(x))
    return repr(float(x))


def normalise(value: Any) -> Any:
    """A copy of `value` with every float replaced by its canonical number.

    Integral floats below 2^53 become ``int``; other floats stay floats (``json`` writes them with ``repr``).
    Tuples become lists. Raises ``TypeError`` for anything that is not JSON data (including non-string keys)
    and ``ValueError`` for non-finite numbers.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"non-finite number cannot be serialised: {value!r}")
        if value.is_integer() and abs(value) < _SAFE_INTEGER:
            return int(value)
        return float(value)
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"JSON object keys must be strings, not {key!r}")
            out[key] = normalise(item)
        return out
    if isinstance(value, (list, tuple)):
        return [normalise(item) for item in value]
    raise TypeError(f"not JSON data: {type(value).__name__}")


def dumps_compact(value: Any) -> str:
    """`value` on one line without spaces (``{"a":[1,2]}``), for messages, descriptions and fixes."""
    return escape_surrogates(json.dumps(normalise(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False))


def dumps_canonical(value: Any) -> str:
    """Canonical one-line JSON: keys sorted by code point, ``,``/``:``, non-ASCII escaped (``\\uXXXX``), numbers
    in canonical form (the form of the guard fingerprint, the guards' Python API)."""
    return json.dumps(normalise(value), ensure_ascii=True, separators=(",", ":"), allow_nan=False, sort_keys=True)
