"""`draguard`: a thin argparse shell. Every subcommand lives in `webhook/commands/<name>.py`.

A command module defines `HELP` (one line), `add_arguments(parser)` and `run(args) -> int`, and
imports its heavy dependencies inside `run` so that `draguard <cmd> --help` starts fast.
Exit codes: 0 clean, 1 findings at the failing level, 2 usage or input error.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from webhook import commands
from webhook.errors import DraguardError

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
PROG = "draguard"


def _command_modules() -> dict[str, ModuleType]:
    modules = {}
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        modules[getattr(module, "NAME", info.name)] = module
    return modules


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on bad usage already; keep its message to one line plus a hint."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\nTry '{self.prog} --help'.\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Keep Kubernetes DRA NUMA topology right.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log diagnostics to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, module in _command_modules().items():
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format=f"{PROG}: %(levelname)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        code: int = args._run(args)
    except DraguardError as err:
        print(f"{PROG}: error: {err.message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `draguard lint ... | head`
        return EXIT_OK
    return code


if __name__ == "__main__":
    raise SystemExit(main())
