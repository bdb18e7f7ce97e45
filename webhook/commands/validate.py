"""`draguard validate PATH...`: run the rule catalogue over manifests on disk, as the API server and
draguard's admission webhook would judge them.

It shares its flags (`webhook.commands.common`) and its run (`webhook.check_run`) with `lint`, so both give
the same findings, positions and exit codes for the same inputs: the libyaml reader, worker processes on
big inputs, and an inventory only when one is given (`--slices`, `--classes`). Exit 0 when nothing is at
or above `--fail-on` (default warn), 1 when something is (or `--strict` fails), 2 when an input could not be
read (one line each on stderr, after everything else was checked) or the usage is wrong.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING

from webhook.commands.common import add_common_arguments

if TYPE_CHECKING:
    from webhook.wire import Obj

HELP = "check ResourceSlices, claims and device classes in files against the rule catalogue"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from webhook.check_run import check, report

    result, _inventory = check(args)
    return report(args, result)


# -- objects with their positions, for other commands (topology --check) --------------------------------

if TYPE_CHECKING:
    from webhook.lint import Located
    from webhook.manifests import Problem


@dataclass(frozen=True, slots=True)
class Placed:
    """One object read from a file, and where to look up the line and column of its fields."""

    obj: Obj
    locator: Located


def read_objects(paths: list[str], ignore: tuple[str, ...] = ()) -> tuple[list[Placed], list[Problem]]:
    """Every object in `paths` (files, directories, `-`), skipping files that match an `ignore` glob."""
    import fnmatch
    import sys

    from webhook.manifests import _read_sources

    problems: list[Problem] = []
    objects: list[Placed] = []
    for source, text in _read_sources(paths, problems, sys.stdin):
        if not any(fnmatch.fnmatch(source, glob) for glob in ignore):
            objects += _parse(text, source, problems)
    return objects, problems


def _parse(text: str, source: str, problems: list[Problem]) -> list[Placed]:
    """The objects of one file, read as lint reads them (libyaml, else ruamel)."""
    from webhook.lint import parse

    return [Placed(doc.obj, doc) for doc in parse(text, source, problems)]
