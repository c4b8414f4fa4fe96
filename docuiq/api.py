"""One place where domain errors become HTTP errors."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django_scopes import ScopeError
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from lib.exceptions import DocuIQError


def exception_handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, DocuIQError):
        exc = exceptions.ValidationError({"detail": exc.message, "code": exc.code})
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError({"detail": exc.messages})
    elif isinstance(exc, IntegrityError):
        # A CHECK or UNIQUE constraint rejected the input: the caller's fault (DAT-04).
        exc = exceptions.ValidationError(
            {"detail": "The request conflicts with existing data."}
        )
    elif isinstance(exc, ScopeError):
        exc = exceptions.NotFound()
    return drf_exception_handler(exc, context)
