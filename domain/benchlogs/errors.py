"""The one exception type the benchmark-log parsers raise."""

from __future__ import annotations

from domain.messages import Message


class BenchLogError(Exception):
    """A log that cannot be turned into a result: empty, garbage, unsupported or unit-less.

    The bilingual ``message`` is what the user sees; ``str(error)`` is its English text so that
    logs and tracebacks stay readable.
    """

    def __init__(self, message: Message) -> None:
        super().__init__(message.en)
        self.message = message

    @property
    def code(self) -> str:
        return self.message.code
