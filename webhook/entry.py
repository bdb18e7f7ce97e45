"""The `draguard` and `kubectl-draguard` programs ([project.scripts]): Ctrl-C ends a run with exit 130 and nothing on
stderr from the first line draguard runs, while the modules import, on.

Python turns SIGINT into KeyboardInterrupt, which a run that is still importing (the first ~50 ms, `webhook.cli`
and what it imports) does not catch: the interpreter printed its traceback. Here SIGINT ends the process at once
while `webhook.cli` imports (nothing is open yet to finish), and is KeyboardInterrupt again while the command runs,
so a command still closes what it writes (`lint --fix`), and `webhook.cli` answers it with 130. This module imports
nothing but `os`, `signal` and `webhook.exits` before the handler is in place.
"""

from __future__ import annotations

import os
import signal

from webhook.exits import EXIT_INTERRUPTED


def _quit(_signum: int, _frame: object) -> None:
    os._exit(EXIT_INTERRUPTED)


def main() -> int:
    signal.signal(signal.SIGINT, _quit)
    from webhook.cli import main as run

    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        return run()
    except KeyboardInterrupt:  # outside a command's own handling: building the parser, its imports, the exit
        return EXIT_INTERRUPTED
    finally:
        signal.signal(signal.SIGINT, _quit)  # the interpreter's exit has nothing to finish for a second Ctrl-C
