"""The compare page's offers in one SQL statement written once per process.

The page reads each offer's quote, current version, GPU, vendor, the vendor's SLA, data centre
and its network: seven tables. Built through the ORM (``select_related`` over six relations),
compiling that query cost more than PostgreSQL took to plan and run it, on every request of a
page that is opened again and again. Here the statement is written once per process from the
models' own metadata (table and column names, every concrete column, so nothing is deferred
and nothing is read later by a query per offer), and each row is turned into the same model
instances, linked the same way, that ``select_related`` gives: ``quote.current_version.gpu``,
``quote.vendor.sla`` (absent: raises ``DoesNotExist`` without a query) and
``quote.data_centre.network`` likewise. Values pass through the fields' own database
converters (``Col.get_db_converters`` and the backend's), as the ORM applies them.

tests/quotes/test_compare_rows.py holds every column of every instance equal to what the ORM
loads, for offers with and without SLA, data centre and network.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from django.db import connection, models

from vendors.models import DataCentre, NetworkProfile, SlaTerms, Vendor

from .models import GpuModel, Quote, QuoteVersion

# (model, alias) in the column order of the statement; the join of each follows in _statement.
_TABLES: tuple[tuple[type[models.Model], str], ...] = (
    (Quote, "q"), (QuoteVersion, "v"), (GpuModel, "g"), (Vendor, "ven"), (SlaTerms, "s"),
    (DataCentre, "d"), (NetworkProfile, "n"),
)  # fmt: skip


@functools.cache
def _statement(mode: str) -> str:
    """The SELECT for `mode` ("ids": the quotes of an id array; "current": the team's current
    ones), with two parameters: the team's id and the id array (unused for "current")."""
    qn = connection.ops.quote_name
    columns = ", ".join(
        f"{alias}.{qn(f.column)}" for model, alias in _TABLES for f in model._meta.concrete_fields
    )
    t = {model: qn(model._meta.db_table) for model, _alias in _TABLES}
    which = "q.id = ANY(%s)" if mode == "ids" else "q.is_current AND %s IS NULL"
    # Only quoted table and column names of the models go into the text; values are parameters.
    return (
        f"SELECT {columns} FROM {t[Quote]} q "  # noqa: S608
        f"JOIN {t[QuoteVersion]} v ON v.id = q.current_version_id "
        f"JOIN {t[GpuModel]} g ON g.id = v.gpu_id "
        f"JOIN {t[Vendor]} ven ON ven.id = q.vendor_id "
        f"LEFT JOIN {t[SlaTerms]} s ON s.vendor_id = ven.id "
        f"LEFT JOIN {t[DataCentre]} d ON d.id = q.data_centre_id "
        f"LEFT JOIN {t[NetworkProfile]} n ON n.data_centre_id = d.id "
        f"WHERE q.team_id = %s AND {which} "
        "ORDER BY ven.name_zh, ven.name_en, q.label, q.id"
    )


@functools.cache
def _readers() -> tuple[tuple[type[models.Model], int, int, tuple[str, ...], tuple[Any, ...]], ...]:
    """Per table: the model, its slice of the row, its attribute names and, per column, the
    (converters, column expression) the ORM applies to a loaded value."""
    out = []
    start = 0
    for model, alias in _TABLES:
        fields = model._meta.concrete_fields
        convert = []
        for f in fields:
            col = f.get_col(alias)
            convert.append(
                (tuple(connection.ops.get_db_converters(col) + col.get_db_converters(connection)),
                 col)
            )  # fmt: skip
        out.append((model, start, start + len(fields), tuple(f.attname for f in fields),
                    tuple(convert)))  # fmt: skip
        start += len(fields)
    return tuple(out)


def _instance(reader: Any, row: Sequence[Any]) -> models.Model | None:
    model, start, end, attnames, convert = reader
    values = list(row[start:end])
    if values[0] is None:  # the pk: an absent optional row (no SLA, data centre, network)
        return None
    for i, (converters, col) in enumerate(convert):
        for conv in converters:
            values[i] = conv(values[i], col, connection)
    return model.from_db(connection.alias, attnames, values)


def offers(team_id: int, ids: Sequence[int] | None) -> list[Quote]:
    """The team's quotes with a current version, of `ids` (else the current ones), linked and
    ordered as the compare page shows them (vendor, label, id)."""
    sql = _statement("ids" if ids else "current")
    params: list[Any] = [team_id, list(ids) if ids else None]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    readers = _readers()
    out = []
    for row in rows:
        quote, version, gpu, vendor, sla, dc, network = (_instance(r, row) for r in readers)
        assert isinstance(quote, Quote) and isinstance(version, QuoteVersion)
        version.gpu = gpu
        quote.current_version = version
        quote.vendor = vendor
        if sla is not None:
            sla.vendor = vendor  # a one-to-one: also what vendor.sla answers
        else:
            Vendor.sla.related.set_cached_value(vendor, None)
        if dc is not None:
            quote.data_centre = dc
            if network is not None:
                network.data_centre = dc
            else:
                DataCentre.network.related.set_cached_value(dc, None)
        out.append(quote)
    return out
