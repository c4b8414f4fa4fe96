"""A revision's prepared form for quote search (issue 27 item 5), tenant-guarded."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

from accounts.dbguards import same_tenant


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0001_initial'),
        ('citations', '0009_postgres_daily_stats'),
        ('ingest', '0009_sources'),
    ]

    operations = [
        migrations.CreateModel(
            name='PreparedForm',
            fields=[
                ('id', models.BigAutoField(primary_key=True, serialize=False)),
                ('format', models.CharField(max_length=32)),
                ('data', models.BinaryField()),
                ('chars', models.IntegerField()),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('revision', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='ingest.documentrevision')),
                ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.tenant')),
            ],
            options={
                'db_table': 'citations_prepared_form',
            },
        ),
        same_tenant("citations_prepared_form", "revision_id", "ingest_documentrevision"),
    ]
