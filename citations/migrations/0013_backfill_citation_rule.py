"""Data: the rule that refused each failed citation, read from its latest
audit row (the `rule` of the last stage record that names one: the stage
that decided, as `Verdict.rule`). Until 0011 the rule was stored there only.
"""

from django.db import migrations
from django_scopes import scopes_disabled

BATCH = 1000


def _decided_by(stages: object) -> str:
    if not isinstance(stages, list):
        return ""
    for stage in reversed(stages):
        if isinstance(stage, dict) and stage.get("rule"):
            return str(stage["rule"])[:64]
    return ""


def backfill(apps, schema_editor):
    # Every tenant's rows, each given the rule of its own audit rows.
    with scopes_disabled():
        _backfill(apps)


def _backfill(apps):
    MessageCitation = apps.get_model("citations", "MessageCitation")
    CitationVerification = apps.get_model("citations", "CitationVerification")
    failed = MessageCitation.objects.filter(verification_status="failed", rule="")
    ids = list(failed.values_list("pk", flat=True).order_by("pk"))
    for i in range(0, len(ids), BATCH):
        batch = ids[i : i + BATCH]
        latest: dict[object, str] = {}
        audits = (
            CitationVerification.objects.filter(
                citation_id__in=batch, verification_status="failed"
            )
            .order_by("created_at", "id")
            .values_list("citation_id", "stages")
        )
        for citation_id, stages in audits.iterator():
            latest[citation_id] = _decided_by(stages)  # the newest wins
        for citation_id, rule in latest.items():
            if rule:
                MessageCitation.objects.filter(pk=citation_id).update(rule=rule)


class Migration(migrations.Migration):
    dependencies = [("citations", "0012_sqlite_schema_after_rule")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
