"""OpenAPI description of DocuIQ's `X-API-Key` authentication.

drf-spectacular documents Session and Token auth by itself; a custom
authentication class needs this extension, or every operation would be
listed without the key scheme (and schemathesis could not know about it).
Imported by docuiq.api_urls, so it is registered before any schema is built.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.auth.ApiKeyAuthentication"
    name = "ApiKeyAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-API-Key",
            "description": "A tenant's API key (`manage.py create_tenant SLUG --api-key`). "
            "Acts for that tenant only.",
        }
