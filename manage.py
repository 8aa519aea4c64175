#!/usr/bin/env python
import os
import sys


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "parse_log":
        # Parsing logs needs no Django start-up: a plain call skips it (benchmarks/cli.py).
        from benchmarks.cli import fast_path

        status = fast_path(sys.argv)
        if status is not None:
            sys.exit(status)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
