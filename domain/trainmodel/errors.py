"""Domain errors of the training-time model: every one carries bilingual messages."""

from __future__ import annotations

from domain.messages import Message


class TrainModelError(ValueError):
    """Bad input (a layout that cannot exist, an absurd size, an unknown GPU...).

    `messages` holds one bilingual Message per problem; `str()` gives the English texts.
    """

    def __init__(self, messages: list[Message] | tuple[Message, ...]) -> None:
        self.messages: tuple[Message, ...] = tuple(messages)
        super().__init__("; ".join(m.en for m in self.messages))


def problem(code: str, en: str, zh: str) -> TrainModelError:
    """One-message error, for the common case."""
    return TrainModelError([Message(code, en, zh)])
