"""The one table of every function overload in celext's DRA CEL environment, as cel-go and Kubernetes declare it.

Each `OverloadDecl` says: the function name (operators by cel-go's internal names: `_==_`, `_[_]`, `@in`),
the overload id upstream uses (`string_char_at_int`, `dra_includes_dyn_dyn`), whether it is a member
(`x.f()`) or a global (`f(x)`) function, argument and result types (capital letters are type parameters),
the cost rule the static estimator applies (`celext.cost`), and the reference implementation in celext's
tree-walking engine (`lib:<id>` names an overload in `celext.lib`, `celpy:<name>` a cel-python function or
operator), and for the overloads the planner inlines, a code `template` (`_TEMPLATES` below).

Signatures are written as cel-go prints them: `(int, int) -> bool` for a global, `string.(int) -> string` for
a member function.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from msgspec import Struct
from msgspec.structs import replace

from celext.check.types import Type, parse_type

__all__ = ["FUNCTIONS", "OVERLOADS", "OverloadDecl"]


class OverloadDecl(Struct, frozen=True):
    function: str
    id: str
    member: bool
    args: tuple[Type, ...]  # the receiver first for a member overload
    result: Type
    cost: str  # the estimator's rule (celext.cost.rules); "fixed" = one unit plus the arguments
    reference: str | None = None
    # The planner's code: a Python expression over the arguments `{0}`, `{1}`, ... (receiver first) and the
    # generated module's names (TRUE, FALSE, NEW_INT, INT, NEW_STR, STRING), giving the reference
    # implementation's result whenever each argument's class is exactly its declared type's (celext.plan.typed
    # guards on that; anything else takes the general dispatch).
    template: str | None = None

    type_params: frozenset[Type] = frozenset()  # the type parameters, instantiated afresh per call


def _split_top(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in (p.strip() for p in parts) if p]


def _decl(function: str, id_: str, signature: str, cost: str = "fixed", reference: str | None = None
          ) -> OverloadDecl:
    params, result = signature.rsplit("->", 1)
    params = params.strip()
    member = not params.startswith("(")
    receiver: list[str] = []
    if member:
        receiver_text, params = params.split(".(", 1)
        receiver = [receiver_text]
        params = "(" + params
    args = [*receiver, *_split_top(params[1:-1])]
    types = tuple(parse_type(a) for a in args)
    out = parse_type(result)
    return OverloadDecl(function, id_, member, types, out, cost, reference, None, _params(*types, out))


def _params(*types: Type) -> frozenset[Type]:
    found: set[Type] = set()
    for t in types:
        if t.kind == "param":
            found.add(t)
        found |= _params(*t.params)
    return frozenset(found)


_ORDERED = ("bool", "int", "uint", "double", "string", "bytes", "timestamp", "duration")
_GO = {"int": "int64", "uint": "uint64"}
_RELATIONS = (("_<_", "less"), ("_<=_", "less_equals"), ("_>_", "greater"), ("_>=_", "greater_equals"))
_CROSS = (("int", "double"), ("int", "uint"), ("uint", "double"), ("uint", "int"), ("double", "int"),
          ("double", "uint"))


def _relations() -> Iterator[OverloadDecl]:
    for op, stem in _RELATIONS:
        for t in _ORDERED:
            cost = "compare_size" if t in ("string", "bytes") else "fixed"
            yield _decl(op, f"{stem}_{_GO.get(t, t)}", f"({t}, {t}) -> bool", cost, f"celpy:{op}")
        for a, b in _CROSS:  # cel-go's CrossTypeNumericComparisons (on in the Kubernetes environment)
            yield _decl(op, f"{stem}_{_GO.get(a, a)}_{_GO.get(b, b)}", f"({a}, {b}) -> bool", "fixed", f"celpy:{op}")


def _arithmetic() -> Iterator[OverloadDecl]:
    numbers = ("int", "uint", "double")
    for op, stem, kinds in (("_*_", "multiply", numbers), ("_/_", "divide", numbers), ("_%_", "modulo", numbers[:2]),
                            ("_-_", "subtract", numbers)):
        for t in kinds:
            yield _decl(op, f"{stem}_{_GO.get(t, t)}", f"({t}, {t}) -> {t}", "fixed", f"celpy:{op}")
    for t in ("int", "uint", "double"):
        yield _decl("_+_", f"add_{_GO.get(t, t)}", f"({t}, {t}) -> {t}", "fixed", "celpy:_+_")


_TABLE: tuple[tuple[str, str, str, str, str | None], ...] = (
    # logic, equality, conditional, membership, indexing (cel-go common/stdlib)
    ("_&&_", "logical_and", "(bool, bool) -> bool", "logical", "celpy:_&&_"),
    ("_||_", "logical_or", "(bool, bool) -> bool", "logical", "celpy:_||_"),
    ("!_", "logical_not", "(bool) -> bool", "fixed", "celpy:!_"),
    ("@not_strictly_false", "not_strictly_false", "(bool) -> bool", "fixed", None),
    ("_==_", "equals", "(A, A) -> bool", "equality", "celpy:_==_"),
    ("_!=_", "not_equals", "(A, A) -> bool", "equality", "celpy:_!=_"),
    ("_?_:_", "conditional", "(bool, A, A) -> A", "conditional", "celpy:_?_:_"),
    ("@in", "in_list", "(A, list(A)) -> bool", "in_list", "celpy:_in_"),
    ("@in", "in_map", "(A, map(A, B)) -> bool", "fixed", "celpy:_in_"),
    ("_[_]", "index_list", "(list(A), int) -> A", "fixed", "celpy:_[_]"),
    ("_[_]", "index_map", "(map(A, B), A) -> B", "fixed", "celpy:_[_]"),
    ("-_", "negate_int64", "(int) -> int", "fixed", "celpy:-_"),
    ("-_", "negate_double", "(double) -> double", "fixed", "celpy:-_"),
    ("_+_", "add_string", "(string, string) -> string", "concat", "celpy:_+_"),
    ("_+_", "add_bytes", "(bytes, bytes) -> bytes", "concat", "celpy:_+_"),
    ("_+_", "add_list", "(list(A), list(A)) -> list(A)", "concat_list", "celpy:_+_"),
    ("_+_", "add_timestamp_duration", "(timestamp, duration) -> timestamp", "fixed", "celpy:_+_"),
    ("_+_", "add_duration_timestamp", "(duration, timestamp) -> timestamp", "fixed", "celpy:_+_"),
    ("_+_", "add_duration_duration", "(duration, duration) -> duration", "fixed", "celpy:_+_"),
    ("_-_", "subtract_timestamp_timestamp", "(timestamp, timestamp) -> duration", "fixed", "celpy:_-_"),
    ("_-_", "subtract_timestamp_duration", "(timestamp, duration) -> timestamp", "fixed", "celpy:_-_"),
    ("_-_", "subtract_duration_duration", "(duration, duration) -> duration", "fixed", "celpy:_-_"),
    # size, strings, regex (standard)
    ("size", "size_string", "(string) -> int", "fixed", "celpy:size"),
    ("size", "size_bytes", "(bytes) -> int", "fixed", "celpy:size"),
    ("size", "size_list", "(list(A)) -> int", "fixed", "celpy:size"),
    ("size", "size_map", "(map(A, B)) -> int", "fixed", "celpy:size"),
    ("size", "string_size", "string.() -> int", "fixed", "celpy:size"),
    ("size", "bytes_size", "bytes.() -> int", "fixed", "celpy:size"),
    ("size", "list_size", "list(A).() -> int", "fixed", "celpy:size"),
    ("size", "map_size", "map(A, B).() -> int", "fixed", "celpy:size"),
    ("contains", "contains_string", "string.(string) -> bool", "contains", "celpy:contains"),
    ("startsWith", "starts_with_string", "string.(string) -> bool", "prefix", "celpy:startsWith"),
    ("endsWith", "ends_with_string", "string.(string) -> bool", "prefix", "celpy:endsWith"),
    ("matches", "matches", "(string, string) -> bool", "matches", "celpy:matches"),
    ("matches", "matches_string", "string.(string) -> bool", "matches", "celpy:matches"),
    # conversions and type functions
    ("int", "int64_to_int64", "(int) -> int", "fixed", "celpy:int"),
    ("int", "uint64_to_int64", "(uint) -> int", "fixed", "celpy:int"),
    ("int", "double_to_int64", "(double) -> int", "fixed", "celpy:int"),
    ("int", "string_to_int64", "(string) -> int", "fixed", "celpy:int"),
    ("int", "timestamp_to_int64", "(timestamp) -> int", "fixed", "celpy:int"),
    ("int", "duration_to_int64", "(duration) -> int", "fixed", "celpy:int"),
    ("uint", "uint64_to_uint64", "(uint) -> uint", "fixed", "celpy:uint"),
    ("uint", "int64_to_uint64", "(int) -> uint", "fixed", "celpy:uint"),
    ("uint", "double_to_uint64", "(double) -> uint", "fixed", "celpy:uint"),
    ("uint", "string_to_uint64", "(string) -> uint", "fixed", "celpy:uint"),
    ("double", "double_to_double", "(double) -> double", "fixed", "celpy:double"),
    ("double", "int64_to_double", "(int) -> double", "fixed", "celpy:double"),
    ("double", "uint64_to_double", "(uint) -> double", "fixed", "celpy:double"),
    ("double", "string_to_double", "(string) -> double", "fixed", "celpy:double"),
    ("string", "string_to_string", "(string) -> string", "fixed", "celpy:string"),
    ("string", "bool_to_string", "(bool) -> string", "fixed", "celpy:string"),
    ("string", "int64_to_string", "(int) -> string", "fixed", "celpy:string"),
    ("string", "uint64_to_string", "(uint) -> string", "fixed", "celpy:string"),
    ("string", "double_to_string", "(double) -> string", "fixed", "celpy:string"),
    ("string", "bytes_to_string", "(bytes) -> string", "bytes_to_string", "celpy:string"),
    ("string", "timestamp_to_string", "(timestamp) -> string", "fixed", "celpy:string"),
    ("string", "duration_to_string", "(duration) -> string", "fixed", "celpy:string"),
    ("bytes", "bytes_to_bytes", "(bytes) -> bytes", "fixed", "celpy:bytes"),
    ("bytes", "string_to_bytes", "(string) -> bytes", "string_to_bytes", "celpy:bytes"),
    ("bool", "bool_to_bool", "(bool) -> bool", "fixed", "celpy:bool"),
    ("bool", "string_to_bool", "(string) -> bool", "fixed", "celpy:bool"),
    ("duration", "duration_to_duration", "(duration) -> duration", "fixed", "celpy:duration"),
    ("duration", "int64_to_duration", "(int) -> duration", "fixed", "celpy:duration"),  # declared; always fails
    ("duration", "string_to_duration", "(string) -> duration", "fixed", "celpy:duration"),
    ("timestamp", "timestamp_to_timestamp", "(timestamp) -> timestamp", "fixed", "celpy:timestamp"),
    ("timestamp", "string_to_timestamp", "(string) -> timestamp", "fixed", "celpy:timestamp"),
    ("timestamp", "int64_to_timestamp", "(int) -> timestamp", "fixed", "celpy:timestamp"),
    ("dyn", "to_dyn", "(A) -> dyn", "fixed", None),
    ("type", "type", "(A) -> type(A)", "fixed", "celpy:type"),
    # Kubernetes quantity library
    ("quantity", "string_to_quantity", "(string) -> kubernetes.Quantity", "parse", "lib:string_to_quantity"),
    ("isQuantity", "is_quantity_string", "(string) -> bool", "parse", "lib:is_quantity_string"),
    ("sign", "quantity_sign", "(kubernetes.Quantity) -> int", "fixed", "lib:quantity_sign"),
    ("isGreaterThan", "quantity_is_greater_than", "kubernetes.Quantity.(kubernetes.Quantity) -> bool", "fixed",
     "lib:quantity_is_greater_than"),
    ("isLessThan", "quantity_is_less_than", "kubernetes.Quantity.(kubernetes.Quantity) -> bool", "fixed",
     "lib:quantity_is_less_than"),
    ("compareTo", "quantity_compare_to", "kubernetes.Quantity.(kubernetes.Quantity) -> int", "fixed",
     "lib:quantity_compare_to"),
    ("asApproximateFloat", "quantity_get_float", "kubernetes.Quantity.() -> double", "fixed",
     "lib:quantity_get_float"),
    ("asInteger", "quantity_get_int", "kubernetes.Quantity.() -> int", "fixed", "lib:quantity_get_int"),
    ("isInteger", "quantity_is_integer", "kubernetes.Quantity.() -> bool", "fixed", "lib:quantity_is_integer"),
    ("add", "quantity_add", "kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity", "fixed",
     "lib:quantity_add"),
    ("add", "quantity_add_int", "kubernetes.Quantity.(int) -> kubernetes.Quantity", "fixed", "lib:quantity_add_int"),
    ("sub", "quantity_sub", "kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity", "fixed",
     "lib:quantity_sub"),
    ("sub", "quantity_sub_int", "kubernetes.Quantity.(int) -> kubernetes.Quantity", "fixed", "lib:quantity_sub_int"),
    # Kubernetes semver library
    ("semver", "string_to_semver", "(string) -> kubernetes.Semver", "parse", "lib:string_to_semver"),
    ("semver", "string_bool_to_semver", "(string, bool) -> kubernetes.Semver", "parse", "lib:string_bool_to_semver"),
    ("isSemver", "is_semver_string", "(string) -> bool", "parse", "lib:is_semver_string"),
    ("isSemver", "is_semver_string_bool", "(string, bool) -> bool", "parse", "lib:is_semver_string_bool"),
    ("isGreaterThan", "semver_is_greater_than", "kubernetes.Semver.(kubernetes.Semver) -> bool", "fixed",
     "lib:semver_is_greater_than"),
    ("isLessThan", "semver_is_less_than", "kubernetes.Semver.(kubernetes.Semver) -> bool", "fixed",
     "lib:semver_is_less_than"),
    ("compareTo", "semver_compare_to", "kubernetes.Semver.(kubernetes.Semver) -> int", "fixed",
     "lib:semver_compare_to"),
    ("major", "semver_major", "kubernetes.Semver.() -> int", "fixed", "lib:semver_major"),
    ("minor", "semver_minor", "kubernetes.Semver.() -> int", "fixed", "lib:semver_minor"),
    ("patch", "semver_patch", "kubernetes.Semver.() -> int", "fixed", "lib:semver_patch"),
    # Kubernetes IP and CIDR libraries
    ("ip", "string_to_ip", "(string) -> net.IP", "parse", "lib:string_to_ip"),
    ("isIP", "is_ip", "(string) -> bool", "parse", "lib:is_ip"),
    ("ip.isCanonical", "ip_is_canonical", "(string) -> bool", "parse_twice", "lib:ip_is_canonical"),
    ("family", "ip_family", "net.IP.() -> int", "fixed", "lib:ip_family"),
    ("isUnspecified", "ip_is_unspecified", "net.IP.() -> bool", "fixed", "lib:ip_is_unspecified"),
    ("isLoopback", "ip_is_loopback", "net.IP.() -> bool", "fixed", "lib:ip_is_loopback"),
    ("isLinkLocalMulticast", "ip_is_link_local_multicast", "net.IP.() -> bool", "fixed",
     "lib:ip_is_link_local_multicast"),
    ("isLinkLocalUnicast", "ip_is_link_local_unicast", "net.IP.() -> bool", "fixed", "lib:ip_is_link_local_unicast"),
    ("isGlobalUnicast", "ip_is_global_unicast", "net.IP.() -> bool", "fixed", "lib:ip_is_global_unicast"),
    ("string", "ip_to_string", "(net.IP) -> string", "fixed", "celpy:string"),
    ("cidr", "string_to_cidr", "(string) -> net.CIDR", "parse", "lib:string_to_cidr"),
    ("isCIDR", "is_cidr", "(string) -> bool", "parse", "lib:is_cidr"),
    ("containsIP", "cidr_contains_ip_string", "net.CIDR.(string) -> bool", "contains_ip",
     "lib:cidr_contains_ip_string"),
    ("containsIP", "cidr_contains_ip_ip", "net.CIDR.(net.IP) -> bool", "contains_ip", "lib:cidr_contains_ip_ip"),
    ("containsCIDR", "cidr_contains_cidr_string", "net.CIDR.(string) -> bool", "contains_cidr",
     "lib:cidr_contains_cidr_string"),
    ("containsCIDR", "cidr_contains_cidr", "net.CIDR.(net.CIDR) -> bool", "contains_cidr", "lib:cidr_contains_cidr"),
    ("ip", "cidr_ip", "net.CIDR.() -> net.IP", "fixed", "lib:cidr_ip"),
    ("prefixLength", "cidr_prefix_length", "net.CIDR.() -> int", "fixed", "lib:cidr_prefix_length"),
    ("masked", "cidr_masked", "net.CIDR.() -> net.CIDR", "fixed", "lib:cidr_masked"),
    ("string", "cidr_to_string", "(net.CIDR) -> string", "fixed", "celpy:string"),
    # Kubernetes URL library (no cost estimate for isURL upstream: cel-go's default)
    ("url", "string_to_url", "(string) -> kubernetes.URL", "parse_sized", "lib:string_to_url"),
    ("isURL", "is_url_string", "(string) -> bool", "fixed", "lib:is_url_string"),
    ("getScheme", "url_get_scheme", "kubernetes.URL.() -> string", "fixed", "lib:url_get_scheme"),
    ("getHost", "url_get_host", "kubernetes.URL.() -> string", "fixed", "lib:url_get_host"),
    ("getHostname", "url_get_hostname", "kubernetes.URL.() -> string", "fixed", "lib:url_get_hostname"),
    ("getPort", "url_get_port", "kubernetes.URL.() -> string", "fixed", "lib:url_get_port"),
    ("getEscapedPath", "url_get_escaped_path", "kubernetes.URL.() -> string", "fixed", "lib:url_get_escaped_path"),
    ("getQuery", "url_get_query", "kubernetes.URL.() -> map(string, list(string))", "fixed", "lib:url_get_query"),
    # Kubernetes regex library
    ("find", "string_find_string", "string.(string) -> string", "find", "lib:string_find_string"),
    ("findAll", "string_find_all_string", "string.(string) -> list(string)", "find", "lib:string_find_all_string"),
    ("findAll", "string_find_all_string_int", "string.(string, int) -> list(string)", "find",
     "lib:string_find_all_string_int"),
    # Kubernetes lists library
    ("indexOf", "list_a_index_of_int", "list(A).(A) -> int", "list_traversal", "lib:list_index_of"),
    ("lastIndexOf", "list_a_last_index_of_int", "list(A).(A) -> int", "list_traversal", "lib:list_last_index_of"),
    # DRA: includes() (dynamic-resource-allocation cel/compile.go)
    ("includes", "dra_includes_dyn_dyn", "dyn.(dyn) -> bool", "includes", "lib:dra_includes_dyn_dyn"),
    # celext extension: KEP-5491's draft spelling (the API server rejects it; the selector lint rules warn)
    ("include", "draguard_include_dyn_dyn", "dyn.(dyn) -> bool", "includes", "lib:draguard_include_dyn_dyn"),
    # cel-go ext.Strings (version 2)
    ("charAt", "string_char_at_int", "string.(int) -> string", "fixed", "lib:string_char_at_int"),
    ("indexOf", "string_index_of_string", "string.(string) -> int", "list_traversal", "lib:string_index_of_string"),
    ("indexOf", "string_index_of_string_int", "string.(string, int) -> int", "list_traversal",
     "lib:string_index_of_string_int"),
    ("lastIndexOf", "string_last_index_of_string", "string.(string) -> int", "list_traversal",
     "lib:string_last_index_of_string"),
    ("lastIndexOf", "string_last_index_of_string_int", "string.(string, int) -> int", "list_traversal",
     "lib:string_last_index_of_string_int"),
    ("lowerAscii", "string_lower_ascii", "string.() -> string", "traverse_target", "lib:string_lower_ascii"),
    ("upperAscii", "string_upper_ascii", "string.() -> string", "traverse_target", "lib:string_upper_ascii"),
    ("replace", "string_replace_string_string", "string.(string, string) -> string", "replace",
     "lib:string_replace_string_string"),
    ("replace", "string_replace_string_string_int", "string.(string, string, int) -> string", "replace",
     "lib:string_replace_string_string_int"),
    ("split", "string_split_string", "string.(string) -> list(string)", "split", "lib:string_split_string"),
    ("split", "string_split_string_int", "string.(string, int) -> list(string)", "split",
     "lib:string_split_string_int"),
    ("substring", "string_substring_int", "string.(int) -> string", "traverse_target", "lib:string_substring_int"),
    ("substring", "string_substring_int_int", "string.(int, int) -> string", "traverse_target",
     "lib:string_substring_int_int"),
    ("trim", "string_trim", "string.() -> string", "traverse_target", "lib:string_trim"),
    ("join", "list_join", "list(string).() -> string", "join", "lib:list_join"),
    ("join", "list_join_string", "list(string).(string) -> string", "join", "lib:list_join_string"),
    ("format", "string_format", "string.(list(dyn)) -> string", "format", "lib:string_format"),
    ("strings.quote", "strings_quote", "(string) -> string", "quote", "lib:strings_quote"),
    # cel-go ext.Sets
    ("sets.contains", "list_sets_contains_list", "(list(T), list(T)) -> bool", "sets",
     "lib:list_sets_contains_list"),
    ("sets.equivalent", "list_sets_equivalent_list", "(list(T), list(T)) -> bool", "sets_equivalent",
     "lib:list_sets_equivalent_list"),
    ("sets.intersects", "list_sets_intersects_list", "(list(T), list(T)) -> bool", "sets",
     "lib:list_sets_intersects_list"),
    # cel-go ext.Lists (version 3 in the Kubernetes environment)
    ("slice", "list_slice", "list(T).(int, int) -> list(T)", "list_slice", "lib:list_slice"),
    ("flatten", "list_flatten", "list(list(T)).() -> list(T)", "list_flatten", "lib:list_flatten"),
    ("flatten", "list_flatten_int", "list(dyn).(int) -> list(dyn)", "list_flatten", "lib:list_flatten_int"),
    ("lists.range", "lists_range", "(int) -> list(int)", "lists_range", "lib:lists_range"),
    ("reverse", "list_reverse", "list(T).() -> list(T)", "list_reverse", "lib:list_reverse"),
    ("distinct", "list_distinct", "list(T).() -> list(T)", "list_distinct", "lib:list_distinct"),
    # optional types (cel-go cel/library.go)
    ("optional.of", "optional_of", "(V) -> optional(V)", "fixed", "lib:optional_of"),
    ("optional.ofNonZeroValue", "optional_ofNonZeroValue", "(V) -> optional(V)", "fixed",
     "lib:optional_of_non_zero_value"),
    ("optional.none", "optional_none", "() -> optional(V)", "fixed", "lib:optional_none"),
    ("value", "optional_value", "optional(V).() -> V", "fixed", "lib:optional_value"),
    ("hasValue", "optional_hasValue", "optional(V).() -> bool", "fixed", "lib:optional_has_value"),
    ("or", "optional_or_optional", "optional(V).(optional(V)) -> optional(V)", "fixed", "lib:optional_or_optional"),
    ("orValue", "optional_orValue_value", "optional(V).(V) -> V", "fixed", "lib:optional_or_value"),
    # optional types version 2 (cel.OptionalTypes() defaults to the latest version)
    ("last", "list_last", "list(V).() -> optional(V)", "fixed", "lib:list_last"),
    ("first", "list_first", "list(V).() -> optional(V)", "fixed", "lib:list_first"),
    ("optional.unwrap", "optional_unwrap", "(list(optional(V))) -> list(V)", "fixed", "lib:optional_unwrap"),
    ("unwrapOpt", "optional_unwrapOpt", "list(optional(V)).() -> list(V)", "fixed", "lib:optional_unwrapOpt"),
    ("_[?_]", "list_optindex_optional_int", "(list(V), int) -> optional(V)", "fixed", None),
    ("_[?_]", "optional_list_optindex_optional_int", "(optional(list(V)), int) -> optional(V)", "fixed", None),
    ("_[?_]", "map_optindex_optional_value", "(map(K, V), K) -> optional(V)", "fixed", None),
    ("_[?_]", "optional_map_optindex_optional_value", "(optional(map(K, V)), K) -> optional(V)", "fixed", None),
    ("_[_]", "optional_list_index_int", "(optional(list(V)), int) -> optional(V)", "fixed", None),
    ("_[_]", "optional_map_index_value", "(optional(map(K, V)), K) -> optional(V)", "fixed", None),
    # two-variable comprehensions' map insertion (cel-go ext.TwoVarComprehensions)
    ("cel.@mapInsert", "@mapInsert_map_key_value", "(map(K, V), K, V) -> map(K, V)", "fixed", None),
    ("cel.@mapInsert", "@mapInsert_map_map", "(map(K, V), map(K, V)) -> map(K, V)", "fixed", None),
)


_TIME_ACCESSORS = (("getFullYear", "year", False), ("getMonth", "month", False),
                   ("getDayOfYear", "day_of_year", False), ("getDayOfMonth", "day_of_month", False),
                   ("getDate", "day_of_month_1_based", False), ("getDayOfWeek", "day_of_week", False),
                   ("getHours", "hours", True), ("getMinutes", "minutes", True), ("getSeconds", "seconds", True),
                   ("getMilliseconds", "milliseconds", True))


def _time_accessors() -> Iterator[OverloadDecl]:
    """cel-go's timestamp (and duration) accessors, with and without a time zone argument."""
    for name, stem, on_duration in _TIME_ACCESSORS:
        yield _decl(name, f"timestamp_to_{stem}", "timestamp.() -> int", "fixed", f"celpy:{name}")
        tz_id = "timestamp_to_seconds_tz" if stem == "seconds" else f"timestamp_to_{stem}_with_tz"
        yield _decl(name, tz_id, "timestamp.(string) -> int", "fixed", f"celpy:{name}")
        if on_duration:
            yield _decl(name, f"duration_to_{stem}", "duration.() -> int", "fixed", f"celpy:{name}")


def _templated() -> Iterator[OverloadDecl]:
    """Overloads upstream declares once per comparable or summable type."""
    comparable = ("int", "uint", "double", "bool", "duration", "timestamp", "string", "bytes")
    for t in comparable:
        yield _decl("isSorted", f"list_{t}_is_sorted_bool", f"list({t}).() -> bool", "list_traversal",
                    "lib:list_is_sorted")
        yield _decl("max", f"list_{t}_max_{t}", f"list({t}).() -> {t}", "list_traversal", "lib:list_max")
        yield _decl("min", f"list_{t}_min_{t}", f"list({t}).() -> {t}", "list_traversal", "lib:list_min")
        sort = "list_sort_text" if t in ("string", "bytes") else "list_sort"  # (ext/lists.go estimateListSortCost)
        yield _decl("sort", f"list_{t}_sort", f"list({t}).() -> list({t})", sort, "lib:list_sort")
        yield _decl("@sortByAssociatedKeys", f"list_{t}_sortByAssociatedKeys", f"list(T).(list({t})) -> list(T)",
                    sort, None)
    for t in ("int", "uint", "double", "duration"):
        yield _decl("sum", f"list_{t}_sum_{t}", f"list({t}).() -> {t}", "list_traversal", "lib:list_sum")


_NAN_ORDER = 'ERROR("NaN values cannot be ordered")'  # cel-go Double.Compare (celext.lib.operators.NAN_ORDER)


def _ordering_templates() -> Iterator[tuple[str, str]]:
    """`<`, `<=`, `>`, `>=` on two values of one primitive type: Python's own ordering is CEL's there (strings
    by code point, as cel-go's byte-wise UTF-8 order; bools false < true). Doubles: the ordering, else its
    complement, else (a NaN operand, where both are false) cel-go's error."""
    python = {"int": "int", "uint": "int", "bool": "int", "double": "float", "string": "str"}
    methods = ("__lt__", "__le__", "__gt__", "__ge__")
    complements = ("__ge__", "__gt__", "__le__", "__lt__")
    for (_, stem), method, complement in zip(_RELATIONS, methods, complements, strict=True):
        for t, base in python.items():
            if t == "double":
                yield (f"{stem}_double", f"TRUE if float.{method}({{0}}, {{1}}) else FALSE "
                       f"if float.{complement}({{0}}, {{1}}) else {_NAN_ORDER}")
            else:
                yield f"{stem}_{_GO.get(t, t)}", f"TRUE if {base}.{method}({{0}}, {{1}}) else FALSE"


# Overloads the planner inlines (the rest are called through the reference implementation).
_TEMPLATES: Mapping[str, str] = {
    **dict(_ordering_templates()),
    "logical_not": "FALSE if {0} else TRUE",
    "contains_string": "TRUE if str.__contains__({0}, {1}) else FALSE",
    "starts_with_string": "TRUE if str.startswith({0}, {1}) else FALSE",
    "ends_with_string": "TRUE if str.endswith({0}, {1}) else FALSE",
    "size_string": "NEW_INT(INT, str.__len__({0}))",  # code points, as cel-go counts them
    "string_size": "NEW_INT(INT, str.__len__({0}))",
    "size_list": "NEW_INT(INT, list.__len__({0}))",
    "list_size": "NEW_INT(INT, list.__len__({0}))",
    "add_string": "NEW_STR(STRING, str.__add__({0}, {1}))",
    # Quantities compare by their exact Decimal value, versions by their precedence tuple (celext.semver):
    # both comparisons run in C on forms computed once per parsed string.
    "quantity_is_greater_than": "TRUE if {0}.value > {1}.value else FALSE",
    "quantity_is_less_than": "TRUE if {0}.value < {1}.value else FALSE",
    "quantity_compare_to": "NEW_INT(INT, ({0}.value > {1}.value) - ({0}.value < {1}.value))",
    "semver_is_greater_than": "TRUE if {0}.key > {1}.key else FALSE",
    "semver_is_less_than": "TRUE if {0}.key < {1}.key else FALSE",
    "semver_compare_to": "NEW_INT(INT, ({0}.key > {1}.key) - ({0}.key < {1}.key))",
}


def _with_templates(decls: Iterator[OverloadDecl]) -> Iterator[OverloadDecl]:
    for decl in decls:
        code = _TEMPLATES.get(decl.id)
        yield decl if code is None else replace(decl, template=code)


OVERLOADS: tuple[OverloadDecl, ...] = tuple(_with_templates(iter(
    (*_relations(), *_arithmetic(), *(_decl(*row) for row in _TABLE), *_templated(), *_time_accessors()))))


def _by_function() -> dict[str, tuple[OverloadDecl, ...]]:
    grouped: dict[str, list[OverloadDecl]] = {}
    seen: set[str] = set()
    for o in OVERLOADS:
        if o.id in seen:  # one id, one overload: a typo here would silently shadow another
            raise ValueError(f"duplicate overload id {o.id}")
        seen.add(o.id)
        grouped.setdefault(o.function, []).append(o)
    return {name: tuple(items) for name, items in grouped.items()}


FUNCTIONS: Mapping[str, tuple[OverloadDecl, ...]] = _by_function()
if set(_TEMPLATES) - {o.id for o in OVERLOADS}:  # a misspelt id would silently never be inlined
    raise ValueError(f"templates for unknown overloads: {sorted(set(_TEMPLATES) - {o.id for o in OVERLOADS})}")
BY_ID: Mapping[str, OverloadDecl] = {o.id: o for o in OVERLOADS}
