"""Kubernetes resource quantities (``250m``, ``512Mi``, ``1e3``), parsed exactly.

Used by the compiler's quota arithmetic, by ``plan``'s bill and by the CEL ``quantity()``
function, so there is one parser. Values are Fractions: no float rounding in sums.
"""

from __future__ import annotations

import re
from fractions import Fraction

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_QUANTITY = re.compile(
    r"^(?P<sign>[+-]?)(?P<number>[0-9]+(\.[0-9]*)?|\.[0-9]+)"
    r"(?:(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE](?P<exp>[+-]?[0-9]+))?$"
)


_AS_KUBERNETES = re.compile(
    r"^(?P<sign>[+-]?)(?P<number>[0-9]*(\.[0-9]*)?)"
    r"(?:(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE](?P<exp>[+-]?[0-9]+))?$"
)
"""What ``resource.ParseQuantity`` takes: the number may be empty (``.``, ``-``, ``Ki`` and
``+.m`` are all zero there; the empty text is not), and nothing around it is trimmed
(``' 1'`` is not a quantity)."""


class QuantityError(ValueError):
    """Not a Kubernetes quantity."""


def parse_quantity(text: str | int | float, *, as_kubernetes: bool = False) -> Fraction:
    """The exact value of a quantity; raises QuantityError with the accepted forms.
    ``as_kubernetes``: exactly the texts Kubernetes' parser takes (CEL's ``quantity()`` and
    ``isQuantity()``), up to the same bounds (64 characters, an exponent within 30)."""
    if isinstance(text, bool):
        raise QuantityError(f"{text!r} is not a quantity")
    if isinstance(text, int | float):
        return Fraction(text)
    match = None
    if isinstance(text, str) and text:
        pattern = _AS_KUBERNETES if as_kubernetes else _QUANTITY
        match = pattern.fullmatch(text if as_kubernetes else text.strip())
    if match is None or len(text) > 64:
        raise QuantityError(f"{text!r} is not a quantity (examples: 250m, 1, 1.5, 512Mi, 2Gi, 1e3)")
    value = Fraction(match["number"]) if match["number"].strip(".") else Fraction(0)
    if match["exp"] is not None:
        exponent = int(match["exp"])
        if abs(exponent) > 30:
            raise QuantityError(f"{text!r}: exponent out of range")
        value *= Fraction(10) ** exponent
    else:
        suffix = match["suffix"] or ""
        value *= _BINARY.get(suffix) or _DECIMAL[suffix]
    return -value if match["sign"] == "-" else value


def format_cpu(cores: Fraction) -> str:
    """Cores as Kubernetes writes them: whole cores plainly, otherwise millicores."""
    if cores.denominator == 1:
        return str(cores.numerator)
    milli = cores * 1000
    return f"{round(milli)}m" if milli.denominator == 1 else f"{float(cores):.3f}"


def format_memory(size: Fraction) -> str:
    """Bytes in the largest binary unit that divides them exactly (``40Gi``, ``1536Mi``)."""
    for suffix, factor in sorted(_BINARY.items(), key=lambda kv: -kv[1]):
        if size and (size / factor).denominator == 1:
            return f"{size / factor}{suffix}"
    return str(round(size))
