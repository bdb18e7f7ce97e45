"""Name formats, worded as `k8s.io/apimachinery/pkg/util/validation` words them.

Each `is_*` returns the list of problems (empty when valid), like upstream's `Is*` helpers; the
`validate_*` functions turn them into field errors the way `corevalidation` does.

Since apimachinery 0.35 (Kubernetes 1.35) label keys and values are checked by `api/validate/content`,
which words lengths in bytes and calls a key "a valid label key"; 1.34 said "characters" and "a qualified
name". DNS labels and subdomains (`util/validation`) still say "characters". `MESSAGES` holds the wording
of the release being mirrored: set once per validated object (`messages()`), so the dozens of callers
need not carry it.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING

from webhook.fieldpath import FieldPath
from webhook.findings import Finding
from webhook.rules.k8s.decode import go_len
from webhook.rules.k8s.errors import invalid, required, too_long

if TYPE_CHECKING:
    from webhook.profiles import Profile

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
QUALIFIED_NAME_MAX = 63
LABEL_VALUE_MAX = 63
DRIVER_NAME_MAX = 63  # DriverNameMaxLength; ValidateCSIDriverName's limit
C_IDENTIFIER_MAX = 32  # DeviceMaxIDLength

_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _LABEL_FMT + "(\\." + _LABEL_FMT + ")*"
_C_ID_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_QUALIFIED_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _QUALIFIED_FMT + ")?"

MESSAGES: ContextVar[str] = ContextVar("k8s_messages", default="content")  # "content" (>= 1.35) | "legacy"


@contextlib.contextmanager
def messages(dialect: str) -> Iterator[None]:
    """Word apimachinery messages as the release with `dialect` does, within the block."""
    token = MESSAGES.set(dialect)
    try:
        yield
    finally:
        MESSAGES.reset(token)


# Matched whole with fullmatch: Go's `^...$` ends at the end of the text, Python's `$` also before a final "\n".
_LABEL_RE = re.compile(_LABEL_FMT)
_SUBDOMAIN_RE = re.compile(_SUBDOMAIN_FMT)
_C_ID_RE = re.compile(_C_ID_FMT)
_QUALIFIED_RE = re.compile(_QUALIFIED_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)


def regex_error(message: str, fmt: str, *examples: str) -> str:
    """Upstream RegexError, including its double space before each ` or`."""
    if not examples:
        return f"{message} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{fmt}')"


def max_len_error(limit: int) -> str:
    """util/validation MaxLenError (DNS labels and subdomains in every release)."""
    return f"must be no more than {limit} characters"


def content_max_len_error(limit: int) -> str:
    """api/validate/content MaxLenError (label keys and values since 1.35)."""
    unit = "characters" if MESSAGES.get() == "legacy" else "bytes"
    return f"must be no more than {limit} {unit}"


LABEL_ERROR = regex_error(
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character", _LABEL_FMT, "my-name", "123-abc")
SUBDOMAIN_ERROR = regex_error(
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character", _SUBDOMAIN_FMT, "example.com")
C_ID_ERROR = regex_error(
    "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
    "characters or '_'", _C_ID_FMT, "my_name", "MY_NAME", "MyName")
_QUALIFIED_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an " \
    "alphanumeric character"
QUALIFIED_ERROR = regex_error(_QUALIFIED_MSG, _QUALIFIED_FMT, "MyName", "my.name", "123-abc")
LABEL_VALUE_ERROR = regex_error(
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character", _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")


def _format_errors(
    value: str, limit: int, pattern: re.Pattern[str], message: str, *, content: bool = False
) -> list[str]:
    """Upstream's shape for a length-limited regex format: the length problem first, then the format one.

    Lengths are Go's len(): bytes, not characters."""
    too_long = go_len(value) > limit
    errs = [(content_max_len_error if content else max_len_error)(limit)] if too_long else []
    if not pattern.fullmatch(value):
        errs.append(message)
    return errs


def is_dns1123_label(value: str) -> list[str]:
    """IsDNS1123Label: a valid subdomain that is no label can only hold dots, and is told so."""
    errs = [max_len_error(DNS1123_LABEL_MAX)] if go_len(value) > DNS1123_LABEL_MAX else []
    if not _LABEL_RE.fullmatch(value):
        errs.append("must not contain dots" if _SUBDOMAIN_RE.fullmatch(value) else LABEL_ERROR)
    return errs


def is_dns1123_subdomain(value: str, *, content: bool = False) -> list[str]:
    return _format_errors(value, DNS1123_SUBDOMAIN_MAX, _SUBDOMAIN_RE, SUBDOMAIN_ERROR, content=content)


def is_c_identifier(value: str) -> list[str]:
    return [] if _C_ID_RE.fullmatch(value) else [C_ID_ERROR]


def is_qualified_name(value: str) -> list[str]:
    """Label keys and condition types: `[prefix/]name` (upstream IsQualifiedName)."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs += ["prefix part " + m for m in is_dns1123_subdomain(prefix, content=True)]
    else:
        noun = "a qualified name " if MESSAGES.get() == "legacy" else "a valid label key "
        return [noun + QUALIFIED_ERROR + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif go_len(name) > QUALIFIED_NAME_MAX:
        errs.append("name part " + content_max_len_error(QUALIFIED_NAME_MAX))
    if not _QUALIFIED_RE.fullmatch(name):
        errs.append("name part " + QUALIFIED_ERROR)
    return errs


def is_valid_label_value(value: str) -> list[str]:
    return _format_errors(value, LABEL_VALUE_MAX, _LABEL_VALUE_RE, LABEL_VALUE_ERROR, content=True)


def validate_dns1123_label(value: str, path: FieldPath) -> list[Finding]:
    return [invalid(path, value, m) for m in is_dns1123_label(value)]


def validate_dns1123_subdomain(value: str, path: FieldPath) -> list[Finding]:
    return [invalid(path, value, m) for m in is_dns1123_subdomain(value)]


def validate_label_name(value: str, path: FieldPath) -> list[Finding]:
    """metav1validation.ValidateLabelName."""
    return [invalid(path, value, m) for m in is_qualified_name(value)]


def validate_label_value(value: str, path: FieldPath) -> list[Finding]:
    return [invalid(path, value, m) for m in is_valid_label_value(value)]


def validate_driver_name(name: str, path: FieldPath) -> list[Finding]:
    """corevalidation.ValidateCSIDriverName: upper case passes (the DNS check runs on the lower-cased name)."""
    errs = [required(path)] if not name else []
    if go_len(name) > DRIVER_NAME_MAX:
        errs.append(too_long(path, DRIVER_NAME_MAX))
    errs += [invalid(path, name, m) for m in is_dns1123_subdomain(name.lower())]
    return errs


def validate_c_identifier(ident: str, path: FieldPath) -> list[Finding]:
    errs = [too_long(path, C_IDENTIFIER_MAX)] if go_len(ident) > C_IDENTIFIER_MAX else []
    return errs + [invalid(path, ident, m) for m in is_c_identifier(ident)]


def validate_qualified_name(name: str, path: FieldPath, empty: str = "invalid") -> list[Finding]:
    """validateQualifiedName: `id` or `domain/id`; more than one `/` passes (an upstream TODO).

    `empty` is the release's word for an empty part (`Profile.qualified_name_empty`): "invalid" (1.35+: `Invalid
    value: ""`, an empty name being an invalid C identifier) or "required" (1.34: `Required value: name required`
    for an empty name, and nothing more; `Required value: the domain must not be empty`, ...)."""
    if empty == "required" and not name:
        return [required(path, "name required")]
    parts = name.split("/")
    if len(parts) == 1:
        return validate_c_identifier(parts[0], path)
    if len(parts) != 2:
        return []
    errs: list[Finding] = []
    domain, ident = parts

    def missing(detail: str) -> Finding:
        return required(path, detail) if empty == "required" else invalid(path, "", detail)

    errs += [missing("the domain must not be empty")] if not domain else validate_driver_name(domain, path)
    errs += [missing("the name must not be empty")] if not ident else validate_c_identifier(ident, path)
    return errs


FULLY_QUALIFIED = "a fully qualified name must be a domain and a name separated by a slash"
NO_DOMAIN = "must include a domain"  # 1.34's words for the same


def validate_fully_qualified_name(name: str, path: FieldPath, empty: str = "invalid") -> list[Finding]:
    """validateFullyQualifiedName: a qualified name that has a domain (a constraint's matchAttribute and
    distinctAttribute, a slice's partitionTypeAttribute). With 1.34's wording (`empty` "required", as in
    validate_qualified_name) a name without a domain is `must include a domain`, and an empty one only required."""
    found = validate_qualified_name(name, path, empty)
    if "/" in name or (empty == "required" and not name):
        return found
    return [*found, invalid(path, name, FULLY_QUALIFIED if empty != "required" else NO_DOMAIN)]


_ROOT = FieldPath()


@functools.lru_cache(maxsize=4096)
def dns1123_label_ok(name: str) -> bool:
    return not is_dns1123_label(name)


@functools.lru_cache(maxsize=4096)
def qualified_name_ok(name: str) -> bool:
    """Whether `validate_qualified_name` has nothing to say (cached: the same keys repeat on every device)."""
    return not validate_qualified_name(name, _ROOT)


def truncate_if_too_long(text: str, limit: int) -> str:
    """How upstream shortens a long map key in a path: the middle becomes `...`."""
    limit = max(limit, 16)
    if len(text) <= limit:
        return text
    remaining = limit - 3
    return text[: (remaining + 1) // 2] + "..." + text[len(text) - remaining // 2:]


def key_error_path(path: FieldPath, key: str, limit: int, profile: Profile) -> FieldPath:
    """Where validateMap reports a map key's own errors: at `map[key]` (the key shortened as in any path) up to
    1.35, at the map itself since 1.36 (`profile.key_error_path`)."""
    return path.key(truncate_if_too_long(key, limit)) if profile.key_error_path == "key" else path
