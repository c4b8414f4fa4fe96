"""Tenant guards (TEN-06): a review's rows, columns and cells, and the
documents and messages they point at, belong to the review's tenant."""

from __future__ import annotations

from django.db import migrations

from accounts.dbguards import same_tenant


class Migration(migrations.Migration):
    dependencies = [
        ("tabular", "0001_initial"),
        ("ingest", "0002_tenant_guards"),
        ("chat", "0002_tenant_guards"),
    ]

    operations = [
        same_tenant("tabular_reviewdocument", "review_id", "tabular_review"),
        same_tenant("tabular_reviewdocument", "document_id", "ingest_document"),
        same_tenant("tabular_reviewcolumn", "review_id", "tabular_review"),
        same_tenant("tabular_cell", "review_id", "tabular_review"),
        same_tenant("tabular_cell", "row_id", "tabular_reviewdocument"),
        same_tenant("tabular_cell", "column_id", "tabular_reviewcolumn"),
        same_tenant("tabular_cell", "message_id", "messages"),
    ]
