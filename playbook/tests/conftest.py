"""Playbook fixtures: tabular's (ingested demo documents, short contracts,
the scripted model server) and the sample playbook."""

from __future__ import annotations

import pytest

from accounts.scoping import tenant_scope
from tabular.tests.conftest import (  # noqa: F401 - fixtures
    _fresh_celery_client,
    _one_cell_at_a_time,
    contracts,
    demo_docs,
    llm,
)


@pytest.fixture
def sample(tenant_a, alice):
    from playbook.services import sample_import

    with tenant_scope(tenant_a):
        return sample_import(tenant=tenant_a, user=alice)
