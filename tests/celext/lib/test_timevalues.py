"""Durations and timestamps to the nanosecond, as cel-go keeps them (celext.lib.timevalues), on both engines:
equality and order below the microsecond, Go's text for string(), int() of a duration, the getters' truncation,
and the zone offset a timestamp keeps from its text (cel-go v0.26 `String.ConvertToType`: Go's `time.Parse`)."""

from __future__ import annotations

import copy
import datetime
import pickle

import pytest

from celext import values as celvalues
from celext.lib.operators import ConcatList
from celext.lib.timevalues import Duration, Timestamp, duration_nanos, unix_nanos
from celext.lib.typenames import type_of
from celext.semver import parse_semver
from tests.celext.lib.engines import ENGINES, outcome_on

PLUS_ONE = 'timestamp("2024-01-01T00:00:00+01:00")'


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # order and equality below the microsecond (cel-python's timedelta and datetime would lose them)
        ('duration("1ns") > duration("0s") && duration("1ns") != duration("0s")', True),
        ('duration("1001ns") > duration("1us") && duration("999ns") < duration("1us")', True),
        ('duration("1000ns") == duration("1us")', True),
        ('timestamp("2024-01-01T00:00:00.000000001Z") > timestamp("2024-01-01T00:00:00Z")', True),
        ('timestamp("2024-01-01T00:00:00.000001Z") == timestamp("2024-01-01T00:00:00.000001000Z")', True),
        ('timestamp("2024-01-01T00:00:00.000000002Z") - timestamp("2024-01-01T00:00:00.000000001Z") '
         '== duration("1ns")', True),
        ('timestamp("2009-02-13T23:31:30.999999999Z") + duration("1ns") == timestamp("2009-02-13T23:31:31Z")', True),
        ('[duration("3ns"), duration("1ns"), duration("2ns")].min() == duration("1ns")', True),
        ('[duration("1ns"), duration("2ns")].sum() == duration("3ns")', True),
        # string(): strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s", and time.RFC3339Nano in UTC
        ('string(duration("1.5s")) == "1.5s" && string(duration("-1.5s")) == "-1.5s"', True),
        ('string(duration("1ns")) == "0.000000001s" && string(duration("-1ns")) == "-0.000000001s"', True),
        ('string(duration("0")) == "0s" && string(duration("2h")) == "7200s"', True),
        ('string(duration("2562047h47m16.854775807s")) == "9223372036.854776s"', True),  # float64, as Go
        ('string(timestamp("2024-01-01T00:00:00.5Z")) == "2024-01-01T00:00:00.5Z"', True),
        ('string(timestamp("2024-01-01T00:00:00.120Z")) == "2024-01-01T00:00:00.12Z"', True),
        ('string(timestamp("9999-12-31T23:59:59.999999999Z")) == "9999-12-31T23:59:59.999999999Z"', True),
        ('string(timestamp("0001-01-01T00:00:00Z")) == "0001-01-01T00:00:00Z"', True),
        ('"%s %s".format([duration("1.25s"), timestamp("1970-01-01T00:00:00.000000001Z")]) '
         '== "1.25s 1970-01-01T00:00:00.000000001Z"', True),
        # int(): a duration's nanoseconds (Int(d.Duration)), a timestamp's Unix seconds rounded down (t.Unix())
        ('int(duration("1s")) == 1000000000 && int(duration("-1ns")) == -1', True),
        ('int(duration("-2562047h47m16.854775808s")) == -9223372036854775807 - 1', True),
        ('int(timestamp("1969-12-31T23:59:59.999999999Z")) == -1', True),
        # the getters: Go's Hours()/Minutes()/Seconds() in float64 then toward zero, Milliseconds() in integers
        ('duration("4.35s").getMilliseconds() == 4350', True),  # cel-python's float: 4349
        ('duration("-1.9999999s").getSeconds() == -1 && duration("-90m").getHours() == -1', True),
        ('duration("59.999999999s").getMinutes() == 0 && duration("1ns").getMilliseconds() == 0', True),
        ('timestamp("2024-01-01T00:00:00.999999999Z").getMilliseconds() == 999', True),
        # the zone a timestamp was written in: kept for its text, not its instant nor its getters without a zone
        # (cel.DefaultUTCTimeZone(true): those read the clock in UTC)
        (f'string({PLUS_ONE}) == "2024-01-01T00:00:00+01:00"', True),
        (f'{PLUS_ONE} == timestamp("2023-12-31T23:00:00Z")', True),
        (f'{PLUS_ONE}.getHours() == 23 && {PLUS_ONE}.getHours("+01:00") == 0 && {PLUS_ONE}.getDayOfYear() == 364',
         True),
        (f'{PLUS_ONE}.getFullYear() == 2023 && {PLUS_ONE}.getMonth() == 11 && {PLUS_ONE}.getDate() == 31', True),
        (f'string({PLUS_ONE} + duration("90m")) == "2024-01-01T01:30:00+01:00"', True),  # In(x.Location())
        (f'string(duration("90m") + {PLUS_ONE}) == "2024-01-01T01:30:00+01:00"', True),
        (f'"%s".format([{PLUS_ONE}]) == "2024-01-01T00:00:00+01:00"', True),
        ('string(timestamp("2024-01-01T00:00:00.25-05:30")) == "2024-01-01T00:00:00.25-05:30"', True),
        ('string(timestamp("2024-01-01T00:00:00+00:00")) == "2024-01-01T00:00:00Z"', True),
        ('string(timestamp("2024-01-01T00:00:00-00:00")) == "2024-01-01T00:00:00Z"', True),
        ('string(timestamp(86400)) == "1970-01-02T00:00:00Z"', True),
        # subtractTimeDurationChecked negates the duration first: -2^63 nanoseconds cannot be
        ('timestamp("2024-01-01T00:00:00Z") - duration("-2562047h47m16.854775808s") > timestamp(0)',
         "eval: integer overflow"),
        ('timestamp("2024-01-01T00:00:00Z") - duration("-2562047h47m16.854775807s") > timestamp(0)', True),
        # a wall clock carried past year 9999 by the zone: Go's calendar goes on (the getters read UTC unless told)
        ('(timestamp("9999-12-31T23:00:00+01:00") + duration("90m")).getFullYear() == 9999', True),
        ('(timestamp("9999-12-31T23:00:00+01:00") + duration("90m")).getFullYear("+01:00") == 10000', True),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_nanoseconds(engine: str, expression: str, expected: bool | str) -> None:
    assert outcome_on(engine, expression) == expected


def test_values_keep_their_nanoseconds_and_zone_through_copy_and_pickle() -> None:
    duration, timestamp = Duration(-1), Timestamp.at(5, 7, offset=-3600)
    for clone in (copy.copy, copy.deepcopy, lambda v: pickle.loads(pickle.dumps(v))):
        assert duration_nanos(clone(duration)) == -1
        assert unix_nanos(clone(timestamp)) == 5_000_000_007
        assert str(clone(timestamp)) == "1969-12-31T23:00:05.000000007-01:00"
    assert str(duration) == "-0.000000001s"


def test_equal_values_hash_alike_and_compare_with_the_microsecond_types() -> None:
    assert hash(Duration(1000)) == hash(Duration(1000))
    assert Duration(1000) == datetime.timedelta(microseconds=1) != Duration(1001)
    assert Duration(999) < datetime.timedelta(microseconds=1) < Duration(1001)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
    assert Timestamp.at(0, 0) == epoch and Timestamp.at(0, 1) > epoch
    assert Timestamp.at(0, 999) < epoch + datetime.timedelta(microseconds=1)


def test_a_timestamp_datetime_rebuilds_keeps_its_instant_to_the_microsecond() -> None:
    """datetime makes instances of a subclass in astimezone() (the getters' time zones): they answer as the
    microseconds they carry."""
    moved = Timestamp.at(0, 1_500).astimezone(datetime.timezone(datetime.timedelta(hours=1)))
    assert isinstance(moved, Timestamp) and moved.hour == 1
    assert unix_nanos(moved) == 1_000


def test_type_of_answers_the_cel_type_a_celext_value_stands_for() -> None:
    assert type_of(ConcatList([celvalues.IntType(1)])) is celvalues.ListType
    assert type_of(Duration(1)) is celvalues.DurationType
    assert type_of(Timestamp.at(0)) is celvalues.TimestampType
    assert type_of(celvalues.IntType(1)) is celvalues.IntType
    assert type_of(celvalues.IntType) is celvalues.TypeType
    assert type_of(None) is type(None)
    assert type_of(parse_semver("1.0.0")) is type(parse_semver("1.0.0"))


def test_a_timestamp_whose_wall_clock_passes_year_9999_prints_as_go_prints_it() -> None:
    late = Timestamp.at(253402300799, 0, offset=3600)  # 9999-12-31T23:59:59Z, an hour east
    assert repr(late) == "Timestamp('10000-01-01T00:59:59+01:00')"
    assert str(Timestamp.at(-62135596800, 0, offset=-60)) == "0000-12-31T23:59:00-00:01"
    assert repr(Timestamp.at(0, 1, offset=3600)) == "Timestamp('1970-01-01T01:00:00.000000001+01:00')"
