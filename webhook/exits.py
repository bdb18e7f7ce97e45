"""draguard's exit codes, one place for every command: 0 clean, 1 findings at the failing level, 2 usage or
input error (an unreadable file, a bad flag; `cli.main` turns a DraguardError into it) or output that cannot be
written, 130 a run interrupted (Ctrl-C, SIGINT), 141 output cut off by a closed pipe (128 + the signal, as a shell
reports a process the signal ends)."""

from __future__ import annotations

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 128 + 2  # SIGINT
EXIT_PIPE = 128 + 13  # SIGPIPE


def exit_code(*, problems: bool, failing: bool) -> int:
    """An input problem outranks findings: what was not read cannot be called clean or failing."""
    if problems:
        return EXIT_USAGE
    return EXIT_FINDINGS if failing else EXIT_OK
