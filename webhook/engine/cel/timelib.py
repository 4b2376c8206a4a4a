"""cel-go's durations and timestamps, nanosecond exact, for cel-python.

celpy keeps both as Python's ``timedelta`` and ``datetime``, in microseconds
(``duration('1ns')`` was 0) and with Python's ranges (a sum of durations past 292 years was a
value; cel-go's is an error). Here, as cel-go v0.26 (``common/types/duration.go``,
``timestamp.go``, ``overflow.go``) and Go's ``time`` package compute them:

- a ``Duration`` is an int64 of nanoseconds: arithmetic past it is an error (``duration
  overflow``); ``duration(string)`` is Go's ``time.ParseDuration``; ``string()`` writes the
  float64 seconds in Go's shortest fixed form (``0.000000001s``); ``int()`` the nanoseconds;
- a ``Timestamp`` is Unix seconds and nanoseconds within years 1..9999 (UTC) and the zone
  offset it was parsed with (``timestamp('2023-06-15T12:30:00+05:30')`` keeps ``+05:30``: its
  ``string()`` writes the time there, and a sum keeps it; a getter without a zone reads UTC);
  ``timestamp(string)`` is Go's RFC 3339 parse, ``string()`` Go's ``RFC3339Nano`` format;
- the getters take cel-go's zone argument: an IANA name (``zoneinfo``) or ``±hh:mm`` as
  ``strconv.Atoi`` reads its two parts.

Both subclass celpy's types (which the rest of the backend recognises), with their own
equality, order and arithmetic; a failure raises ``TimeError``.
"""

from __future__ import annotations

import datetime
import re
import zoneinfo
from decimal import Decimal
from typing import Any

from celpy import celtypes

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
SECOND = 1_000_000_000
MIN_UNIX, MAX_UNIX = -62135596800, 253402300799
"""cel-go's timestamp range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z."""
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


class TimeError(ValueError):
    """A duration or timestamp cel-go refuses: out of its range, or text it cannot parse."""


def _trunc_div(a: int, b: int) -> tuple[int, int]:
    """Go's ``a / b`` and ``a % b`` (truncated toward zero)."""
    quotient = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        quotient = -quotient
    return quotient, a - quotient * b


class Duration(celtypes.DurationType):
    """A cel-go duration: ``nanos``, an int64."""

    nanos: int

    def __new__(cls, nanos: int) -> Duration:
        if not INT64_MIN <= nanos <= INT64_MAX:
            raise TimeError("duration overflow")
        self = datetime.timedelta.__new__(cls, microseconds=nanos // 1000)
        self.nanos = nanos
        return self

    def __repr__(self) -> str:
        return f"Duration({self.nanos})"

    __str__ = __repr__

    def __hash__(self) -> int:
        return hash(("duration", self.nanos))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Duration) and self.nanos == other.nanos

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __lt__(self, other: Any) -> bool:
        return self.nanos < _duration(other).nanos

    def __le__(self, other: Any) -> bool:
        return self.nanos <= _duration(other).nanos

    def __gt__(self, other: Any) -> bool:
        return self.nanos > _duration(other).nanos

    def __ge__(self, other: Any) -> bool:
        return self.nanos >= _duration(other).nanos

    def __add__(self, other: Any) -> Any:
        return add(self, other)

    def __radd__(self, other: Any) -> Any:  # sum() of durations starts from timedelta(0)
        return add(_duration(other), self)

    def __sub__(self, other: Any) -> Any:
        return subtract(self, other)

    def __neg__(self) -> Duration:
        return Duration(-self.nanos)


def _duration(value: Any) -> Duration:
    if isinstance(value, Duration):
        return value
    if isinstance(value, datetime.timedelta):
        return Duration((value // datetime.timedelta(microseconds=1)) * 1000)
    raise TypeError(f"no such overload: a duration and a {type(value).__name__}")


class Timestamp(celtypes.TimestampType):
    """A cel-go timestamp: Unix ``seconds`` and ``nanos``, and the zone ``offset`` (seconds
    east of UTC) it is read in."""

    seconds: int
    nanos: int
    offset: int

    def __new__(cls, seconds: int, nanos: int = 0, offset: int = 0) -> Timestamp:
        if not MIN_UNIX <= seconds <= MAX_UNIX:
            raise TimeError("timestamp overflow")
        utc = _EPOCH + datetime.timedelta(seconds=seconds, microseconds=nanos // 1000)
        self = datetime.datetime.__new__(
            cls, *utc.timetuple()[:6], utc.microsecond, tzinfo=datetime.UTC
        )
        self.seconds, self.nanos, self.offset = seconds, nanos, offset
        return self

    def __repr__(self) -> str:
        return f"Timestamp({format_timestamp(self)!r})"

    __str__ = __repr__

    def _key(self) -> tuple[int, int]:
        return self.seconds, self.nanos

    def __hash__(self) -> int:
        return hash(("timestamp", self._key()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Timestamp) and self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __lt__(self, other: Any) -> bool:
        return self._key() < _timestamp(other)._key()

    def __le__(self, other: Any) -> bool:
        return self._key() <= _timestamp(other)._key()

    def __gt__(self, other: Any) -> bool:
        return self._key() > _timestamp(other)._key()

    def __ge__(self, other: Any) -> bool:
        return self._key() >= _timestamp(other)._key()

    def __add__(self, other: Any) -> Any:
        return add(self, other)

    def __radd__(self, other: Any) -> Any:
        return add(other, self)

    def __sub__(self, other: Any) -> Any:
        return subtract(self, other)


def _timestamp(value: Any) -> Timestamp:
    if isinstance(value, Timestamp):
        return value
    raise TypeError(f"no such overload: a timestamp and a {type(value).__name__}")


def _checked(value: int) -> int:
    if not INT64_MIN <= value <= INT64_MAX:
        raise TimeError("integer overflow")
    return value


def _plus(stamp: Timestamp, nanos: int) -> Timestamp:
    """cel-go's ``addTimeDurationChecked``: seconds and nanoseconds apart, the zone kept."""
    seconds, rest = _trunc_div(nanos, SECOND)
    total = _checked(stamp.seconds + seconds) * SECOND + stamp.nanos + rest
    return Timestamp(total // SECOND, total % SECOND, stamp.offset)


def add(a: Any, b: Any) -> Any:
    """``a + b``: two durations, or a timestamp and a duration (either order)."""
    if isinstance(a, Duration) and isinstance(b, Duration):
        return Duration(_sum(a.nanos, b.nanos, "duration overflow"))
    if isinstance(a, Timestamp) and isinstance(b, Duration):
        return _plus(a, b.nanos)
    if isinstance(a, Duration) and isinstance(b, Timestamp):
        return _plus(b, a.nanos)
    raise TypeError(f"no such overload: {type(a).__name__} + {type(b).__name__}")


def subtract(a: Any, b: Any) -> Any:
    """``a - b``: two durations, a timestamp less a duration, or two timestamps."""
    if isinstance(a, Duration) and isinstance(b, Duration):
        return Duration(_sum(a.nanos, -b.nanos, "duration overflow"))
    if isinstance(a, Timestamp) and isinstance(b, Duration):
        return _plus(a, negate(b).nanos)
    if isinstance(a, Timestamp) and isinstance(b, Timestamp):
        seconds = _checked(a.seconds - b.seconds)
        return Duration(_sum(_checked(seconds * SECOND), a.nanos - b.nanos, "integer overflow"))
    raise TypeError(f"no such overload: {type(a).__name__} - {type(b).__name__}")


def _sum(a: int, b: int, message: str) -> int:
    if not INT64_MIN <= a + b <= INT64_MAX:
        raise TimeError(message)
    return a + b


def negate(value: Duration) -> Duration:
    if value.nanos == INT64_MIN:
        raise TimeError("duration overflow")
    return Duration(-value.nanos)


# ---- conversions

_UNITS = {
    "ns": 1,
    "us": 1000,
    "µs": 1000,
    "μs": 1000,
    "ms": 1_000_000,
    "s": SECOND,
    "m": 60 * SECOND,
    "h": 3600 * SECOND,
}
_DIGITS = frozenset("0123456789")


def parse_duration(text: str) -> Duration:
    """Go's ``time.ParseDuration`` (``[-+]?([0-9]*(\\.[0-9]*)?[a-z]+)+``, int64 ns)."""
    invalid = TimeError(f"invalid duration {text!r}")
    data = text.encode()  # Go reads bytes
    negative = False
    if data[:1] in (b"-", b"+"):
        negative, data = data[:1] == b"-", data[1:]
    if data == b"0":
        return Duration(0)
    if not data:
        raise invalid
    total = 0
    while data:
        if not (data[:1] == b"." or data[:1].isdigit()):
            raise invalid
        whole, data, ok = _leading_int(data)
        if not ok:
            raise invalid
        pre = whole[1] > 0  # digits before a period
        fraction, scale, post = 0, 1.0, False
        if data[:1] == b".":
            fraction, scale, rest = _leading_fraction(data[1:])
            post, data = len(rest) != len(data) - 1, rest
        if not pre and not post:
            raise invalid
        end = next((i for i, c in enumerate(data) if c == 0x2E or 0x30 <= c <= 0x39), len(data))
        if end == 0:
            raise invalid
        unit = _UNITS.get(data[:end].decode(errors="replace"))
        data = data[end:]
        if unit is None:
            raise invalid
        value = whole[0]
        if value > (1 << 63) // unit:
            raise invalid
        value *= unit
        if fraction > 0:
            value += int(float(fraction) * (float(unit) / scale))
            if value > 1 << 63:
                raise invalid
        total = (total + value) % (1 << 64)
        if total > 1 << 63:
            raise invalid
    if negative:
        return Duration(-total if total < 1 << 63 else INT64_MIN)
    if total > INT64_MAX:
        raise invalid
    return Duration(total)


def _leading_int(data: bytes) -> tuple[tuple[int, int], bytes, bool]:
    """Go's ``leadingInt``: the value and how many digits, the rest, whether it fit."""
    value, count = 0, 0
    for byte in data:
        if not 0x30 <= byte <= 0x39:
            break
        if value > (1 << 63) // 10:
            return (0, 0), data, False
        value = value * 10 + byte - 0x30
        if value > 1 << 63:
            return (0, 0), data, False
        count += 1
    return (value, count), data[count:], True


def _leading_fraction(data: bytes) -> tuple[int, float, bytes]:
    """Go's ``leadingFraction``: digits past what fits are read and dropped."""
    value, scale, overflow, count = 0, 1.0, False, 0
    for byte in data:
        if not 0x30 <= byte <= 0x39:
            break
        count += 1
        if overflow:
            continue
        if value > INT64_MAX // 10:
            overflow = True
            continue
        bigger = value * 10 + byte - 0x30
        if bigger > 1 << 63:
            overflow = True
            continue
        value, scale = bigger, scale * 10
    return value, scale, data[count:]


_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))",
    re.ASCII,
)


def parse_timestamp(text: str) -> Timestamp:
    """Go's ``time.Parse(time.RFC3339, text)`` (its fallback reads a comma before the
    fraction too), then cel-go's range check."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        raise TimeError(f"invalid timestamp {text!r}")
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    fraction, zulu, sign, zone_hours, zone_minutes = match.groups()[6:]
    if not (
        1 <= month <= 12
        and 1 <= day <= _days_in(year, month)
        and hour <= 23
        and minute <= 59
        and second <= 59
        and (zulu or (int(zone_hours) <= 23 and int(zone_minutes) <= 59))
    ):
        raise TimeError(f"invalid timestamp {text!r}")
    nanos = int((fraction or "0")[:9].ljust(9, "0"))
    offset = 0 if zulu else (int(zone_hours) * 60 + int(zone_minutes)) * 60
    if sign == "-":
        offset = -offset
    local = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    return Timestamp(local - offset, nanos, offset)


def _days_in(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (any year)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    days += 719468
    era = days // 146097
    day_of_era = days - era * 146097
    year_of_era = (
        day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted + 2) // 5 + 1
    month = shifted + (3 if shifted < 10 else -9)
    return year_of_era + era * 400 + (month <= 2), month, day


def timestamp_of_seconds(seconds: int) -> Timestamp:
    """``timestamp(int)``: Unix seconds, UTC."""
    return Timestamp(seconds)


def go_seconds(nanos: int, unit: int) -> float:
    """Go's ``Duration.Hours()``, ``Minutes()``, ``Seconds()``: whole units plus the rest
    as float64 (``unit`` in nanoseconds)."""
    whole, rest = _trunc_div(nanos, unit)
    return float(whole) + float(rest) / float(unit)


def format_duration(value: Duration) -> str:
    """cel-go's ``string(duration)``: ``strconv.FormatFloat(d.Seconds(), 'f', -1, 64)``."""
    seconds = go_seconds(value.nanos, SECOND)
    if seconds == 0:
        return "0s"
    return format(Decimal(repr(seconds)).normalize(), "f") + "s"


def format_timestamp(value: Timestamp) -> str:
    """Go's ``Format(time.RFC3339Nano)`` in the timestamp's zone."""
    year, month, day, hour, minute, second, _, _, _ = _fields(value, value.offset)
    text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
    if value.nanos:
        text += "." + f"{value.nanos:09d}".rstrip("0")
    if value.offset == 0:
        return text + "Z"
    sign = "-" if value.offset < 0 else "+"
    minutes = abs(value.offset) // 60
    return f"{text}{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _fields(value: Timestamp, offset: int) -> tuple[int, int, int, int, int, int, int, int, int]:
    """Year, month, day, hour, minute, second, weekday (Sunday 0), day of year (0-based),
    milliseconds of the time ``offset`` seconds east of UTC."""
    local = value.seconds + offset
    days, of_day = divmod(local, 86400)
    year, month, day = _civil_from_days(days)
    return (
        year,
        month,
        day,
        of_day // 3600,
        of_day // 60 % 60,
        of_day % 60,
        (days + 4) % 7,
        days - _days_from_civil(year, 1, 1),
        value.nanos // 1_000_000,
    )


_GREGORIAN_CYCLE = 146097 * 86400
"""400 years in seconds: the Gregorian calendar, and a zone's rules past its last change,
repeat."""


def zone_offset(value: Timestamp, zone: str) -> int:
    """cel-go's ``timeZone``: the offset of ``zone`` at ``value`` (an IANA name through
    ``zoneinfo``, or ``±hh:mm`` whose parts Go's ``strconv.Atoi`` reads)."""
    if ":" not in zone:
        if zone in ("", "UTC", "Local"):  # the API server's local zone is UTC
            return 0
        try:
            info = zoneinfo.ZoneInfo(zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
            raise TimeError(f"unknown time zone {zone}") from None
        seconds = value.seconds
        while seconds > MAX_UNIX - 2 * 86400:  # Python's datetime stops at year 9999
            seconds -= _GREGORIAN_CYCLE
        while seconds < MIN_UNIX + 2 * 86400:
            seconds += _GREGORIAN_CYCLE
        delta = (_EPOCH + datetime.timedelta(seconds=seconds)).astimezone(info).utcoffset()
        return int(delta.total_seconds()) if delta is not None else 0
    hours_text, minutes_text = zone.split(":", 1)
    hours, minutes = _atoi(hours_text), _atoi(minutes_text)
    offset = hours * 60 - minutes if zone.startswith("-") else hours * 60 + minutes
    if abs(offset) > INT64_MAX // (60 * SECOND):  # Go's time.Duration of it wraps: refused
        raise TimeError(f"time zone offset out of range: {zone}")
    return offset * 60


_ATOI = re.compile(r"[+-]?[0-9]+", re.ASCII)


def _atoi(text: str) -> int:
    """Go's ``strconv.Atoi`` (an int64: larger fails)."""
    if _ATOI.fullmatch(text) is None or not INT64_MIN <= int(text) <= INT64_MAX:
        raise TimeError(f'strconv.Atoi: parsing "{text}": invalid syntax')
    return int(text)


_TIMESTAMP_GETTERS = {
    "getFullYear": lambda f: f[0],
    "getMonth": lambda f: f[1] - 1,
    "getDate": lambda f: f[2],
    "getDayOfMonth": lambda f: f[2] - 1,
    "getHours": lambda f: f[3],
    "getMinutes": lambda f: f[4],
    "getSeconds": lambda f: f[5],
    "getDayOfWeek": lambda f: f[6],
    "getDayOfYear": lambda f: f[7],
    "getMilliseconds": lambda f: f[8],
}
GETTERS = frozenset(_TIMESTAMP_GETTERS)


def get(name: str, value: Any, *zone: Any) -> int:
    """A getter of a timestamp (in its own zone, or in ``zone``) or of a duration (hours,
    minutes, seconds and milliseconds, whole, toward zero)."""
    if isinstance(value, Duration) and not zone:
        units = {"getHours": 3600 * SECOND, "getMinutes": 60 * SECOND, "getSeconds": SECOND}
        if name in units:
            return int(go_seconds(value.nanos, units[name]))
        if name == "getMilliseconds":
            return _trunc_div(value.nanos, 1_000_000)[0]
    if isinstance(value, Timestamp) and len(zone) <= 1:
        if zone and not isinstance(zone[0], str):
            raise TypeError("no such overload: a time zone is a string")
        offset = zone_offset(value, str(zone[0])) if zone else 0  # no zone: UTC
        return int(_TIMESTAMP_GETTERS[name](_fields(value, offset)))
    raise TypeError(f"no such overload: {name}() of a {type(value).__name__}")
