"""The shared part of the commands that read one JSON file (rank_offers, predict_runs)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

from django.core.management.base import BaseCommand


class JsonFileCommand(BaseCommand):
    """Reads ``file`` as JSON; unreadable or invalid files exit 2 with a one-line message."""

    file_help = "JSON file"

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("file", help=self.file_help)

    def _fail(self, message: str) -> NoReturn:
        self.stderr.write(f"{self.prog}: {message}")
        sys.exit(2)

    @property
    def prog(self) -> str:
        return type(self).__module__.rsplit(".", 1)[-1]

    def read_json(self, file: str) -> Any:
        path = Path(file)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            self._fail(f"cannot read {path}: {exc.strerror}")
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            self._fail(f"{path} is not valid JSON: {exc}")
