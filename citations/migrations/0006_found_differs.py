"""Found, differs (issue 24): a failure's located passage and its kind.

Every column is added in place (ALTER TABLE ... ADD COLUMN): on SQLite a
rebuilt table loses what 0002 and 0003 added by hand.
"""

from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("citations", "0005_postgres_stats_and_trigram"),
    ]

    operations = [
        migrations.AddField(
            model_name="messagecitation",
            name="candidate_end",
            field=models.IntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="messagecitation",
            name="candidate_page",
            field=models.IntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="messagecitation",
            name="candidate_start",
            field=models.IntegerField(blank=True, null=True),
        ),
        # Added in place with its default, not the way Django adds a NOT NULL
        # column on SQLite (rebuilding the table), which would drop the
        # table's ON DELETE CASCADE clauses (0003) and tenant triggers (0002).
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddField(
                    model_name="messagecitation",
                    name="failure_kind",
                    field=models.CharField(
                        blank=True,
                        choices=[
                            ("differs", "Found, differs"),
                            ("not_found", "Not found"),
                            ("out_of_provenance", "Out of provenance"),
                            ("misattributed", "Mis-attributed"),
                        ],
                        max_length=20,
                    ),
                )
            ],
            database_operations=[
                migrations.RunSQL(
                    "ALTER TABLE message_citations ADD COLUMN failure_kind "
                    "varchar(20) NOT NULL DEFAULT ''",
                    "ALTER TABLE message_citations DROP COLUMN failure_kind",
                )
            ],
        ),
    ]
