"""Signals ingest sends for apps it must not import (citations re-verify)."""

from __future__ import annotations

from django.dispatch import Signal

# Sent after a document's new revision is committed as current.
# kwargs: document, revision, previous_revision (None on first ingestion).
revision_created = Signal()
