"""draguard's exit codes, one place for every command: 0 clean, 1 findings at the failing level, 2 usage or
input error (an unreadable file, a bad flag; `cli.main` turns a DraguardError into it)."""

from __future__ import annotations

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def exit_code(*, problems: bool, failing: bool) -> int:
    """An input problem outranks findings: what was not read cannot be called clean or failing."""
    if problems:
        return EXIT_USAGE
    return EXIT_FINDINGS if failing else EXIT_OK
