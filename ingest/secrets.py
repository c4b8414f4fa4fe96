"""Source credentials at rest: Fernet (AES-128-CBC with an HMAC-SHA256 tag,
from `cryptography`, the Python Cryptographic Authority's library), so a
database dump or a backup never holds a source's password in the clear and
a changed ciphertext is refused, not decrypted to garbage.

Keys: CONNECTORS_SECRET_KEYS (newest first; older ones still decrypt, so a
key can be rotated), else one key derived from SECRET_KEY with HKDF under a
label of its own (changing SECRET_KEY then makes stored credentials
unreadable: the source says so and asks for them again).
"""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

__all__ = ["SecretUnreadable", "secret_decrypt", "secret_encrypt"]


class SecretUnreadable(Exception):
    """The stored credentials cannot be decrypted with the configured keys."""


def _fernet() -> MultiFernet:
    keys = [Fernet(k.encode()) for k in settings.CONNECTORS_SECRET_KEYS]
    if not keys:
        derived = HKDF(
            algorithm=hashes.SHA256(),
            length=32,
            salt=None,
            info=b"docuiq connector credentials v1",
        ).derive(settings.SECRET_KEY.encode())
        keys = [Fernet(base64.urlsafe_b64encode(derived))]
    return MultiFernet(keys)


def secret_encrypt(plain: str) -> str:
    return _fernet().encrypt(plain.encode()).decode()


def secret_decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode()).decode()
    except (InvalidToken, ValueError) as exc:
        raise SecretUnreadable(
            "The stored credentials cannot be read with this server's keys "
            "(SECRET_KEY or CONNECTORS_SECRET_KEYS changed): enter them again."
        ) from exc
