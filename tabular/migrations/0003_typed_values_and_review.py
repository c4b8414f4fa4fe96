"""Typed cells, "not found", calibrated confidence and the review workflow
(issue 25).

- Column types gain duration, number, party, jurisdiction and options;
  existing `list` columns become `text` (a list answer is a sentence of
  names, checked against its quote like any text value).
- Cells: outcome (answered / not_found), typed value, whether the quote
  supports the value, the model's own confidence and the calibration rule,
  what a not-found cell searched, and the review (state, edit, who, when);
  CellEvent keeps every change.
- Finished cells from before keep their value as `answered`, support
  `unchecked` (never checked against the quote).
- SQLite rebuilds tabular_cell and tabular_reviewcolumn to add NOT NULL
  columns, which drops 0002's tenant-guard triggers: they are put back
  (idempotent). PostgreSQL alters in place and keeps its composite keys.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from accounts.dbguards import _sqlite_sql, same_tenant

# 0002's guards on the tables this migration rebuilds on SQLite.
REBUILT_GUARDS = [
    ("tabular_reviewcolumn", "review_id", "tabular_review"),
    ("tabular_cell", "review_id", "tabular_review"),
    ("tabular_cell", "row_id", "tabular_reviewdocument"),
    ("tabular_cell", "column_id", "tabular_reviewcolumn"),
    ("tabular_cell", "message_id", "messages"),
]


def lists_become_text(apps, schema_editor):
    ReviewColumn = apps.get_model("tabular", "ReviewColumn")
    ReviewColumn.objects.filter(type="list").update(type="text")


def finished_cells_answered(apps, schema_editor):
    Cell = apps.get_model("tabular", "Cell")
    Cell.objects.filter(status="done").update(outcome="answered", support="unchecked")


def guards_off(apps, schema_editor):
    # A trigger naming a table SQLite is about to rebuild (tabular_cell's
    # guard on tabular_reviewcolumn) makes the rebuild's RENAME fail.
    if schema_editor.connection.vendor != "sqlite":
        return
    for child, column, parent in REBUILT_GUARDS:
        for sql in _sqlite_sql(child, column, parent)[1]:
            schema_editor.execute(sql)


def guards_back(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for child, column, parent in REBUILT_GUARDS:
        for sql in _sqlite_sql(child, column, parent)[0]:
            schema_editor.execute(sql)


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0001_initial'),
        ('chat', '0002_tenant_guards'),
        ('citations', '0008_sqlite_schema_after_rebuild'),
        ('tabular', '0002_tenant_guards'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(guards_off, migrations.RunPython.noop),
        migrations.CreateModel(
            name='CellEvent',
            fields=[
                ('id', models.BigAutoField(primary_key=True, serialize=False)),
                ('action', models.CharField(choices=[('approve', 'Approved'), ('flag', 'Flagged'), ('clear', 'Review cleared'), ('edit', 'Edited the value'), ('revert', "Restored the engine's value"), ('rerun', 'Re-ran the cell')], max_length=16)),
                ('user_name', models.CharField(blank=True, max_length=150)),
                ('note', models.TextField(blank=True)),
                ('value_before', models.TextField(blank=True)),
                ('value_after', models.TextField(blank=True)),
                ('state_before', models.CharField(blank=True, max_length=16)),
                ('state_after', models.CharField(blank=True, max_length=16)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.RemoveConstraint(
            model_name='reviewcolumn',
            name='chk_reviewcol_type_values',
        ),
        migrations.AddField(
            model_name='cell',
            name='confidence_rule',
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AddField(
            model_name='cell',
            name='edit_note',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='cell',
            name='edited_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='cell',
            name='edited_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='cell',
            name='edited_support',
            field=models.CharField(blank=True, choices=[('supported', 'Supported by the quote'), ('unsupported', 'Not supported by the quote'), ('unchecked', 'Not checked')], max_length=16),
        ),
        migrations.AddField(
            model_name='cell',
            name='edited_support_reason',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='cell',
            name='edited_typed_value',
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='cell',
            name='edited_value',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='cell',
            name='model_confidence',
            field=models.CharField(blank=True, max_length=8),
        ),
        migrations.AddField(
            model_name='cell',
            name='outcome',
            field=models.CharField(blank=True, choices=[('answered', 'Answered'), ('not_found', 'Not found')], max_length=16),
        ),
        migrations.AddField(
            model_name='cell',
            name='review_state',
            field=models.CharField(choices=[('unreviewed', 'Unreviewed'), ('approved', 'Approved'), ('flagged', 'Flagged')], default='unreviewed', max_length=16),
        ),
        migrations.AddField(
            model_name='cell',
            name='reviewed_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='cell',
            name='reviewed_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='cell',
            name='searched',
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name='cell',
            name='support',
            field=models.CharField(blank=True, choices=[('supported', 'Supported by the quote'), ('unsupported', 'Not supported by the quote'), ('unchecked', 'Not checked')], max_length=16),
        ),
        migrations.AddField(
            model_name='cell',
            name='support_reason',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='cell',
            name='typed_value',
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='reviewcolumn',
            name='options',
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AlterField(
            model_name='reviewcolumn',
            name='type',
            field=models.CharField(choices=[('text', 'Text'), ('date', 'Date'), ('duration', 'Duration'), ('money', 'Money'), ('number', 'Number'), ('yes_no', 'Yes/No'), ('party', 'Party'), ('jurisdiction', 'Jurisdiction'), ('options', 'Options')], default='text', max_length=16),
        ),
        migrations.AddConstraint(
            model_name='cell',
            constraint=models.UniqueConstraint(fields=('tenant', 'id'), name='uniq_cell_tenant_id'),
        ),
        migrations.AddConstraint(
            model_name='cell',
            constraint=models.CheckConstraint(condition=models.Q(('review_state__in', ['unreviewed', 'approved', 'flagged'])), name='chk_cell_review_state_values'),
        ),
        migrations.AddConstraint(
            model_name='cell',
            constraint=models.CheckConstraint(condition=models.Q(('outcome__in', ['', 'answered', 'not_found'])), name='chk_cell_outcome_values'),
        ),
        migrations.RunPython(lists_become_text, migrations.RunPython.noop),
        migrations.RunPython(finished_cells_answered, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='reviewcolumn',
            constraint=models.CheckConstraint(condition=models.Q(('type__in', ['text', 'date', 'duration', 'money', 'number', 'yes_no', 'party', 'jurisdiction', 'options'])), name='chk_reviewcol_type_values'),
        ),
        migrations.AddField(
            model_name='cellevent',
            name='cell',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='events', to='tabular.cell'),
        ),
        migrations.AddField(
            model_name='cellevent',
            name='tenant',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.tenant'),
        ),
        migrations.AddField(
            model_name='cellevent',
            name='user',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddIndex(
            model_name='cellevent',
            index=models.Index(fields=['cell', '-created_at'], name='idx_cellevent_cell'),
        ),
        migrations.AddConstraint(
            model_name='cellevent',
            constraint=models.CheckConstraint(condition=models.Q(('action__in', ['approve', 'flag', 'clear', 'edit', 'revert', 'rerun'])), name='chk_cellevent_action_values'),
        ),
        migrations.RunPython(guards_back, migrations.RunPython.noop),
        same_tenant("tabular_cellevent", "cell_id", "tabular_cell"),
    ]
