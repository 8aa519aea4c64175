"""Fixtures for the benchmark-log tests: the corpus copied under tests/domain/data/corpus."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from domain.benchlogs import BenchResult, parse_path

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"


@pytest.fixture
def corpus() -> Callable[[str], Path]:
    """Path of a corpus file given as ``"<tool folder>/<file>"``."""

    def find(name: str) -> Path:
        path = CORPUS / name
        assert path.is_file(), f"missing corpus file {name}"
        return path

    return find


@pytest.fixture
def parse(corpus: Callable[[str], Path]) -> Callable[[str], BenchResult]:
    return lambda name: parse_path(corpus(name))
