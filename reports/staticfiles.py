"""A static-files finder that serves plotly.min.js from the installed plotly package, and only it.

The package also ships a 5 MB widget bundle, data sets and templates the portal never serves;
listing the whole package folder made collectstatic copy, hash and compress all of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.contrib.staticfiles.apps import StaticFilesConfig as DjangoStaticFilesConfig
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PREFIX = "plotly"
FILES = ("plotly.min.js",)


def _package_data() -> Path:
    import plotly

    return Path(plotly.__file__).parent / "package_data"


class PlotlyFinder(BaseFinder):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.storage = FileSystemStorage(location=str(_package_data()))
        self.storage.prefix = PREFIX  # type: ignore[attr-defined]

    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> Any:
        name = path.removeprefix(PREFIX + "/")
        if path.startswith(PREFIX + "/") and name in FILES:
            found = str(_package_data() / name)
            return [found] if find_all or kwargs.get("all") else found
        return [] if find_all or kwargs.get("all") else None

    def list(self, ignore_patterns: Any) -> Iterator[tuple[str, FileSystemStorage]]:
        for name in FILES:
            yield name, self.storage


class StaticFilesConfig(DjangoStaticFilesConfig):
    """collectstatic leaves out ReDoc (the API docs page is Swagger UI), never served."""

    ignore_patterns = [*DjangoStaticFilesConfig.ignore_patterns, "redoc"]
