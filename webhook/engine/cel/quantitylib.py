"""Kubernetes' Quantity as it is held, not only its value (apimachinery v0.34.3
pkg/api/resource: quantity.go, amount.go, math.go; gopkg.in/inf.v0 for the big form).

A Quantity is an ``int64Amount`` (an int64 and a power of ten) or an ``inf.Dec`` (a big integer
and a power of ten), and what CEL's ``isInteger``, ``asInteger`` and ``asApproximateFloat``
answer depends on which, not on the value alone:

- ``ParseQuantity`` keeps the int64 form when the digits fit (``1000m`` is 1000 x 10^-3,
  ``1.0`` is 10 x 10^-1, ``1Ki`` is 1024 x 10^0), else the big form rounded up to a nano
  (``0.1n`` is 1n) and, for a binary suffix, capped at the largest int64;
- ``Add`` and ``Sub`` stay in the int64 form while the sum fits at the smaller power, else the
  big one (``quantity('0').sub(quantity('1Ei'))`` is whole and big);
- ``AsInt64`` (``isInteger``/``asInteger``) succeeds only for the int64 form with a power of
  zero or more that still fits: ``1000m``, ``1.0`` and ``9223372036854775807`` (19 digits:
  parsed big) are not integers there;
- ``AsApproximateFloat64`` multiplies the float of the digits by Go's ``math.Pow10``
  (``0.3`` is 3 x 0.1 = 0.30000000000000004).

cel-go hands the library a pointer, and Kubernetes' ``Cmp`` and ``Add`` change the Quantity
they are called on to the big form (``AsDec``) or write into its big value: ``library.Quantity``
holds a Quantity that way (a value read twice answers as in Kubernetes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
_NANO = -9
_MAX_INT64_FACTORS = 18
_DECIMAL = {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}


class FormError(ValueError):
    """A text ``ParseQuantity`` refuses."""


@dataclass(frozen=True)
class Form:
    """How Kubernetes holds a Quantity: ``digits`` x 10^``power``, as an int64Amount
    (``big`` false: digits within int64) or an inf.Dec."""

    big: bool
    digits: int
    power: int

    @property
    def value(self) -> Fraction:
        """digits x 10^power, made once per Form (a parsed text's Form is shared: a request's
        rules and its quota read the same few quantities again and again)."""
        found: Fraction | None = self.__dict__.get("_value")
        if found is None:  # no lock: two threads making it make equal immutable Fractions
            found = Fraction(self.digits) * Fraction(10) ** self.power
            self.__dict__["_value"] = found
        return found


def _fits(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """``parseQuantityString``: sign, the number's text, numerator, denominator, suffix."""
    positive, pos, end = True, 0, len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] != "-"
        pos += 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos].isdigit():
        pos += 1
    if pos >= end:
        return positive, text, text[start:], "", ""
    numerator = text[start:pos] or "0"
    denominator = ""
    if text[pos] == ".":
        pos += 1
        begin = pos
        while pos < end and text[pos].isdigit():
            pos += 1
        denominator = text[begin:pos]
        if pos >= end:
            return positive, text, numerator, denominator, ""
    return positive, text[:pos], numerator, denominator, text[pos:]


def _suffix(suffix: str) -> tuple[int, int]:
    """``interpret``: (base, exponent)."""
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix]
    if suffix in _BINARY:
        return 2, _BINARY[suffix]
    if len(suffix) > 1 and suffix[0] in "eE":
        try:
            exponent = int(suffix[1:])
        except ValueError:
            raise FormError(suffix) from None
        if not _fits(exponent) or not suffix[1:].lstrip("+-").isdigit():
            raise FormError(suffix)
        return 10, (exponent + 2**31) % 2**32 - 2**31  # Go's int32(parsed)
    raise FormError(suffix)


def _scan(value: str) -> tuple[int, int]:
    """inf.Dec's ``SetString``: (unscaled, digits after the point)."""
    body = value.lstrip("+-")
    if len(value) - len(body) > 1 or not any(c.isdigit() for c in body):
        raise FormError(value)
    whole, point, fraction = body.partition(".")
    digits = int((whole + fraction) or "0")
    return (-digits if value.startswith("-") else digits), len(fraction) if point else 0


def parse(text: str) -> Form:
    """``resource.ParseQuantity``'s form of a text it accepts."""
    if text == "0":
        return Form(False, 0, 0)
    positive, value, numerator, denominator, suffix = _split(text)
    base, exponent = _suffix(suffix)
    precision, scale, mantissa = 0, 0, 1
    if base == 10:
        scale = exponent
        precision = _MAX_INT64_FACTORS - (len(numerator) + len(denominator))
    elif exponent >= 0 and not denominator:
        mantissa = 1 << exponent
        precision = 15 - len(numerator) - int(exponent * 3 / 10) - 1
    else:
        precision = -1
    if precision >= 0:
        scale -= len(denominator)
        if scale >= _NANO:
            shifted = int(numerator + denominator)
            if _fits(shifted) and _fits(shifted * mantissa):
                return Form(False, shifted * mantissa if positive else -shifted * mantissa, scale)
    unscaled, places = _scan(value)
    power = -places
    if base == 10:
        power += exponent
    else:
        unscaled <<= exponent
    negative = unscaled < 0
    amount = abs(unscaled)
    if amount != 0:  # rounded up to a nano: "if you want some resources, you should get some"
        shift = power - _NANO
        amount = amount * 10**shift if shift >= 0 else -(-amount // 10**-shift)
        power = _NANO
        if base == 2 and Fraction(amount) * Fraction(10) ** power > INT64_MAX:
            amount, power = INT64_MAX, 0
    return Form(True, -amount if negative else amount, power)


def _add_small(a: Form, b: Form) -> Form | None:
    """``int64Amount.Add``: the sum at the smaller power, or None where it leaves int64."""
    if b.digits == 0:
        return a
    if a.digits == 0:
        return b
    low = min(a.power, b.power)
    total = a.digits * 10 ** (a.power - low) + b.digits * 10 ** (b.power - low)
    if not (_fits(a.digits * 10 ** (a.power - low)) and _fits(b.digits * 10 ** (b.power - low))):
        return None
    return Form(False, total, low) if _fits(total) else None


def _add_big(a: Form, b: Form) -> Form:
    """inf.Dec's ``Add``: the sum at the larger scale (the smaller power of ten)."""
    low = min(a.power, b.power)
    return Form(True, a.digits * 10 ** (a.power - low) + b.digits * 10 ** (b.power - low), low)


def add(a: Form, b: Form) -> Form:
    """``Quantity.Add``."""
    if not a.big and not b.big:
        summed = _add_small(a, b)
        if summed is not None:
            return summed
    return _add_big(a, b)


def sub(a: Form, b: Form) -> Form:
    """``Quantity.Sub``: ``int64Amount.Add`` of the negated digits (Go's ``-x`` of the least
    int64 is itself)."""
    if not a.big and not b.big:
        negated = -b.digits if b.digits != INT64_MIN else INT64_MIN
        summed = _add_small(a, Form(False, negated, b.power))
        if summed is not None:
            return summed
    return _add_big(a, Form(b.big, -b.digits, b.power))


def of_int(value: int) -> Form:
    """``resource.NewQuantity(value, DecimalExponent)``."""
    return Form(False, value, 0)


def as_int64(form: Form) -> int | None:
    """``Quantity.AsInt64``: the int64 form at a power of zero or more that fits, else None."""
    if form.big or form.power < 0:
        return None
    value = form.digits * 10**form.power
    return value if _fits(value) else None


_POW10 = [float(f"1e{n}") for n in range(32)]
_POW10_POS32 = [float(f"1e{n}") for n in range(0, 309, 32)]
_POW10_NEG32 = [float(f"1e-{n}") for n in range(0, 321, 32)]


def pow10(n: int) -> float:
    """Go's ``math.Pow10``: two table entries multiplied or divided (not always 10**n
    rounded once)."""
    if 0 <= n <= 308:
        return _POW10_POS32[n // 32] * _POW10[n % 32]
    if -323 <= n <= 0:
        return _POW10_NEG32[-n // 32] / _POW10[-n % 32]
    return math.inf if n > 0 else 0.0


def approximate_float(form: Form) -> float:
    """``Quantity.AsApproximateFloat64``."""
    try:
        base = float(form.digits)
    except OverflowError:
        base = math.copysign(math.inf, form.digits)
    if form.power == 0:
        return base
    return base * pow10(form.power)
