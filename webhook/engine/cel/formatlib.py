"""Kubernetes' format library (apiserver/pkg/cel/library/format.go): named string formats and
their messages, word for word.

Ported from kubernetes/kubernetes:
- library/format.go (0ea83df): the formats and which validation each runs;
- apimachinery/pkg/api/validation/generic.go (1a76ea4): ``NameIsDNSLabel`` & co. and
  ``maskTrailingDash`` (it drops the last two characters and appends 'a'; on "-" alone Go
  panics, which cel-go turns into an evaluation error);
- apimachinery/pkg/api/validate/content/dns.go (424faa3), kube.go (26c0309), errors.go
  (2486420): ``IsDNS1123Label``, ``IsDNS1123Subdomain``, ``IsLabelKey`` (qualified names),
  ``IsLabelValue``, ``RegexError``, ``MaxLenError``; util/validation/validation.go (008b365):
  ``IsDNS1035Label``;
- kubernetes/kube-openapi d427ff9, pkg/validation/strfmt: ``uuid``, ``byte`` (govalidator's
  Base64 pattern), ``date`` (Go's ``time.Parse("2006-01-02")``), ``datetime``
  (``IsDateTime``); ``uri`` is Go's ``url.ParseRequestURI`` (``urllib_go``).

Go's ``len`` counts bytes: lengths here are UTF-8 byte counts; Go's regexps anchor with ``^…$``
on the whole text (Python's ``fullmatch``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from webhook.engine.cel import urllib_go


class FormatError(ValueError):
    """A format validation that cannot run on this input (Go panics there)."""


@dataclass(frozen=True)
class NamedFormat:
    """``kubernetes.NamedFormat``: equal when the names are (as ``Format.Equal``)."""

    key: str

    @property
    def text(self) -> str:
        return self.key


_DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN = _DNS1123_LABEL + "(\\." + _DNS1123_LABEL + ")*"
_DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?"
_LABEL_KEY = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE = "(" + _LABEL_KEY + ")?"
_UUID = re.compile(
    r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"
)
_BASE64 = re.compile(
    r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})"
)
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))")


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _matches(pattern: str, text: str) -> bool:
    return re.fullmatch(pattern, text) is not None


def _regex_error(message: str, pattern: str, *examples: str) -> str:
    if not examples:
        return f"{message} (regex used for validation is '{pattern}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{pattern}')"


def _max_len_error(length: int) -> str:
    return f"must be no more than {length} bytes"


def _checked(value: str, limit: int, pattern: str, regex_message: str) -> list[str]:
    """The common shape of apimachinery's checks: a length limit, then a pattern."""
    errors = [_max_len_error(limit)] if _size(value) > limit else []
    if not _matches(pattern, value):
        errors.append(regex_message)
    return errors


_DNS1123_LABEL_ERROR = _regex_error(
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character",
    _DNS1123_LABEL,
    "my-name",
    "123-abc",
)


def dns1123_label(value: str) -> list[str]:
    errors = _checked(value, 63, _DNS1123_LABEL, _DNS1123_LABEL_ERROR)
    if errors and errors[-1] == _DNS1123_LABEL_ERROR and _matches(_DNS1123_SUBDOMAIN, value):
        errors[-1] = "must not contain dots"  # a subdomain of the right length: it has dots
    return errors


def dns1123_subdomain(value: str) -> list[str]:
    message = (
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
        "'-' or '.', and must start and end with an alphanumeric character"
    )
    return _checked(
        value, 253, _DNS1123_SUBDOMAIN, _regex_error(message, _DNS1123_SUBDOMAIN, "example.com")
    )


def dns1035_label(value: str) -> list[str]:
    message = (
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
        "with an alphabetic character, and end with an alphanumeric character"
    )
    return _checked(
        value, 63, _DNS1035_LABEL, _regex_error(message, _DNS1035_LABEL, "my-name", "abc-123")
    )


_LABEL_KEY_MESSAGE = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character"
)


def qualified_name(value: str) -> list[str]:
    """``IsLabelKey``: an optional DNS subdomain prefix and '/', then a name."""
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) > 2:
        return [
            "a valid label key "
            + _regex_error(_LABEL_KEY_MESSAGE, _LABEL_KEY, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors += [f"prefix part {message}" for message in dns1123_subdomain(prefix)]
    if not name:
        errors.append("name part must be non-empty")
    elif _size(name) > 63:
        errors.append("name part " + _max_len_error(63))
    if not _matches(_LABEL_KEY, name):
        errors.append(
            "name part "
            + _regex_error(_LABEL_KEY_MESSAGE, _LABEL_KEY, "MyName", "my.name", "123-abc")
        )
    return errors


def label_value(value: str) -> list[str]:
    message = (
        "a valid label must be an empty string or consist of alphanumeric characters, '-', "
        "'_' or '.', and must start and end with an alphanumeric character"
    )
    return _checked(
        value,
        63,
        _LABEL_VALUE,
        _regex_error(message, _LABEL_VALUE, "MyValue", "my_value", "12345"),
    )


def _mask_trailing_dash(name: str) -> str:
    """apimachinery's ``maskTrailingDash``: ``name[:len(name)-2] + "a"`` (bytes in Go)."""
    if not name.endswith("-"):
        return name
    raw = name.encode("utf-8", "surrogatepass")
    if len(raw) < 2:
        raise FormatError("runtime error: slice bounds out of range [:-1]")
    return raw[:-2].decode("utf-8", "replace") + "a"


def _prefixed(validate: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
    return lambda value: validate(_mask_trailing_dash(value))


def uri(value: str) -> list[str]:
    try:
        urllib_go.parse_request_uri(value)
    except urllib_go.URLError as exc:
        return [str(exc)]
    return []


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def is_date(value: str) -> bool:
    """Go's ``time.Parse("2006-01-02", value)`` succeeds: year 0000-9999, a real day."""
    found = _DATE.fullmatch(value)
    if found is None:
        return False
    year, month, day = (int(part) for part in found.groups())
    if not 1 <= month <= 12:
        return False
    days = [31, 29 if _leap(year) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    return 1 <= day <= days


def is_date_time(value: str) -> bool:
    """strfmt's ``IsDateTime``: a date before the first 't', then hh:mm:ss, fraction, zone."""
    if _size(value) < 4:
        return False
    parts = value.lower().split("t")
    if len(parts) < 2 or not is_date(parts[0]):
        return False
    found = _TIME.fullmatch(parts[1])  # Go's '.' is Python's: any character but a newline
    if found is None:
        return False
    hour, minute, second = found.group(1), found.group(2), found.group(3)
    return hour <= "23" and minute <= "59" and second <= "59"


def _check(test: Callable[[str], bool], message: str) -> Callable[[str], list[str]]:
    return lambda value: [] if test(value) else [message]


FORMATS: dict[str, Callable[[str], list[str]]] = {
    "dns1123Label": dns1123_label,
    "dns1123Subdomain": dns1123_subdomain,
    "dns1035Label": dns1035_label,
    "qualifiedName": qualified_name,
    "dns1123LabelPrefix": _prefixed(dns1123_label),
    "dns1123SubdomainPrefix": _prefixed(dns1123_subdomain),
    "dns1035LabelPrefix": _prefixed(dns1035_label),
    "labelValue": label_value,
    "uri": uri,
    "uuid": _check(lambda v: _UUID.fullmatch(v) is not None, "does not match the UUID format"),
    "byte": _check(lambda v: _BASE64.fullmatch(v) is not None, "invalid base64"),
    "date": _check(is_date, "invalid date"),
    "datetime": _check(is_date_time, "invalid datetime"),
}
"""``format.<name>()`` and ``format.named('<name>')``: name -> the validation (its error
messages, none when the value is valid)."""


def named(name: str) -> list[NamedFormat]:
    """``format.named``: the format in a list of one, or none (the engine makes the optional)."""
    return [NamedFormat(name)] if name in FORMATS else []


def validate(form: NamedFormat, value: str) -> list[list[str]]:
    """``<Format>.validate``: the messages in a list of one, or none when valid."""
    errors = FORMATS[form.key](value)
    return [errors] if errors else []
