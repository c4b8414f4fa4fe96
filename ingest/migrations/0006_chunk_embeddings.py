"""Chunk vectors for dense and hybrid search (issue 23): one row per chunk and
embedding model, the vector as float32 bytes (BLOB / bytea, no extension)."""

import django.db.models.deletion
from django.db import migrations, models

from accounts.dbguards import same_tenant


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0001_initial'),
        ('ingest', '0005_fulltext_term_stats'),
    ]

    operations = [
        migrations.CreateModel(
            name='ChunkEmbedding',
            fields=[
                ('id', models.BigAutoField(primary_key=True, serialize=False)),
                ('model', models.CharField(max_length=200)),
                ('dim', models.PositiveSmallIntegerField()),
                ('vector', models.BinaryField()),
                ('chunk', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='embeddings', to='ingest.documentchunk')),
                ('document', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='ingest.document')),
                ('tenant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='accounts.tenant')),
            ],
            options={
                'indexes': [models.Index(fields=['tenant', 'model', 'id'], name='idx_embedding_tenant_model'), models.Index(fields=['document', 'model'], name='idx_embedding_document_model')],
                'constraints': [models.UniqueConstraint(fields=('chunk', 'model'), name='uniq_chunk_embedding_model'), models.CheckConstraint(condition=models.Q(('dim__gt', 0)), name='chk_chunk_embedding_dim')],
            },
        ),
        # A vector belongs to its document's tenant (TEN-06).
        same_tenant("ingest_chunkembedding", "document_id", "ingest_document"),
    ]
