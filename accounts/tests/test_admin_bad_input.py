"""Admin bad input answers 400 or the form's error, never a 500 (issue 34
item 4): an action on a selection that is no row id, and a second collection
of a name the workspace has; found also by hypothesis over selections."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import ApiKey, Collection
from accounts.scoping import tenant_scope
from accounts.services import api_key_create

pytestmark = pytest.mark.django_db


def _revoke(client, selection):
    return client.post(
        "/admin/accounts/apikey/",
        {"action": "revoke_selected", "_selected_action": selection},
    )


def test_an_action_on_a_selection_that_is_no_id_answers_400(alice_client, tenant_a):
    with tenant_scope(tenant_a):
        key, _ = api_key_create(tenant=tenant_a)
    response = _revoke(alice_client, ["abc", str(key.pk)])
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    with tenant_scope(tenant_a):
        assert ApiKey.objects.get(pk=key.pk).revoked_at is None
    # A good selection still works.
    assert _revoke(alice_client, [str(key.pk)]).status_code == 302
    with tenant_scope(tenant_a):
        assert ApiKey.objects.get(pk=key.pk).revoked_at is not None


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.text(max_size=12), min_size=1, max_size=3))
def test_no_selection_makes_an_action_fail_with_a_500(alice_client, selection):
    # Form data cannot carry NUL or lone surrogates; anything else can.
    selection = [s.replace("\x00", "") for s in selection]
    selection = [s.encode("utf-8", "ignore").decode() for s in selection]
    assert _revoke(alice_client, selection).status_code in (200, 302, 400)


def test_a_second_collection_of_a_taken_name_is_the_forms_error(alice_client, tenant_a):
    with tenant_scope(tenant_a):
        Collection.objects.create(tenant=tenant_a, name="Q3 deals")
    response = alice_client.post(
        "/admin/accounts/collection/add/", {"name": "Q3 deals"}
    )
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    with tenant_scope(tenant_a):
        assert Collection.objects.filter(name="Q3 deals").count() == 1
    # Another name is added as before.
    added = alice_client.post("/admin/accounts/collection/add/", {"name": "Q4 deals"})
    assert added.status_code == 302
