from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("quotes", "0006_workload_architecture"),
    ]

    operations = [
        migrations.AddField(
            model_name="workloadprofile",
            name="precision",
            field=models.CharField(
                choices=[("bf16", "BF16"), ("fp8", "FP8")],
                default="bf16",
                max_length=4,
                verbose_name="compute precision",
            ),
        ),
        migrations.AddConstraint(
            model_name="workloadprofile",
            constraint=models.CheckConstraint(
                condition=models.Q(("precision__in", ["bf16", "fp8"])), name="wl_precision_known"
            ),
        ),
    ]
