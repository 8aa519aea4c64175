"""Every message the package can produce has a stable snake_case code, English and Chinese."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from domain.benchlogs import catalogue, catalogue_checks
from domain.messages import Message

SAMPLES: dict[str, Any] = {
    str: "Sample text.",
    int: 3,
    float: 1.5,
    float | None: 0.95,
    int | None: 8,
    bool: True,
    tuple[str, str]: catalogue.IPERF_RATE,
    Message: Message("sample", "Sample reason.", "示例原因。"),
}


def _factories(module: ModuleType) -> list[tuple[str, Callable[..., Message]]]:
    return [
        (name, function)
        for name, function in inspect.getmembers(module, inspect.isfunction)
        if function.__module__ == module.__name__ and not name.startswith("_")
    ]


FACTORIES = _factories(catalogue) + _factories(catalogue_checks)


def _call(function: Callable[..., Message]) -> Message:
    hints = inspect.get_annotations(function, eval_str=True)
    arguments = {name: SAMPLES[hints[name]] for name in inspect.signature(function).parameters}
    return function(**arguments)


@pytest.mark.parametrize(("name", "factory"), FACTORIES, ids=[n for n, _ in FACTORIES])
def test_message_is_bilingual_with_a_snake_case_code(
    name: str, factory: Callable[..., Message]
) -> None:
    message = _call(factory)
    assert re.fullmatch(r"[a-z][a-z0-9_]*", message.code)
    assert message.en.strip().endswith(".") and message.zh.strip().endswith(("。", "."))
    assert re.search(r"[\u4e00-\u9fff]", message.zh), message.zh
    assert not re.search(r"[\u4e00-\u9fff]", message.en)


def test_codes_are_unique_per_factory() -> None:
    codes = [_call(factory).code for _, factory in FACTORIES]
    duplicates = {code for code in codes if codes.count(code) > 1}
    # verdict_pass has two wordings (with and without an efficiency) under one code.
    assert duplicates == set()


def test_long_log_text_is_shortened_in_messages() -> None:
    message = catalogue.iperf3_reported_error("x" * 10_000)
    assert len(message.en) < 400 and len(message.zh) < 400
