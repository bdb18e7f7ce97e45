"""`draguard version`: print the installed version."""

from __future__ import annotations

import argparse

HELP = "print the draguard version"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def run(args: argparse.Namespace) -> int:
    from importlib.metadata import PackageNotFoundError, version

    try:
        print(version("draguard"))
    except PackageNotFoundError:
        print("unknown (not installed)")
    return 0
