"""`draguard`: a thin argparse shell. Every subcommand lives in `webhook/commands/<name>.py`.

A command module defines `HELP` (one line), `add_arguments(parser)` and `run(args) -> int`, and
imports its heavy dependencies inside `run` so that `draguard <cmd> --help` starts fast.
Exit codes: 0 clean, 1 findings at the failing level, 2 usage or input error.

Options and paths may be mixed in any order (`draguard lint a.yaml --slices s.yaml b.yaml`): each leaf
command parses with argparse's intermixed mode. A usage error names the command's own `--help`.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import logging
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from webhook import commands
from webhook.errors import DraguardError
from webhook.exits import EXIT_INTERRUPTED, EXIT_PIPE, EXIT_USAGE

PROG = "kubectl draguard" if os.path.basename(sys.argv[0]) == "kubectl-draguard" else "draguard"  # as a plugin
# draguard's own loggers; `-v` turns these to DEBUG and leaves every other library's at WARNING
# (cel-python and lark log every parse step at DEBUG).
OWN_LOGGERS = ("webhook", "celext", "certs")
# Batch commands that end the process without the interpreter's teardown when run as the program (see _finish).
BATCH_COMMANDS = frozenset({"lint", "validate"})
# Modules only the `server` extra installs: a command that imports one without it says so in one line.
# What writing the report can fail with (a closed pipe, a closed or full standard output, a failing device).
WRITE_ERRORS = frozenset({errno.EPIPE, errno.EBADF, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})
SERVER_MODULES = frozenset({"flask", "gunicorn", "kubernetes", "msgspec", "prometheus_client", "cryptography"})


def _command_modules(only: str | None = None) -> dict[str, ModuleType]:
    """Every command module by command name (with `only`: just the module of that file name, if any, found
    without listing the package: the listing imports pkgutil and inspect and reads the directory)."""
    import importlib.util

    if only is not None:
        found = (only.isidentifier() and not only.startswith("_")
                 and importlib.util.find_spec(f"{commands.__name__}.{only}") is not None)
        names = [only] if found else []
    else:
        import pkgutil

        names = sorted(info.name for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_"))
    modules = {}
    for name in names:
        module = importlib.import_module(f"{commands.__name__}.{name}")
        if not hasattr(module, "run"):  # a helper module (common flags), not a command
            continue
        modules[getattr(module, "NAME", name)] = module
    return modules


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on bad usage already; keep its message to one line plus a hint naming this
    (sub)command's help; a leaf command accepts options and positionals in any order."""

    _intermixing = False

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\nTry '{self.prog} --help'.\n")

    def _print_message(self, message: str, file: Any = None) -> None:
        """argparse drops a failed write of `--help` or `--version` and exits 0; written to standard output, the
        text is flushed here and a write error raised, for main to report as any command's output (_unwritten)."""
        if file is None or file is sys.stderr or not message:
            super()._print_message(message, file)
            return
        file.write(message)
        file.flush()

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # parse_known_intermixed_args calls parse_known_args twice itself: the flag stops the recursion.
        if self._intermixing or not self._leaf():
            parsed, extras = super().parse_known_args(args, namespace)
        else:
            self._intermixing = True
            try:
                parsed, extras = self.parse_known_intermixed_args(args, namespace)
            finally:
                self._intermixing = False
        if extras and self.prog != PROG and not self._intermixing:  # the command's own help, not the top's
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras

    def _leaf(self) -> bool:
        """Intermixed parsing supports no sub-commands (`certs generate`) and no remainder arguments."""
        return self.prog != PROG and not any(
            a.nargs in (argparse.PARSER, argparse.REMAINDER) for a in self._actions)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `command`, one that knows only that command when it exists (importing every
    command module, and what each imports at its top, costs a run of one command for nothing)."""
    modules = _command_modules(command) if command is not None else {}
    if command is None or command not in modules:
        modules = _command_modules()
    parser = _Parser(prog=PROG, description="Keep Kubernetes DRA NUMA topology right.")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="log draguard's own steps (files, timings, caches) to stderr")
    parser.add_argument("--version", action=_VersionAction, nargs=0, help="show program's version number and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, module in modules.items():
        leaf = sub.add_parser(name, help=module.HELP, description=module.HELP)
        # `-v` also after the command name; SUPPRESS keeps the top-level value when it is not repeated here.
        leaf.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                          help="log draguard's own steps to stderr")
        module.add_arguments(leaf)
        leaf.set_defaults(_run=module.run)
    return parser


class _VersionAction(argparse.Action):
    """argparse's `version` action, with the version looked up only when asked for (importlib.metadata is slow
    to import, and every command builds this parser)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        parser._print_message(f"{PROG} {_version()}\n", sys.stdout)
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(PROG)
    except PackageNotFoundError:
        return "unknown (not installed)"


def configure_logging(verbose: bool) -> None:
    """WARNING for everyone; DEBUG for draguard's own loggers with `-v` (never for cel-python or lark)."""
    # No `force`: a host that configured logging already (a test runner, an embedding program) keeps its handlers.
    logging.basicConfig(level=logging.WARNING, format=f"{PROG}: %(levelname)s: %(message)s", stream=sys.stderr)
    for name in OWN_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG if verbose else logging.NOTSET)
    for name in ("celpy", "lark"):  # they may set their own levels on import; pin them
        logging.getLogger(name).setLevel(logging.WARNING)


def _command_of(argv: Sequence[str]) -> str | None:
    """The command `argv` runs when only `-v` comes before it (anything else there, such as `--help`, needs
    the whole parser)."""
    for token in argv:
        if token not in ("-v", "--verbose"):
            return None if token.startswith("-") else token
    return None


def main(argv: Sequence[str] | None = None) -> int:
    _standard_streams()
    command = _command_of(sys.argv[1:] if argv is None else argv)
    if argv is None and command in BATCH_COMMANDS:  # the program, not a caller in-process: a batch run
        from webhook.gctune import until_exit

        until_exit()
    parser = build_parser(command)
    try:
        args = parser.parse_args(argv)
    except OSError as err:  # `--help` or `--version` into a closed or full standard output, or a closed pipe
        if err.errno not in WRITE_ERRORS:
            raise
        return _unwritten(err)
    configure_logging(args.verbose)
    program = argv is None and getattr(args, "command", None) in BATCH_COMMANDS
    code = _main(args)
    if program:
        _finish(code)
    return code


def _finish(code: int) -> None:
    """End a batch run now: everything is written, and the interpreter's teardown (freeing every module, selector
    and document one by one, ~5 % of a corpus lint's instructions) only delays the exit. Output that cannot be
    flushed ends the run as a write error would (_unwritten)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError as err:
        code = _unwritten(err)
    logging.shutdown()  # what the interpreter's exit would do for draguard's own handlers
    os._exit(code)


class _ClosedStream(io.TextIOBase):
    """Standard output when the process started without one (`draguard validate x >&-`): a write fails as on a
    closed descriptor, so the run ends with a write error instead of printing nothing and passing."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, f"standard output is closed: {os.strerror(errno.EBADF)}")


_KEPT: list[Any] = []  # standard output's wrappers, never collected (see _standard_streams)


class _WholeWrites(io.BufferedWriter):
    """An unbuffered standard output (PYTHONUNBUFFERED, `python -u`) that still writes every byte of each write:
    the raw stream's one write call may be short (a pipe whose reader left midway), and the text layer drops the
    rest without a word; a buffered writer goes on until all is written or the write fails (EPIPE: exit 141)."""

    def write(self, data: Any) -> int:
        written = super().write(data)
        self.flush()
        return written


def _standard_streams() -> None:
    """A closed standard output fails at the first write; an unbuffered one writes whole reports (_WholeWrites); a
    closed standard error discards the diagnostics (the caller closed it), instead of print() sending them to
    standard output."""
    raw = getattr(sys.stdout, "buffer", None)
    if sys.stdout is None:
        sys.stdout = _ClosedStream()
    elif isinstance(raw, io.RawIOBase) and sys.stdout is sys.__stdout__:  # the process's own, not a caller's
        out: Any = sys.stdout
        whole = io.TextIOWrapper(_WholeWrites(raw), encoding=out.encoding, errors=out.errors,
                                 line_buffering=bool(out.line_buffering), write_through=True)
        # Both wrappers stay referenced: either one collected would close the shared file descriptor.
        _KEPT.extend((out, whole))
        sys.stdout = whole
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115  (the process's own stderr from now on)


def _unwritten(err: OSError) -> int:
    """The exit code of a run whose output could not be written. A closed pipe (`draguard lint | head`) ends it
    silently with 141, as a process killed by SIGPIPE would (a pipeline under `pipefail` fails, whatever the
    findings); any other write error (a closed or full standard output) is one line on stderr and exit 2. The
    rest of the output is dropped, so the interpreter's exit does not fail on it again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    if isinstance(err, BrokenPipeError):
        return EXIT_PIPE
    with contextlib.suppress(OSError, ValueError):
        print(f"{PROG}: error: cannot write the output: {err.strerror or err}", file=sys.stderr)
        sys.stderr.flush()
    return EXIT_USAGE


def _main(args: argparse.Namespace) -> int:
    try:
        code: int = args._run(args)
    except DraguardError as err:
        from webhook.wire import printable

        print(f"{PROG}: error: {printable(err.message)}", file=sys.stderr)  # it may quote a file name
        return EXIT_USAGE
    except ModuleNotFoundError as err:
        missing = _server_module(err)
        if missing is None:
            return _internal_error(args.command, err)
        print(f"{PROG}: error: `{PROG} {args.command}` needs the server extra ({missing} is not installed): "
              f"pip install 'draguard[server]'", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except OSError as err:
        if err.filename is not None or err.errno not in WRITE_ERRORS:  # not a write to stdout: a bug
            return _internal_error(args.command, err)
        return _unwritten(err)
    except RecursionError:  # a CEL expression or YAML document nested beyond what the parsers recurse into
        logging.getLogger(__name__).debug("traceback", exc_info=True)
        print(f"{PROG}: error: {args.command}: an input nests too deeply for draguard "
              "(Python's recursion limit); -v shows where", file=sys.stderr)
        return EXIT_USAGE
    except Exception as err:
        return _internal_error(args.command, err)
    return code


def _internal_error(command: str, err: Exception) -> int:
    """A draguard bug: one line, never a traceback (`-v` logs it)."""
    logging.getLogger(__name__).debug("traceback", exc_info=err)
    detail = next(iter(str(err).splitlines()), "")
    print(f"{PROG}: error: {command}: internal error: {type(err).__name__}: {detail} "
          "(a draguard bug; -v shows the traceback)", file=sys.stderr)
    return EXIT_USAGE


def _server_module(err: ModuleNotFoundError) -> str | None:
    name: Any = err.name
    top = name.partition(".")[0] if isinstance(name, str) else ""
    return top if top in SERVER_MODULES else None


if __name__ == "__main__":
    raise SystemExit(main())
