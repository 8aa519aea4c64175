"""Write side of quotes: create, edit (a new version), delete, measured bandwidth, workloads.

Every write of an existing quote locks its row (`_lock`), so concurrent writes of different
fields all land, and a write based on an old revision is refused (`QuoteConflict`)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max, Model, OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import gettext

from .models import Quote, QuoteChange, QuoteVersion, WorkloadProfile
from .validation import quote_version_clean, quote_version_errors

QUOTE_FIELDS = ("vendor", "data_centre", "label", "is_current")
VERSION_FIELDS = (
    "gpu", "gpus_per_node", "nodes", "price_per_node_month", "currency", "fx_to_cny",
    "monthly_fees", "nic_gbps", "nics_per_node", "fabric", "rack_uplink_gbps",
    "servers_per_rack", "availability", "whole_offer_only", "term_months", "trial_days",
    "valid_until", "setup_fee", "storage_tb", "storage_price_tb_month", "public_bandwidth_mbps",
    "bandwidth_billing", "bandwidth_price", "bandwidth_elastic", "notes",
)  # fmt: skip
# Inputs of the training-time model v2 (docs/MODEL.md §15), all optional.
MODEL_V2_FIELDS = ("rail_optimised", "storage_write_gbyte_s", "repair_hours", "spare_nodes")
VERSION_FIELDS = VERSION_FIELDS + MODEL_V2_FIELDS
# VAT terms (domain/money.py) and the unusual values the analyst confirmed (domain/plausibility.py)
MONEY_FIELDS = ("prices_include_vat", "vat_rate", "invoice_type")
VERSION_FIELDS += MONEY_FIELDS + ("outliers_confirmed",)


MEASURED_FIELDS = (
    "measured_typical_gbps", "measured_worst_gbps", "measured_low_gbps", "measured_high_gbps",
    "measured_kind", "measured_test_run_id", "measured_at", "measured_ports_tested",
    "measured_derivation",
)  # fmt: skip


class QuoteConflict(Exception):
    """A write based on revision `based_on` of a quote that has moved on to `quote.revision`;
    nothing was written. `changes` are the revisions since, oldest first (field names, who and
    when), and `quote` holds the current values."""

    def __init__(self, *, quote: Quote, based_on: int | None, changes: list[QuoteChange]) -> None:
        super().__init__(f"quote {quote.pk}: based on revision {based_on}, now {quote.revision}")
        self.quote = quote
        self.based_on = based_on
        self.changes = changes

    @property
    def changed_fields(self) -> list[str]:
        """The fields changed since `based_on`, each once, in the order they were first changed."""
        return list(dict.fromkeys(name for change in self.changes for name in change.fields))


def _raw(value: Any) -> Any:
    """Compare model instances by primary key (no query for the related row)."""
    return value.pk if isinstance(value, Model) else value


def _saved(obj: Model, name: str) -> Any:
    """A field's value as stored (a foreign key's id: no query for the related row)."""
    return obj._meta.get_field(name).value_from_object(obj)


def _check_team(team_id: int, quote: Quote) -> None:
    errors: dict[str, list[str]] = {}
    from django.utils.translation import gettext as _

    if quote.vendor_id and quote.vendor.team_id != team_id:
        errors["vendor"] = [_("Choose one of your team's vendors.")]
    if quote.data_centre_id and quote.data_centre.vendor_id != quote.vendor_id:
        errors["data_centre"] = [_("The data centre must belong to the quote's vendor.")]
    if errors:
        raise ValidationError(errors)


def _new_version(*, quote: Quote, user, data: dict[str, Any]) -> QuoteVersion:  # type: ignore[no-untyped-def]
    """The next version of `quote` (locked or new); the caller saves `quote.current_version`."""
    last = quote.versions.aggregate(n=Max("number"))["n"] or 0
    version = QuoteVersion(quote=quote, number=last + 1, created_by=user)
    for name in VERSION_FIELDS:
        if name in data:
            setattr(version, name, data[name])
    quote_version_clean(version)
    version.full_clean(exclude=["quote"])
    version.save()
    quote.current_version = version
    return version


def quote_create(*, team, user, data: dict[str, Any]) -> Quote:  # type: ignore[no-untyped-def]
    """A quote with its version 1; `data` holds quote and version fields (form cleaned_data)."""
    quote = Quote(team=team, **{k: data[k] for k in QUOTE_FIELDS if k in data})
    _check_team(team.pk, quote)
    quote.full_clean(exclude=["team", "current_version"])
    with transaction.atomic():
        quote.save()
        _new_version(quote=quote, user=user, data=data)
        quote.save(update_fields=["current_version", "updated_at"])
    return quote


class QuoteRowsError(Exception):
    """Rows of a bulk create that break a rule: row index (0-based) -> messages."""

    def __init__(self, rows: dict[int, list[str]]) -> None:
        super().__init__(f"{len(rows)} rows refused")
        self.rows = rows


def quotes_bulk_create(*, team, user, rows: list[dict[str, Any]]) -> list[Quote]:  # type: ignore[no-untyped-def]
    """Many quotes with their version 1 in one transaction and a fixed number of queries
    (the importer). `rows` are cleaned form data whose vendor, data centre and GPU are model
    instances and whose field types and model validators were checked already (the importer's
    form does that without queries); the team and the version rules are checked here again,
    in memory, and the database's constraints hold the same rules. All or nothing:
    QuoteRowsError names the rows that break a rule."""
    quotes: list[Quote] = []
    versions: list[QuoteVersion] = []
    errors: dict[int, list[str]] = {}
    for index, data in enumerate(rows):
        quote = Quote(team=team, **{k: data[k] for k in QUOTE_FIELDS if k in data})
        version = QuoteVersion(quote=quote, number=1, created_by=user)
        for name in VERSION_FIELDS:
            if name in data:
                setattr(version, name, data[name])
        problems = dict(quote_version_errors(version))
        vendor, dc = data.get("vendor"), data.get("data_centre")
        if vendor is None or vendor.team_id != team.pk:
            problems["vendor"] = [gettext("Choose one of your team's vendors.")]
        if dc is not None and (vendor is None or dc.vendor_id != vendor.pk):
            problems["data_centre"] = [
                gettext("The data centre must belong to the quote's vendor.")
            ]
        if problems:
            errors[index] = [m for messages in problems.values() for m in messages]
        quotes.append(quote)
        versions.append(version)
    if errors:
        raise QuoteRowsError(errors)
    with transaction.atomic():
        Quote.objects.bulk_create(quotes)
        for quote, version in zip(quotes, versions, strict=True):
            version.quote = quote  # now with its primary key
        QuoteVersion.objects.bulk_create(versions)
        first = QuoteVersion.objects.filter(quote=OuterRef("pk"), number=1).values("pk")[:1]
        Quote.objects.filter(pk__in=[q.pk for q in quotes]).update(current_version=Subquery(first))
    for quote, version in zip(quotes, versions, strict=True):
        quote.current_version = version
    return quotes


def _lock(quote: Quote, expected_revision: int | None) -> Quote:
    """The quote's row, locked until the transaction ends; QuoteConflict when it has moved on
    from `expected_revision`. Every writer of a quote goes through here, so the check and the
    increment that follows cannot interleave with another write."""
    locked = Quote.objects.select_for_update().get(pk=quote.pk)
    if expected_revision is not None and locked.revision != expected_revision:
        raise quote_conflict(quote=locked, based_on=expected_revision)
    return locked


def quote_conflict(*, quote: Quote, based_on: int | None) -> QuoteConflict:
    """The conflict of a write based on revision `based_on` (None: a revision the caller could
    not name) with `quote` as it is now: the changes since, with who and when."""
    changes = QuoteChange.objects.filter(quote=quote).select_related("changed_by")
    since = changes.filter(revision__gt=based_on) if based_on is not None else changes.none()
    return QuoteConflict(quote=quote, based_on=based_on, changes=list(since.order_by("revision")))


def _record(locked: Quote, user, fields: list[str], update_fields: list[str]) -> None:  # type: ignore[no-untyped-def]
    locked.revision += 1
    locked.save(update_fields=[*update_fields, "revision", "updated_at"])
    QuoteChange.objects.create(
        quote=locked, revision=locked.revision, fields=fields, changed_by=user
    )


def _refresh(quote: Quote, locked: Quote) -> None:
    """Bring the caller's instance up to the saved row (it may have been read long before)."""
    for f in Quote._meta.concrete_fields:
        if not f.generated:
            setattr(quote, f.attname, getattr(locked, f.attname))
    # The generated alias of the typical figure, as the database computes it (no re-read).
    quote.measured_gbps = quote.measured_typical_gbps
    quote._state.fields_cache = dict(locked._state.fields_cache)


def quote_update(  # type: ignore[no-untyped-def]
    *, quote: Quote, user, data: dict[str, Any], expected_revision: int | None = None
) -> QuoteVersion:
    """Change a quote: its own fields in place, its terms as a new version (old ones stay).

    Only the fields in `data` that differ from the saved row are written, merged with the terms
    current at the time of writing (not those the caller once read), under a row lock. With
    `expected_revision` (the revision the caller's data was based on) a quote that has moved on
    raises QuoteConflict and nothing is written. A change adds one to the revision and records
    the changed field names (QuoteChange); a write that changes nothing records nothing.
    """
    with transaction.atomic():
        locked = _lock(quote, expected_revision)
        changed = [n for n in QUOTE_FIELDS if n in data and _saved(locked, n) != _raw(data[n])]
        for name in changed:
            setattr(locked, name, data[name])
        _check_team(locked.team_id, locked)
        locked.full_clean(exclude=["team", "current_version"])
        base = locked.current_version
        merged = {n: getattr(base, n) for n in VERSION_FIELDS} if base else {}
        merged.update({k: v for k, v in data.items() if k in VERSION_FIELDS})
        terms = [
            n for n in VERSION_FIELDS
            if base is None or _saved(base, n) != _raw(merged.get(n))
        ]  # fmt: skip
        version = base
        if terms:
            version = _new_version(quote=locked, user=user, data=merged)
        if changed or terms:
            _record(locked, user, changed + terms, [*changed, "current_version"])
    _refresh(quote, locked)
    assert version is not None
    return version


def quote_save_fields(*, quote: Quote, user, fields: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Save the named fields of `quote` (the admin's changed fields) like any other write of a
    quote: under the row lock, adding a revision, leaving the other fields as they are now."""
    names = [f.name for f in Quote._meta.concrete_fields if f.name in fields]
    with transaction.atomic():
        locked = _lock(quote, None)
        changed = [n for n in names if _saved(locked, n) != _saved(quote, n)]
        for name in changed:
            setattr(locked, Quote._meta.get_field(name).attname, _saved(quote, name))
        if changed:
            _record(locked, user, changed, changed)
    _refresh(quote, locked)


def quote_delete(*, quote: Quote, expected_revision: int | None = None) -> None:
    """Delete a quote (its versions go with it); with `expected_revision`, only the revision the
    caller saw (QuoteConflict otherwise)."""
    with transaction.atomic():
        _lock(quote, expected_revision).delete()


def _gbps(value: float | None) -> float | None:
    return None if value is None else float(value)


def quote_set_measured_bandwidth(
    *,
    quote: Quote,
    typical_gbps: float | None,
    measured_kind: str,
    test_run_id: Any,
    worst_gbps: float | None = None,
    low_gbps: float | None = None,
    high_gbps: float | None = None,
    derivation: dict[str, Any] | None = None,
) -> Quote:
    """Record the measured figure derived from a quote's admitted logs (called by the benchmarks
    app): a change like any other, so it adds a revision and a concurrent edit of other fields
    keeps it. Clearing ``typical_gbps`` clears the whole figure."""
    on = typical_gbps is not None
    values = {
        "measured_typical_gbps": _gbps(typical_gbps),
        "measured_worst_gbps": _gbps(worst_gbps) if on else None,
        "measured_low_gbps": _gbps(low_gbps) if on else None,
        "measured_high_gbps": _gbps(high_gbps) if on else None,
        "measured_kind": measured_kind or "link",
        "measured_test_run_id": "" if test_run_id is None else str(test_run_id),
        "measured_at": timezone.now() if on else None,
        "measured_ports_tested": (derivation or {}).get("ports_tested") if on else None,
        "measured_derivation": (derivation or None) if on else None,
    }
    with transaction.atomic():
        locked = _lock(quote, None)
        changed = [n for n in MEASURED_FIELDS if getattr(locked, n) != values[n]]
        for name, value in values.items():
            setattr(locked, name, value)
        locked.full_clean(
            exclude=["team", "current_version", "vendor", "data_centre", "measured_gbps"]
        )
        if changed:
            _record(locked, None, changed, list(MEASURED_FIELDS))
    _refresh(quote, locked)
    return quote


def workload_create(*, team, data: dict[str, Any]) -> WorkloadProfile:  # type: ignore[no-untyped-def]
    workload = WorkloadProfile(team=team, **data)
    workload.full_clean(exclude=["team"])
    with transaction.atomic():
        workload.save()
    return workload


def workload_update(*, workload: WorkloadProfile, data: dict[str, Any]) -> WorkloadProfile:
    for key, value in data.items():
        setattr(workload, key, value)
    workload.full_clean(exclude=["team"])
    with transaction.atomic():
        workload.save()
    return workload
