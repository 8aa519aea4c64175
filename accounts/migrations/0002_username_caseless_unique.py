"""One account per user name in any letter case, enforced by the database.

Names are stored in NFKC (Django's create_user and forms normalise them), so a unique index on
UPPER(name) makes ``Alice`` / ``ａlice`` / ``ALICE`` one name even when two requests race past the
check in ``accounts.services.username_taken`` (which also folds ß -> ss and the like). It also
serves the case-insensitive lookup at log-in. The user model belongs to django.contrib.auth, so
the index is created here with SQL that PostgreSQL and SQLite both accept, after the last of
django.contrib.auth's own migrations: SQLite alters a column by copying the table, which drops an
index it does not know of (an index made before auth's later migrations was gone on SQLite).
"""

from django.conf import settings
from django.db import migrations

INDEX = "accounts_user_name_caseless_uniq"


def _table_and_column(apps):  # type: ignore[no-untyped-def]
    app_label, model_name = settings.AUTH_USER_MODEL.split(".")
    User = apps.get_model(app_label, model_name)
    column = User._meta.get_field(getattr(User, "USERNAME_FIELD", "username")).column
    return User._meta.db_table, column


def create_index(apps, schema_editor):  # type: ignore[no-untyped-def]
    table, column = _table_and_column(apps)
    qn = schema_editor.quote_name
    schema_editor.execute(
        f"CREATE UNIQUE INDEX {qn(INDEX)} ON {qn(table)} (UPPER({qn(column)}))"
    )


def drop_index(apps, schema_editor):  # type: ignore[no-untyped-def]
    schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(INDEX)}")


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(create_index, drop_index, elidable=False)]
