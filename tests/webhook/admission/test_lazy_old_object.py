"""An UPDATE review's oldObject is decoded as the rules read it (`webhook.wire.LazyObject`), and the answer is the
one the whole old object, decoded up front, gives."""

from __future__ import annotations

import copy
import json
from typing import Any

import msgspec
import pytest

from tests.builders import device, slice_with
from webhook.admission import handlers, review
from webhook.policy import Policy
from webhook.wire import LazyObject, plain

UID = "705ab4f5-6393-11e8-b7cc-42010a800002"


def update(new: dict[str, Any], old: Any) -> bytes:
    request = {
        "uid": UID, "operation": "UPDATE", "name": "node-0-gpu",
        "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceSlice"},
        "resource": {"group": "resource.k8s.io", "version": "v1", "resource": "resourceslices"},
        "object": new, "oldObject": old,
    }
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).encode()


def answers(body: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    """The answer to `body` as served (old object read lazily), and with the whole old object decoded first."""
    req = review.parse(body)
    whole = msgspec.structs.replace(req, old_object=json.loads(body)["request"]["oldObject"])
    policy = Policy.default()
    return (review.answer(UID, handlers.resourceslices(req, policy)),
            review.answer(UID, handlers.resourceslices(whole, policy)))


def bad_device() -> dict[str, Any]:
    return device("dev-0", numa=1, attributes={"model": {"string": "x" * 65}})


CLEAN = slice_with(numa=1)
CASES = {
    "unchanged": (CLEAN, CLEAN),
    "driver changed (immutable)": (slice_with(numa=1, driver="other.example.com"), CLEAN),
    "violation kept (ratcheted to a warning)": (slice_with(numa=-2), slice_with(numa=-2)),
    "violation introduced": (slice_with(numa=-2), CLEAN),
    "invalid device, also invalid before (per-device validation against the old device)": (
        slice_with(bad_device()), slice_with(bad_device())),
    "a gated field the old object used (kept)": (
        slice_with(numa=1, skipNodeOperations=["*"]), slice_with(numa=1, skipNodeOperations=["*"])),
    "a gated field the old object did not use (dropped)": (slice_with(numa=1, skipNodeOperations=["*"]), CLEAN),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_answer_is_the_one_of_the_whole_old_object(case: str) -> None:
    new, old = CASES[case]
    served, whole = answers(update(new, old))
    assert served == whole


def test_answers_differ_between_the_cases() -> None:
    """The cases above are not all the same answer (each exercises what it says)."""
    found = {json.dumps(answers(update(*CASES[case]))[0]["response"], sort_keys=True) for case in CASES}
    assert len(found) >= 5


def test_a_clean_update_leaves_the_old_devices_undecoded() -> None:
    req = review.parse(update(CLEAN, CLEAN))
    old = req.old_object
    assert isinstance(old, LazyObject)
    answer = handlers.resourceslices(req, Policy.default())
    assert (answer.allowed, answer.findings) == (True, ())
    spec = old["spec"]
    assert isinstance(spec, LazyObject)
    assert "devices" not in spec.decoded()
    assert plain(old) == CLEAN


def test_the_lazy_object_reads_as_the_decoded_one() -> None:
    old = copy.deepcopy(CLEAN)
    old["metadata"]["labels"] = {"a": "b"}
    old["spec"]["big"] = 2**70  # beyond 64 bits
    old["spec"]["huge"] = 1e308
    req = review.parse(update(CLEAN, old))
    lazy = req.old_object
    assert isinstance(lazy, LazyObject)
    assert lazy == old
    assert dict(lazy["metadata"]["labels"]) == {"a": "b"}
    assert (lazy["spec"]["big"], lazy["spec"]["huge"], len(lazy), sorted(lazy)) == (
        2**70, 1e308, 4, ["apiVersion", "kind", "metadata", "spec"])
    assert lazy.get("missing") is None
    assert lazy.plain() == old


@pytest.mark.parametrize(("old", "message"), [
    (b'{"spec": {"driver": "x"\xff}}', "request body is not valid JSON: not UTF-8"),  # outside a string
    (b'"x"', "request.oldObject: expected a JSON object, got a string"),
    (b"[1]", "request.oldObject: expected a JSON object, got an array"),
    (b"1E400", "request.oldObject: expected a JSON object, got a number"),
    (b'{"a": NaN}', "request body is not valid JSON: NaN is not JSON"),
])
def test_a_bad_old_object_is_refused_as_before(old: bytes, message: str) -> None:
    body = update(CLEAN, "OLD").replace(b'"OLD"', old)
    with pytest.raises(review.BadReview) as caught:
        review.parse(body)
    assert (caught.value.code, caught.value.message) == (400, message)


def test_an_old_object_of_null_is_none() -> None:
    assert review.parse(update(CLEAN, None)).old_object is None


def test_a_gated_field_is_kept_on_update_when_the_old_object_used_it() -> None:
    """skipNodeOperations' gate (DRAOptionalNodeOperations) is off by default: the server drops the field unless
    the stored object already used it, which only the old object tells."""
    gated = slice_with(numa=1, skipNodeOperations=["*"])
    kept, _ = answers(update(gated, gated))
    dropped, _ = answers(update(gated, CLEAN))
    assert kept["response"] == {"uid": UID, "allowed": True}
    assert [w.split("]")[0] for w in dropped["response"]["warnings"]] == ["[k8s-feature-gate"]
    assert "spec.skipNodeOperations" in dropped["response"]["warnings"][0]


@pytest.mark.parametrize("obj", [slice_with(numa=1), slice_with(numa=-2), slice_with(bad_device())],
                         ids=["clean", "violation", "invalid device"])
def test_a_create_with_old_object_null_is_answered_as_one_without(obj: dict[str, Any]) -> None:
    """The API server sends `"oldObject": null` on CREATE (that body takes the lazy envelope): the request and the
    answer are those of the same review without the member."""
    request = {
        "uid": UID, "operation": "CREATE", "name": "node-0-gpu",
        "kind": {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceSlice"},
        "resource": {"group": "resource.k8s.io", "version": "v1", "resource": "resourceslices"},
        "object": obj,
    }
    bodies = [json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": r}).encode()
              for r in ({**request, "oldObject": None}, request)]
    with_null, without = (review.parse(body) for body in bodies)
    assert with_null == without
    assert with_null.old_object is None
    policy = Policy.default()
    assert review.answer(UID, handlers.resourceslices(with_null, policy)) == \
        review.answer(UID, handlers.resourceslices(without, policy))


@pytest.mark.parametrize("first", ["oldObject", "object"])
def test_the_old_object_is_read_lazily_wherever_the_member_stands(first: str) -> None:
    # The API server writes oldObject after object; parse looks for it from the end, but finds it anywhere.
    request: dict[str, Any] = {"uid": UID, "operation": "UPDATE"}
    members = {"object": slice_with(numa=1), "oldObject": slice_with(numa=0)}
    request[first] = members[first]
    request.update(members)
    request["kind"] = {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceSlice"}
    body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).encode()
    assert (body.index(b'"oldObject"') < body.index(b'"object"')) == (first == "oldObject")
    req = review.parse(body)
    assert isinstance(req.old_object, LazyObject)
    assert plain(req.old_object) == slice_with(numa=0)


def test_the_old_object_is_listed_in_the_review_s_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clean UPDATE reads the old `spec`'s driver, pool and node name without another pass over the old object or
    its devices: only the small `pool` object is listed on its own."""
    import webhook.wire

    listed: list[bytes] = []
    decoder = webhook.wire._members_decoder()

    class Counting:
        def decode(self, raw: bytes) -> Any:
            listed.append(raw)
            return decoder.decode(raw)

    monkeypatch.setattr(webhook.wire, "_members_decoder", Counting)
    many = slice_with(*[device(f"dev-{i}", numa=i % 2) for i in range(16)])
    req = review.parse(update(many, many))
    answer = handlers.resourceslices(req, Policy.default())
    assert (answer.allowed, answer.findings) == (True, ())
    assert [json.loads(raw) for raw in listed] == [many["spec"]["pool"]]
    assert req.old_object is not None and "devices" not in req.old_object["spec"].decoded()


@pytest.mark.parametrize("member", [
    2**70, -(2**63) - 1, 1e308, -0.0, True, None, "é ü", [], [1, {"a": [2]}, "x"], {}, {"a": {"b": [1, 2]}},
], ids=repr)
def test_an_old_object_listed_in_one_pass_reads_as_the_decoded_one(member: Any) -> None:
    old = copy.deepcopy(CLEAN)
    old["top"] = member
    old["spec"]["second"] = member
    old["spec"]["third"] = {"deep": member}
    body = update(CLEAN, old)
    lazy = review.parse(body).old_object
    assert isinstance(lazy, LazyObject)
    assert lazy == json.loads(body)["request"]["oldObject"] == old
    assert (lazy["top"], lazy["spec"]["second"], lazy["spec"]["third"]["deep"]) == (member, member, member)
    assert plain(lazy) == old and plain(lazy["spec"]) == old["spec"]
    assert list(lazy) == list(old) and list(lazy["spec"]) == list(old["spec"])


@pytest.mark.parametrize("old", [
    b'{"kind": "ResourceSlice", "x": 1E400}',  # beyond a float on the first level: listed another way
    b'{"kind": "ResourceSlice", "spec": {"a": 1}, "spec": {"b": [2]}}',  # a repeated member: the last one counts
    b'{"kind": "ResourceSlice", "spec": {"x": 1E400}}',
])
def test_an_old_object_the_listing_cannot_hold_reads_as_json_loads_reads_it(old: bytes) -> None:
    body = update(CLEAN, "OLD").replace(b'"OLD"', old)
    parsed = review.parse(body).old_object
    assert parsed is not None
    assert dict(parsed) == json.loads(old) and plain(parsed) == json.loads(old)


@pytest.mark.parametrize(("where", "old", "read"), [
    ("first level", b'{"kind": "\xc3"}', {"kind": "\ufffd"}),
    # a sequence cut short: U+FFFD for each byte, as Go's utf8.DecodeRune takes one at a time
    ("second level", b'{"spec": {"driver": "ok", "model": "\xe2\x82"}}',
     {"spec": {"driver": "ok", "model": "\ufffd\ufffd"}}),
    ("third level", b'{"spec": {"pool": {"name": "\xff"}}}', {"spec": {"pool": {"name": "\ufffd"}}}),
    ("a key", b'{"spec": {"p\xffol": 1}}', {"spec": {"p\ufffdol": 1}}),
])
def test_an_old_object_not_in_utf8_reads_as_go_reads_it_at_any_depth(where: str, old: bytes, read: Any) -> None:
    """Inside a string, each byte that is not UTF-8 is U+FFFD (Go's decoder, the API server's); put outside the
    string, the byte is refused."""
    body = update(CLEAN, "OLD").replace(b'"OLD"', old)
    parsed = review.parse(body).old_object
    assert parsed is not None
    assert plain(parsed) == read
    outside = update(CLEAN, "OLD").replace(b'"OLD"', old.replace(b"}", b" \xff}", 1))
    with pytest.raises(review.BadReview) as caught:
        review.parse(outside)
    assert (caught.value.code, caught.value.message) == (400, "request body is not valid JSON: not UTF-8")
