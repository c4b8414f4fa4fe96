"""Files keep the other names their bytes were uploaded under (issue 27 item 2).

Nullable with no default: SQLite adds it with ALTER TABLE ... ADD COLUMN and
does not rebuild `files` (a rebuild would drop what hand-written SQL added).
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ingest", "0007_search_vector_inline"),
    ]

    operations = [
        migrations.AddField(
            model_name="file",
            name="also_named",
            field=models.JSONField(blank=True, null=True),
        ),
    ]
