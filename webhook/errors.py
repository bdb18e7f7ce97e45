"""The one base for errors a user can cause in the webhook package.

Such errors carry a one-line message; `cli.main` turns them into exit code 2 and the Flask error
handler into a 4xx. Anything else escaping is a bug and is logged as one.
"""


class DraguardError(Exception):
    """A user-caused problem (bad flag, unreadable file, invalid policy) with a one-line message."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))  # one line, always

    @property
    def message(self) -> str:
        return str(self.args[0])
