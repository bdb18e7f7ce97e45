"""AdmissionReview on the wire: parse a request body, answer with a review the API server accepts.

This is the only module that knows the protocol (`k8s.io/api/admission/v1` types). The API server rejects a
response that lacks `response`, whose `response.uid` differs from the request's, or whose `apiVersion`/`kind`
are not the request's (`k8s.io/apiserver/pkg/admission/plugin/webhook/request/admissionreview.go`), so every
answer echoes all three. Request hygiene follows controller-runtime's webhook (`pkg/webhook/admission/http.go`):
an empty body, a body over 7 MiB, a content type other than application/json, or an undecodable review is
refused, but, unlike controller-runtime (which answers HTTP 200 with the code inside the review), draguard
puts the 4xx on the wire as well, so a misbehaving client sees it in its HTTP status.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

import msgspec
from msgspec import Struct

from webhook.admission.response import Response, audit_key, errored
from webhook.errors import DraguardError
from webhook.wire import LazyObject, Obj, go_json, json_type, no_constant, reading_error

# The API server sends objects of at most etcd's 1.5 MiB request limit, which JSON encoding of a review
# (object plus oldObject) can roughly double and quadruple; controller-runtime settled on 7 MiB for that.
MAX_BODY = 7 * 1024 * 1024
API_VERSIONS = ("admission.k8s.io/v1", "admission.k8s.io/v1beta1")  # answered in the version asked
KIND = "AdmissionReview"
OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")
JSON_TYPE = "application/json"


class BadReview(DraguardError):
    """A request that is not a usable AdmissionReview; answered with `code` and this one-line message."""

    def __init__(self, code: int, message: str, *, uid: str = "", api_version: str = API_VERSIONS[0]) -> None:
        super().__init__(message)
        self.code = code
        self.uid = uid
        self.api_version = api_version


class GroupVersionKind(Struct, frozen=True):
    group: str
    version: str
    kind: str

    def __str__(self) -> str:
        return f"{self.group}/{self.version}, Kind={self.kind}" if self.group else f"{self.version}, Kind={self.kind}"


class GroupVersionResource(Struct, frozen=True):
    group: str
    version: str
    resource: str

    def __str__(self) -> str:
        return "/".join(p for p in (self.group, self.version, self.resource) if p)


class Request(Struct, frozen=True):
    """The fields of `AdmissionReview.request` draguard reads, typed and checked."""

    uid: str
    kind: GroupVersionKind
    resource: GroupVersionResource
    operation: str
    object: Obj | None
    old_object: Obj | None = None
    name: str = ""
    namespace: str = ""
    sub_resource: str = ""
    dry_run: bool = False
    user: str = ""
    api_version: str = API_VERSIONS[0]  # of the review, echoed in the answer


def check_content_type(content_type: str | None) -> None:
    """`application/json`, parameters such as `; charset=utf-8` allowed; anything else is a 415."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media != JSON_TYPE:
        raise BadReview(415, f"contentType={content_type or ''}, expected {JSON_TYPE}")


def check_content_encoding(encoding: str | None) -> None:
    """No `Content-Encoding`, or `identity`: the API server sends the review uncompressed (client-go compresses no
    request body). Anything else is a 415, as RFC 9110 (8.4) has it for a coding the server does not accept, not a
    body misread as JSON that is not UTF-8. draguard's own: controller-runtime does not look at the header."""
    codings = [c.strip().lower() for c in (encoding or "").split(",") if c.strip()]
    if any(c != "identity" for c in codings):
        raise BadReview(415, f"Content-Encoding {(encoding or '').strip()[:64]} is not supported; send the review "
                             "uncompressed")


def too_large() -> BadReview:
    return BadReview(413, f"request entity is too large; limit is {MAX_BODY} bytes")


def parse(body: bytes) -> Request:
    """Decode and check one AdmissionReview request body; `BadReview` (with the uid when known) otherwise."""
    if not body:
        raise BadReview(400, "request body is empty")
    if len(body) > MAX_BODY:
        raise too_large()
    # Only a review that may carry an old object takes the lazy path (for the rest it is slower than decoding).
    # Searched from the end: the API server writes `oldObject` after `object` (Go's field order), so a CREATE's
    # `"oldObject":null` is found in its last bytes instead of after a scan of the whole object (60 µs for 69 KB).
    old_at = body.rfind(b'"oldObject"')
    data = _envelope(body, old_at) if old_at != -1 else None
    if data is None:
        data = decode(body)
    if not isinstance(data, Mapping):
        raise BadReview(400, f"expected a JSON object of kind {KIND}, got {json_type(data)}")
    req = data.get("request")
    uid = req.get("uid") if isinstance(req, Mapping) else None
    uid_text = uid if isinstance(uid, str) else ""
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if api_version not in API_VERSIONS or kind != KIND:
        raise BadReview(
            400, f"expected {API_VERSIONS[0]}, Kind={KIND}, got {_text(api_version)}, Kind={_text(kind)}",
            uid=uid_text,
        )
    assert isinstance(api_version, str)
    if not isinstance(req, Mapping):
        raise BadReview(400, "request is missing: an AdmissionReview sent to a webhook carries request",
                        api_version=api_version)
    if uid is not None and not isinstance(uid, str):  # there, but not a uid: say so, not "missing"
        raise BadReview(400, f"request.uid: expected a string, got {json_type(uid)}", api_version=api_version)
    if not uid_text:
        raise BadReview(400, "request.uid is missing or empty", api_version=api_version)
    return _request(req, uid_text, api_version)


def _request(req: Mapping[str, Any], uid: str, api_version: str) -> Request:
    def bad(message: str) -> BadReview:
        return BadReview(400, message, uid=uid, api_version=api_version)

    operation = req.get("operation")
    if operation not in OPERATIONS:
        raise bad(f"request.operation: unsupported value {_text(operation)}; expected one of {', '.join(OPERATIONS)}")
    kind = req.get("kind")
    if not isinstance(kind, Mapping) or not isinstance(kind.get("kind"), str) or not kind.get("kind"):
        raise bad("request.kind is missing: expected {group, version, kind}")
    resource = req.get("resource")
    resource = resource if isinstance(resource, Mapping) else {}
    obj, old = req.get("object"), req.get("oldObject")
    if obj is not None and not isinstance(obj, Mapping):  # a value of the wrong type first: it is not missing
        raise bad(f"request.object: expected a JSON object, got {json_type(obj)}")
    if operation in ("CREATE", "UPDATE") and obj is None:
        raise bad(f"request.object is missing: {_article(operation)} {operation} review carries the object")
    if old is not None and not isinstance(old, Mapping):
        raise bad(f"request.oldObject: expected a JSON object, got {json_type(old)}")
    dry_run = req.get("dryRun", False)
    if dry_run is None:
        dry_run = False
    if not isinstance(dry_run, bool):
        raise bad(f"request.dryRun: expected true or false, got {_text(dry_run)}")
    user = req.get("userInfo")
    return Request(
        uid=uid,
        kind=GroupVersionKind(_str(kind, "group"), _str(kind, "version"), _str(kind, "kind")),
        resource=GroupVersionResource(_str(resource, "group"), _str(resource, "version"), _str(resource, "resource")),
        operation=str(operation),
        object=obj,
        old_object=old,
        name=_str(req, "name"),
        namespace=_str(req, "namespace"),
        sub_resource=_str(req, "subResource"),
        dry_run=dry_run,
        user=_str(user, "username") if isinstance(user, Mapping) else "",
        api_version=api_version,
    )


# An old object's member as `_envelope` lists it (`LazyObject.of_members`): objects and arrays one level down.
_Listed = dict[str, msgspec.Raw] | list[msgspec.Raw] | str | int | float | bool | None


class _Request(msgspec.Struct):
    """`request` as `_envelope` reads it: every field as it comes, `oldObject` listed two levels deep only."""

    uid: Any = None
    kind: Any = None
    resource: Any = None
    operation: Any = None
    object: Any = None
    oldObject: dict[str, _Listed] | None = None
    name: Any = None
    namespace: Any = None
    subResource: Any = None
    dryRun: Any = None
    userInfo: Any = None


class _Review(msgspec.Struct):
    apiVersion: Any = None
    kind: Any = None
    request: _Request | None = None


# Decoders made once: `msgspec.json.decode(body, type=...)` works out its decoder on every call (a third of the
# decoding of a small review).
_REVIEW_DECODER = msgspec.json.Decoder(_Review)
_DECODER = msgspec.json.Decoder()
_REQUEST_FIELDS = tuple(name for name in _Request.__struct_fields__ if name != "oldObject")
DEEP_JSON = ("request body is nested too deeply for draguard's reader (JSON nested deeper than about 900 levels; "
             "the API server reads up to 10,000)")
_DIGIT_RUNS = bytes(b"1"[0] if chr(i) in "0123456789" else 0 for i in range(256))  # digits to `1`, the rest to NUL


def _envelope(body: bytes, old_at: int = 0) -> dict[str, Any] | None:
    """The review as `decode` gives it, except that an `oldObject` that is a JSON object is a `LazyObject` (decoded
    when a rule reads it: an UPDATE of a slice mostly reads a few of its fields). None when the body is anything
    but a well-formed review of that shape (an `oldObject` that is no object, a number beyond a float among its
    members): `decode` then reads it and names what is wrong, as before.

    The old object is listed in the same pass, two levels deep (`_Listed`): a slice's `spec` is found with its
    `driver`, `pool` and `nodeName` without a second pass over the devices, or a third for `spec` itself. The
    parts left as `msgspec.Raw` have been checked for well-formed JSON by msgspec, but not for UTF-8: the body is
    checked here, so it is refused for the same reasons either way. Nor for integers of more digits than
    `json.loads` converts (sys.get_int_max_str_digits; msgspec leaves them to it): an old object (from `old_at`,
    where `"oldObject"` starts; the rest is decoded here) with such a run of digits takes the whole decode, which
    refuses it with a 400 if it is a number."""
    limit = sys.get_int_max_str_digits()
    if limit and b"1" * (limit + 1) in body[old_at:].translate(_DIGIT_RUNS):
        return None
    body = go_json(body)  # the old object's members are read from these bytes later
    try:
        review = _REVIEW_DECODER.decode(body)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return None
    data: dict[str, Any] = {"apiVersion": review.apiVersion, "kind": review.kind, "request": None}
    req = review.request
    if req is not None:
        fields = {name: value for name in _REQUEST_FIELDS if (value := getattr(req, name)) is not None}
        if req.oldObject is not None:
            if not body.isascii():
                try:
                    body.decode()
                except UnicodeDecodeError:
                    return None
            fields["oldObject"] = LazyObject.of_members(req.oldObject)
        data["request"] = fields
    return data


def decode(body: bytes) -> Any:
    """The JSON value of `body`, as `json.loads` reads it but for a lone surrogate's escape and a byte that is not
    UTF-8 inside a string, each U+FFFD as Go's decoder (the API server's) reads them (`go_json`, `go_utf8`);
    `BadReview` 400 naming the problem otherwise (a byte that is not UTF-8 outside every string among them).

    msgspec decodes the same documents to the same values about twice as fast (0.7 ms instead of 1.3 ms for a
    69 KB review of a full ResourceSlice). Whatever it refuses goes through `json.loads`, which either names the
    problem with its line and column or reads what only it accepts (a float that overflows to inf, an integer
    beyond 64 bits), so the answer never depends on which decoder read the body.
    """
    body = go_json(body)
    try:
        return _DECODER.decode(body)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        pass
    try:
        # Decoded as UTF-8 first: json.loads would guess UTF-16 and UTF-32 from the bytes, and skip a BOM, where
        # the API server (and RFC 8259 between systems) sends UTF-8 only, without one.
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:  # each byte that is not UTF-8 inside a string U+FFFD, as Go's decoder reads it
            from webhook.wire import go_utf8  # only for such a body

            text = go_utf8(body).decode("utf-8")  # (one outside every string: refused, as by Go's decoder)
        return json.loads(text, parse_constant=no_constant)
    except (ValueError, RecursionError) as err:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        if isinstance(err, RecursionError):  # Go's decoder, the API server's, reads 10,000 levels
            raise BadReview(400, DEEP_JSON) from None
        raise BadReview(400, f"request body is not valid JSON: {_json_error(err)}") from None


def answer(uid: str, response: Response, api_version: str = API_VERSIONS[0]) -> dict[str, Any]:
    """The AdmissionReview that carries `response` for the request `uid`."""
    out: dict[str, Any] = {"uid": uid, "allowed": response.allowed}
    if not response.allowed:
        status: dict[str, Any] = {"status": "Failure", "code": response.code, "message": response.message}
        if response.reason:
            status["reason"] = response.reason
        if response.causes:
            status["details"] = {
                "causes": [{"reason": cause_type(msg), "field": path, "message": msg} for path, msg in response.causes]
            }
        out["status"] = status
    if response.warnings:
        out["warnings"] = list(response.warnings)
    audit = {key: value for key, value in response.audit.items() if audit_key(key)}
    if audit:
        out["auditAnnotations"] = audit
    return {"apiVersion": api_version, "kind": KIND, "response": out}


# `field.ErrorType.String()` -> the CauseType it stands for (k8s.io/apimachinery/pkg/util/validation/field): the
# parity rules' messages start with the upstream text (`Required value: ...`), as `field.Error.ErrorBody()` writes it.
_CAUSE_TYPES = {
    "Not found": "FieldValueNotFound",
    "Required value": "FieldValueRequired",
    "Duplicate value": "FieldValueDuplicate",
    "Invalid value": "FieldValueInvalid",
    "Unsupported value": "FieldValueNotSupported",
    "Forbidden": "FieldValueForbidden",
    "Too long": "FieldValueTooLong",
    "Too short": "FieldValueTooShort",
    "Too many": "FieldValueTooMany",
    "Internal error": "InternalError",
}


def cause_type(message: str) -> str:
    """The `status.details.causes[].reason` for a finding's message; draguard's own findings are FieldValueInvalid."""
    head = message.split(":", 1)[0]
    return _CAUSE_TYPES.get(head, "FieldValueInvalid")


def refusal(err: BadReview) -> dict[str, Any]:
    """The review sent with a 4xx for a request that could not be reviewed."""
    return answer(err.uid, errored(err.code, err.message), err.api_version)


def _json_error(err: Exception) -> str:
    if isinstance(err, UnicodeDecodeError):
        return "not UTF-8"
    if isinstance(err, json.JSONDecodeError):
        if err.msg.startswith("Unexpected UTF-8 BOM"):  # Python's words add a hint meant for Python callers
            return "a byte order mark (U+FEFF) before the JSON"
        where = f"line {err.lineno} column {err.colno}"  # Python words one message "... starting at"
        return f"{err.msg} {where}" if err.msg.endswith(" at") else f"{err.msg} at {where}"
    return reading_error(err)


def _article(word: str) -> str:
    return "an" if word[:1] in "AEIOU" else "a"


def _str(obj: Mapping[str, Any], key: str) -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def _text(value: object) -> str:
    return "<missing>" if value is None else json.dumps(value)[:80]
