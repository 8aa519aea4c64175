from __future__ import annotations

from types import SimpleNamespace

from django.db import models
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from core.serializer_cache import CachedListSerializer, cached_answers, row_parts
from domain import plausibility
from domain.trainmodel.workload import architecture_problems
from vendors.models import DataCentre, Vendor

from ..models import GpuModel, Quote, QuoteVersion, WorkloadProfile
from ..services import VERSION_FIELDS
from ..validation import plausibility_check, quote_version_errors


class _Strict:
    """A number field that refuses JSON true/false (DRF's FloatField reads True as 1.0) and
    subnormal floats (1e-320): domain.plausibility.number_problem."""

    def to_internal_value(self, data):  # type: ignore[no-untyped-def]
        problem = plausibility.number_problem(data)
        if problem is not None:
            raise serializers.ValidationError(problem.text(get_language()))
        return super().to_internal_value(data)  # type: ignore[misc]


class StrictFloatField(_Strict, serializers.FloatField):
    pass


class StrictDecimalField(_Strict, serializers.DecimalField):
    pass


# The model serializers' number fields, strict (the quote terms and the workload)
STRICT_NUMBERS = {
    **serializers.ModelSerializer.serializer_field_mapping,
    models.FloatField: StrictFloatField,
    models.DecimalField: StrictDecimalField,
}


class GpuModelSerializer(serializers.ModelSerializer):
    class Meta:
        model = GpuModel
        fields = "__all__"


INVOICE_CHOICE_ERROR = _(
    "Unknown invoice type “{input}”: use special (专票), ordinary (普票) or none."
)
VAT_RATE_CHOICE_ERROR = _("The VAT rate must be one of 0, 6, 9 or 13 (percent); got “{input}”.")


class QuoteTermsSerializer(serializers.ModelSerializer):
    serializer_field_mapping = STRICT_NUMBERS
    gpu = serializers.SlugRelatedField(
        slug_field="key",
        queryset=GpuModel.objects.all(),
        error_messages={"does_not_exist": "Unknown GPU model {value}: use a key of /api/v1/gpus/."},
    )

    class Meta:
        model = QuoteVersion
        fields = ("number", "created_at", *VERSION_FIELDS)
        read_only_fields = ("number", "created_at", "outliers_confirmed")
        extra_kwargs = {
            "invoice_type": {"error_messages": {"invalid_choice": INVOICE_CHOICE_ERROR}},
            "vat_rate": {"error_messages": {"invalid_choice": VAT_RATE_CHOICE_ERROR}},
        }


class QuoteSerializer(serializers.ModelSerializer):
    """A quote with its current terms under `terms`; writing terms adds a version."""

    terms = QuoteTermsSerializer(source="current_version")
    # Plausibility (domain/plausibility.py): unusual values are refused (400 listing them under
    # "outliers") unless the request confirms them; the confirmation is stored on the version.
    confirm_outliers = serializers.BooleanField(write_only=True, required=False, default=False)
    vendor = serializers.PrimaryKeyRelatedField(queryset=Vendor.objects.none())
    data_centre = serializers.PrimaryKeyRelatedField(
        queryset=DataCentre.objects.none(), allow_null=True, required=False
    )

    class Meta:
        model = Quote
        fields = (
            "id", "vendor", "data_centre", "label", "is_current", "terms", "measured_gbps",
            "measured_typical_gbps", "measured_worst_gbps", "measured_p50_gbps", "measured_kind",
            "measured_test_run_id", "measured_at",
            "measured_low_gbps", "measured_high_gbps", "measured_ports_tested",
            "measured_derivation", "revision", "created_at", "updated_at", "confirm_outliers",
        )  # fmt: skip
        read_only_fields = (
            "measured_gbps", "measured_typical_gbps", "measured_worst_gbps", "measured_p50_gbps",
            "measured_kind", "measured_test_run_id",
            "measured_at", "measured_low_gbps", "measured_high_gbps", "measured_ports_tested",
            "measured_derivation", "revision", "created_at", "updated_at",
        )  # fmt: skip
        # the generated alias of measured_typical_gbps is null like it until a log is admitted
        # (a GeneratedField's output field does not say so: the schema called it a number)
        extra_kwargs = {"measured_gbps": {"allow_null": True}}
        list_serializer_class = CachedListSerializer  # each unchanged row's answer kept

    def get_fields(self):  # type: ignore[no-untyped-def]
        # built when first used (a list whose rows are all known never builds them)
        fields = super().get_fields()
        team = self.context.get("team")
        if team is not None:
            fields["vendor"].queryset = Vendor.objects.for_team(team)
            fields["data_centre"].queryset = DataCentre.objects.filter(vendor__team=team)
        return fields

    @staticmethod
    def cache_parts(quote: Quote) -> tuple:  # type: ignore[type-arg]
        """What a list row's answer reads beyond the quote's own columns: its current
        version's terms. A version is never edited in place (an edit adds a version), so its
        id (a quote column), creation time and GPU key stand for them."""
        version = quote.current_version
        if version is None:
            return (None, None)
        return (version.created_at, version.gpu.key if version.gpu_id else None)

    def validate(self, attrs):  # type: ignore[no-untyped-def]
        terms = attrs.get("current_version")
        if terms is not None:
            base = getattr(self.instance, "current_version", None)
            merged = {n: getattr(base, n) for n in VERSION_FIELDS} if base else {}
            merged.update(terms)
            probe = QuoteVersion(**{k: v for k, v in merged.items() if k != "gpu"})
            errors = quote_version_errors(probe)
            gpu = merged.get("gpu")
            hard, warnings = plausibility_check(probe, getattr(gpu, "key", None))
            for field, messages in hard.items():
                errors.setdefault(field, []).extend(messages)
            if errors:
                raise serializers.ValidationError({"terms": errors})
            if warnings and not attrs.get("confirm_outliers"):
                lang = get_language()
                raise serializers.ValidationError({
                    "confirm_outliers": [plausibility.CONFIRM_NEEDED.text(lang)],
                    "outliers": [
                        {**w.as_dict(), "message": w.message.text(lang)} for w in warnings
                    ],
                })  # fmt: skip
            terms["outliers_confirmed"] = [w.as_dict() for w in warnings]
        attrs.pop("confirm_outliers", None)
        return attrs


# The columns of a quote list row read as values (quote_list_answers): every concrete column of
# the quote, then what QuoteSerializer.cache_parts reads of its current version.
QUOTE_ATTNAMES = tuple(f.attname for f in Quote._meta.concrete_fields)
LIST_VALUE_COLUMNS = (*QUOTE_ATTNAMES, "current_version__created_at", "current_version__gpu__key")


def quote_list_answers(rows: list[tuple], context: dict) -> list[dict]:  # type: ignore[type-arg]
    """The list's answers for `rows` (tuples of LIST_VALUE_COLUMNS, in page order): what
    ``QuoteSerializer(many=True)`` gives for the same quotes, each row's answer taken from
    the cache under the same key (core.serializer_cache) without building a model instance.
    Rows not kept are loaded as instances (one query) and serialised. A list page of 50
    quotes spent a quarter of its time building 150 instances whose every answer was known."""
    n = len(QUOTE_ATTNAMES)
    parts = [row_parts(QuoteSerializer, row[:n], row[n : n + 2]) for row in rows]

    def make(missing: list[int]) -> list[dict]:  # type: ignore[type-arg]
        pks = [rows[i][0] for i in missing]
        found = Quote.objects.select_related("current_version__gpu").in_bulk(pks)
        serializer = QuoteSerializer(context=context)
        return [serializer.to_representation(found[pk]) for pk in pks]

    return cached_answers(QuoteSerializer, parts, make)


class WorkloadProfileSerializer(serializers.ModelSerializer):
    serializer_field_mapping = STRICT_NUMBERS
    # soft bounds of domain/plausibility.py: unusual values need confirm_outliers true
    confirm_outliers = serializers.BooleanField(write_only=True, required=False, default=False)

    class Meta:
        model = WorkloadProfile
        exclude = ("team",)

    def validate(self, attrs):  # type: ignore[no-untyped-def]
        """The architecture checked by the training-time model's rules (bilingual messages in
        the request's language): {"model": {layers, hidden, heads, ...}, "parallel": {tp, ...}}."""
        attrs = super().validate(attrs)
        current = self.instance
        arch = attrs.get("architecture", current.architecture if current else None)
        params_b = attrs.get("params_b", current.params_b if current else None)
        tokens = attrs.get("tokens_per_step", current.tokens_per_step if current else None)
        if arch and params_b and tokens:
            problems = architecture_problems(arch, params_b, float(tokens), get_language())
            if problems:
                raise serializers.ValidationError({"architecture": problems})
        confirmed = attrs.pop("confirm_outliers", False)
        merged = {n: getattr(self.instance, n, None) for n in plausibility.WORKLOAD_BOUNDS}
        merged.update({k: v for k, v in attrs.items() if k in plausibility.WORKLOAD_BOUNDS})
        hard, soft = plausibility.split(plausibility.workload_findings(SimpleNamespace(**merged)))
        lang = get_language()
        if hard:
            errors: dict[str, list[str]] = {}
            for f in hard:
                errors.setdefault(f.field, []).append(f.message.text(lang))
            raise serializers.ValidationError(errors)
        if soft and not confirmed:
            raise serializers.ValidationError({
                "confirm_outliers": [plausibility.CONFIRM_NEEDED.text(lang)],
                "outliers": [{**w.as_dict(), "message": w.message.text(lang)} for w in soft],
            })  # fmt: skip
        return attrs
