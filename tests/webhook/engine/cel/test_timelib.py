"""cel-go's durations and timestamps, nanosecond exact (``timelib``): the values below are
Kubernetes' own answers (the CEL oracle's, k8s.io/apiserver v0.34.3)."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webhook.engine.cel import timelib
from webhook.engine.cel.timelib import Duration, TimeError, Timestamp

INT64 = st.integers(min_value=timelib.INT64_MIN, max_value=timelib.INT64_MAX)


@pytest.mark.parametrize(
    ("text", "nanos"),
    [
        ("1ns", 1),
        ("1.5us", 1500),
        ("1µs", 1000),
        ("-1.5s", -1_500_000_000),
        ("1h30m", 5_400_000_000_000),
        ("+.5s", 500_000_000),
        ("5.s", 5_000_000_000),
        ("0", 0),
        ("1.0000000001s", 1_000_000_000),
        ("9223372036854775807ns", timelib.INT64_MAX),
        ("-9223372036854775808ns", timelib.INT64_MIN),
    ],
)
def test_a_duration_reads_as_go_parses_it(text: str, nanos: int) -> None:
    assert timelib.parse_duration(text).nanos == nanos


@pytest.mark.parametrize(
    "text",
    ["", "1", "1x", ".s", "-", "9223372036854775808ns", "315576000000s", "2562048h", "1s ", "s"],
)
def test_a_duration_go_cannot_parse_fails(text: str) -> None:
    with pytest.raises(TimeError):
        timelib.parse_duration(text)


@given(INT64)
def test_a_duration_in_nanoseconds_reads_back(nanos: int) -> None:
    assert timelib.parse_duration(f"{nanos}ns").nanos == nanos


@pytest.mark.parametrize(
    ("nanos", "text"),
    [
        (1, "0.000000001s"),
        (-1_500_000_000, "-1.5s"),
        (5_400_000_000_000, "5400s"),
        (0, "0s"),
        (123456789_123456789, "123456789.12345679s"),
    ],
)
def test_a_duration_is_written_as_float_seconds(nanos: int, text: str) -> None:
    assert timelib.format_duration(Duration(nanos)) == text


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("getHours", "-1.5h", -1),
        ("getMinutes", "1.5h", 90),
        ("getSeconds", "1.999999999s", 1),
        ("getMilliseconds", "1.9999s", 1999),
        ("getMilliseconds", "-1.9999s", -1999),
    ],
)
def test_a_duration_s_getters_truncate_toward_zero(name: str, text: str, value: int) -> None:
    assert timelib.get(name, timelib.parse_duration(text)) == value


def test_duration_arithmetic_past_int64_fails() -> None:
    biggest = Duration(timelib.INT64_MAX)
    with pytest.raises(TimeError):
        timelib.add(biggest, Duration(1))
    with pytest.raises(TimeError):
        timelib.negate(Duration(timelib.INT64_MIN))
    assert timelib.subtract(biggest, Duration(1)).nanos == timelib.INT64_MAX - 1
    assert Duration(1) > Duration(0) and Duration(1) != Duration(0)  # 1ns is not celpy's 0


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("1970-01-01T00:00:00.123456789Z", "1970-01-01T00:00:00.123456789Z"),
        ("2023-06-15T12:30:00+05:30", "2023-06-15T12:30:00+05:30"),
        ("2023-06-15T12:30:00+00:00", "2023-06-15T12:30:00Z"),
        ("2023-06-15T12:30:00.5-00:30", "2023-06-15T12:30:00.5-00:30"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"),
        ("2023-06-15T12:30:00,5Z", "2023-06-15T12:30:00.5Z"),
        ("2023-06-15T12:30:00.1234567891Z", "2023-06-15T12:30:00.123456789Z"),
        ("9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59.999999999Z"),
    ],
)
def test_a_timestamp_is_written_in_its_own_zone(text: str, written: str) -> None:
    assert timelib.format_timestamp(timelib.parse_timestamp(text)) == written


@pytest.mark.parametrize(
    "text",
    [
        "2023-13-01T00:00:00Z",
        "2023-02-29T00:00:00Z",
        "2023-06-15T24:00:00Z",
        "2023-06-15 12:30:00Z",
        "2023-06-15T12:30:00",
        "0001-01-01T00:00:00+00:01",
        "9999-12-31T23:59:59-00:01",
    ],
)
def test_a_timestamp_go_refuses_fails(text: str) -> None:
    with pytest.raises(TimeError):
        timelib.parse_timestamp(text)


def test_a_sum_keeps_the_zone_past_year_9999_in_it() -> None:
    late = timelib.parse_timestamp("9999-12-31T23:00:00+05:30")
    later = timelib.add(late, timelib.parse_duration("1h"))
    assert timelib.format_timestamp(later) == "10000-01-01T00:00:00+05:30"
    with pytest.raises(TimeError):
        timelib.add(timelib.parse_timestamp("9999-12-31T23:59:59.999999999Z"), Duration(1))


def test_timestamps_ten_thousand_years_apart_overflow_a_duration() -> None:
    first, last = Timestamp(timelib.MIN_UNIX), Timestamp(timelib.MAX_UNIX)
    with pytest.raises(TimeError):
        timelib.subtract(last, first)
    assert timelib.subtract(Timestamp(1, 5), Timestamp(0, 7)).nanos == 999_999_998


@pytest.mark.parametrize(
    ("name", "zone", "value"),
    [
        ("getHours", (), 7),  # no zone: UTC, not the offset the text had
        ("getHours", ("UTC",), 7),
        ("getHours", ("America/New_York",), 3),
        ("getHours", ("+05:30",), 12),
        ("getMinutes", ("+05:-30",), 30),
        ("getDayOfWeek", (), 4),
        ("getDayOfYear", (), 165),
        ("getMonth", (), 5),
        ("getDate", (), 15),
        ("getDayOfMonth", (), 14),
    ],
)
def test_a_timestamp_s_getters(name: str, zone: tuple[str, ...], value: int) -> None:
    stamp = timelib.parse_timestamp("2023-06-15T12:30:00+05:30")
    assert timelib.get(name, stamp, *zone) == value


def test_getters_past_the_calendar_s_ends() -> None:
    last = timelib.parse_timestamp("9999-12-31T23:59:59.999999999Z")
    first = timelib.parse_timestamp("0001-01-01T00:00:00Z")
    assert timelib.get("getFullYear", last, "+05:30") == 10000
    assert timelib.get("getFullYear", last, "America/New_York") == 9999
    assert timelib.get("getFullYear", first, "America/New_York") == 0
    assert timelib.get("getMilliseconds", last) == 999
    with pytest.raises(TimeError):
        timelib.get("getHours", first, "bad")


@given(st.integers(min_value=timelib.MIN_UNIX, max_value=timelib.MAX_UNIX))
def test_the_civil_date_is_python_s(seconds: int) -> None:
    python = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)
    stamp = Timestamp(seconds, 123_456_789)
    written = timelib.format_timestamp(stamp)
    assert written == python.strftime("%Y-%m-%dT%H:%M:%S").rjust(19, "0") + ".123456789Z"
    assert timelib.parse_timestamp(written) == stamp
    assert timelib.get("getDayOfWeek", stamp) == (python.weekday() + 1) % 7
