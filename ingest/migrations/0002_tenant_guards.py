from __future__ import annotations

from django.db import migrations

from accounts.dbguards import same_tenant


class Migration(migrations.Migration):
    dependencies = [("ingest", "0001_initial")]

    operations = [
        same_tenant("ingest_document", "file_id", "files"),
        same_tenant("ingest_document", "parent_id", "ingest_document"),
        same_tenant(
            "ingest_document", "current_revision_id", "ingest_documentrevision"
        ),
        same_tenant("ingest_documentrevision", "document_id", "ingest_document"),
        same_tenant("ingest_documentrevision", "file_id", "files"),
        same_tenant("ingest_documentchunk", "document_id", "ingest_document"),
        same_tenant("ingest_documentchunk", "revision_id", "ingest_documentrevision"),
    ]
