"""On PostgreSQL the portal binds parameters on the server and keeps a statement prepared once a
connection has run it DB_PREPARE_THRESHOLD times (portal/settings.py): PostgreSQL then parses
and plans it no more. A page's joins took longer to plan than to run."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection

from quotes.testing import make_quote, make_vendor
from rankings.compare import compare_quotes

pytestmark = pytest.mark.django_db

POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


@pytest.mark.skipif(not POSTGRES, reason="prepared statements are PostgreSQL's")
def test_a_statement_run_again_and_again_is_prepared_once_and_answers_the_same(team_a, analyst_a):  # type: ignore[no-untyped-def]
    options = settings.DATABASES["default"]["OPTIONS"]
    assert options["server_side_binding"] is True
    threshold = options["prepare_threshold"]
    assert threshold >= 1
    vendor = make_vendor(team_a, "Prepared Cloud")
    ids = [make_quote(team_a, analyst_a, vendor, label=f"p{i}").pk for i in range(3)]

    def prepared() -> list[str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            return [row[0] for row in cursor.fetchall() if "quotes_quoteversion" in row[0]]

    first = [q.label for q in compare_quotes(team_a, ids)]
    assert first == ["p0", "p1", "p2"]
    assert not prepared()
    for _ in range(threshold + 1):
        assert [q.label for q in compare_quotes(team_a, ids)] == first
    statements = prepared()
    assert len(statements) == 1  # the compare page's join, prepared once
    assert "$1" in statements[0]  # its parameters bound by the server
    # other values through the same prepared statement
    assert [q.label for q in compare_quotes(team_a, ids[::-1])] == first
    assert [q.label for q in compare_quotes(team_a, [ids[1], ids[0], ids[2]])] == first
