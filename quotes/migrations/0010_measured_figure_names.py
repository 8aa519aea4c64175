"""The measured figure under names that say what they hold: ``measured_gbps`` becomes
``measured_typical_gbps`` (the figure the offer is priced at), ``measured_p50_gbps`` (which held
the range's high end, the same value as ``measured_high_gbps``) goes, ``measured_worst_gbps`` is
new. ``measured_gbps`` stays as a read-only generated column equal to the typical figure."""

from django.db import migrations, models
from django.db.models import F, Q


def fill_worst(apps, schema_editor):  # type: ignore[no-untyped-def]
    Quote = apps.get_model("quotes", "Quote")
    # Before this change the range's low end was the lowest figure stored: the worst we know.
    Quote.objects.filter(measured_typical_gbps__isnull=False).update(
        measured_worst_gbps=models.functions.Least(
            models.functions.Coalesce(F("measured_low_gbps"), F("measured_typical_gbps")),
            F("measured_typical_gbps"),
        )
    )


class Migration(migrations.Migration):
    dependencies = [("quotes", "0009_json_shapes")]

    operations = [
        migrations.RemoveConstraint(model_name="quote", name="quote_measured_positive"),
        migrations.RemoveConstraint(model_name="quote", name="quote_measured_p50_at_least_p5"),
        migrations.RenameField(
            model_name="quote", old_name="measured_gbps", new_name="measured_typical_gbps"
        ),
        migrations.AlterField(
            model_name="quote",
            name="measured_typical_gbps",
            field=models.FloatField(
                blank=True,
                null=True,
                verbose_name="measured bandwidth per server, typical (Gbit/s)",
            ),
        ),
        migrations.RemoveField(model_name="quote", name="measured_p50_gbps"),
        migrations.AddField(
            model_name="quote",
            name="measured_worst_gbps",
            field=models.FloatField(
                blank=True,
                null=True,
                verbose_name="measured bandwidth per server, worst test (Gbit/s)",
            ),
        ),
        migrations.RunPython(fill_worst, migrations.RunPython.noop),
        migrations.AddField(
            model_name="quote",
            name="measured_gbps",
            field=models.GeneratedField(
                db_persist=True,
                expression=F("measured_typical_gbps"),
                output_field=models.FloatField(),
                verbose_name="measured bandwidth per server (Gbit/s)",
            ),
        ),
        migrations.AddConstraint(
            model_name="quote",
            constraint=models.CheckConstraint(
                condition=Q(measured_typical_gbps__isnull=True) | Q(measured_typical_gbps__gt=0),
                name="quote_measured_typical_positive",
            ),
        ),
        migrations.AddConstraint(
            model_name="quote",
            constraint=models.CheckConstraint(
                condition=Q(measured_worst_gbps__isnull=True)
                | (
                    Q(measured_typical_gbps__isnull=False)
                    & Q(measured_worst_gbps__lte=F("measured_typical_gbps"))
                ),
                name="quote_measured_worst_at_most_typical",
            ),
        ),
    ]
