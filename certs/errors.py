"""The one base for every error the certs package raises on purpose.

A `CertsError` carries a one-line message naming the file or object and what is wrong with it; the CLI turns it
into exit code 2. Anything else escaping the package is a bug.
"""


class CertsError(Exception):
    """Unusable certificate material, a failed write, or an unreachable or refusing cluster."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))  # one line, always

    @property
    def message(self) -> str:
        return str(self.args[0])
