"""RFC 8785 JSON Canonicalization Scheme: the bytes receipts are signed over and logged as.

Numbers are written as ECMAScript's ``Number.prototype.toString`` writes them (the shortest
digits that read back to the same double), strings as ``JSON.stringify`` escapes them, and object
members sorted by the UTF-16 code units of their names.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _string(value: str) -> str:
    out = ['"']
    for char in value:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            # Control characters, and lone surrogates (JSON.stringify's well-formed output), as \u00xx.
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _number(value: float) -> str:
    if math.isnan(value) or math.isinf(value):
        raise ValueError("JSON has no NaN or Infinity")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    # repr() is the shortest decimal that reads back to the same double, as ECMAScript's.
    _, digit_tuple, exponent = Decimal(repr(abs(value))).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    assert isinstance(exponent, int)
    k = len(digits)
    n = exponent + len(digit_tuple)
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + text


def _utf16_key(name: str) -> bytes:
    return name.encode("utf-16-be", "surrogatepass")


def _write(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        # Every JSON number is a double to the other kits: integers past 2**53 are rounded as they are.
        out.append(str(value) if abs(value) < 2**53 else _number(float(value)))
    elif isinstance(value, float):
        out.append(_number(value))
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    elif isinstance(value, dict):
        out.append("{")
        for index, name in enumerate(sorted(value, key=_utf16_key)):
            if not isinstance(name, str):
                raise TypeError("JSON object names are strings")
            if index:
                out.append(",")
            out.append(_string(name))
            out.append(":")
            _write(value[name], out)
        out.append("}")
    else:
        raise TypeError(f"{type(value).__name__} is not JSON")


def canonicalize(value: Any) -> str:
    """The RFC 8785 canonical text of a JSON value (as parsed by ``json.loads``)."""
    out: list[str] = []
    _write(value, out)
    return "".join(out)


def canonical_bytes(value: Any) -> bytes:
    """UTF-8 of ``canonicalize(value)``."""
    return canonicalize(value).encode("utf-8", "surrogatepass")
