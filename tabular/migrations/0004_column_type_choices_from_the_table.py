"""A column's type choices are the table's function (tabular.column_types.
choices), kept here as that reference: a new column type changes the check
constraint only, not this field. No schema change (choices live in Python).
"""

import tabular.column_types
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tabular', '0003_typed_values_and_review'),
    ]

    operations = [
        migrations.AlterField(
            model_name='reviewcolumn',
            name='type',
            field=models.CharField(choices=tabular.column_types.choices, default='text', max_length=16),
        ),
    ]
