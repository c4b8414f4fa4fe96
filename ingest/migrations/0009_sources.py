"""Connector sources (issue 29): Source and SourceItem, tenant-guarded; the
connector source types on Document (choices only: no schema change)."""

import django.db.models.deletion
import uuid
from django.conf import settings
from django.db import migrations, models

from accounts.dbguards import same_tenant


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("ingest", "0008_file_also_named"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="document",
            name="source_type",
            field=models.CharField(
                choices=[
                    ("pdf", "PDF"),
                    ("text", "Text"),
                    ("markdown", "Markdown"),
                    ("html", "HTML"),
                    ("web", "Web page"),
                    ("email", "Email"),
                    ("docx", "Word"),
                    ("csv", "CSV"),
                    ("slack", "Slack"),
                    ("teams", "Teams"),
                    ("db", "Database row"),
                    ("gdrive", "Google Drive"),
                    ("unknown", "Unknown"),
                ],
                default="unknown",
                max_length=16,
            ),
        ),
        migrations.CreateModel(
            name="Source",
            fields=[
                (
                    "id",
                    models.UUIDField(
                        default=uuid.uuid4,
                        editable=False,
                        primary_key=True,
                        serialize=False,
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("slack", "Slack export"),
                            ("teams", "Teams export"),
                            ("db", "Database"),
                            ("web", "Web page"),
                        ],
                        max_length=8,
                    ),
                ),
                ("name", models.CharField(max_length=200)),
                ("url", models.URLField(blank=True, max_length=2000)),
                ("config", models.JSONField(blank=True, default=dict)),
                ("secret", models.TextField(blank=True)),
                ("connection_display", models.CharField(blank=True, max_length=500)),
                ("schedule_minutes", models.PositiveIntegerField(default=0)),
                ("next_sync_at", models.DateTimeField(blank=True, null=True)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("queued", "Queued"),
                            ("syncing", "Syncing"),
                            ("ready", "Ready"),
                            ("failed", "Failed"),
                        ],
                        default="queued",
                        max_length=16,
                    ),
                ),
                ("error", models.TextField(blank=True)),
                ("error_code", models.CharField(blank=True, max_length=32)),
                ("warnings", models.JSONField(blank=True, default=list)),
                ("stats", models.JSONField(blank=True, default=dict)),
                ("progress_done", models.PositiveIntegerField(default=0)),
                ("progress_total", models.PositiveIntegerField(default=0)),
                ("attempts", models.PositiveSmallIntegerField(default=0)),
                ("enqueued_at", models.DateTimeField(blank=True, null=True)),
                ("last_synced_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "collection",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="accounts.collection",
                    ),
                ),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "file",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="ingest.file",
                    ),
                ),
                (
                    "tenant",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="accounts.tenant",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at"],
            },
        ),
        migrations.CreateModel(
            name="SourceItem",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("key", models.CharField(max_length=500)),
                ("content_sha256", models.CharField(max_length=64)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="source_items",
                        to="ingest.document",
                    ),
                ),
                (
                    "source",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="items",
                        to="ingest.source",
                    ),
                ),
                (
                    "tenant",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="accounts.tenant",
                    ),
                ),
            ],
        ),
        migrations.AddIndex(
            model_name="source",
            index=models.Index(
                fields=["status", "updated_at"], name="idx_source_status"
            ),
        ),
        migrations.AddIndex(
            model_name="source",
            index=models.Index(fields=["next_sync_at"], name="idx_source_next_sync"),
        ),
        migrations.AddConstraint(
            model_name="source",
            constraint=models.UniqueConstraint(
                fields=("tenant", "id"), name="uniq_source_tenant_id"
            ),
        ),
        migrations.AddConstraint(
            model_name="sourceitem",
            constraint=models.UniqueConstraint(
                fields=("source", "key"), name="uniq_source_item_key"
            ),
        ),
        # After the tables are final: SQLite's rebuilds above would drop them.
        same_tenant("ingest_source", "file_id", "files"),
        same_tenant("ingest_source", "collection_id", "accounts_collection"),
        same_tenant("ingest_sourceitem", "source_id", "ingest_source"),
        same_tenant("ingest_sourceitem", "document_id", "ingest_document"),
    ]
