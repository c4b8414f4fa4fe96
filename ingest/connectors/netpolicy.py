"""Which network addresses a connector may reach (SSRF protection).

A tenant names a URL or a database host; the server resolves it and connects.
Without a check, that is a way into the server's own network: the metadata
service at 169.254.169.254, a database on 127.0.0.1, an admin page on 10.x.
Every address a name resolves to must be public (not private, loopback,
link-local, multicast, reserved or unspecified, IPv4 or IPv6, including
IPv4-mapped IPv6), unless the deployment allows private ones
(`CONNECTORS_ALLOW_PRIVATE_NETWORKS`, or loopback alone with
`CONNECTORS_ALLOW_LOOPBACK`, which the tests use for servers they start).
The caller then connects to the address that was checked, never resolving
the name a second time (DNS rebinding).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass

from lib.exceptions import CodedError

__all__ = ["AddressPolicy", "BlockedAddress", "resolve_allowed"]


class BlockedAddress(CodedError):
    """An address the policy does not allow: `code` and a message."""


@dataclass(frozen=True)
class AddressPolicy:
    allow_loopback: bool = False
    allow_private: bool = False

    def why_refused(
        self, address: ipaddress.IPv4Address | ipaddress.IPv6Address
    ) -> str | None:
        """None when the address may be reached, else the kind of range."""
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
            address = address.ipv4_mapped
        if address.is_loopback:
            return None if (self.allow_loopback or self.allow_private) else "loopback"
        for kind, refused in (
            ("unspecified", address.is_unspecified),
            ("link-local", address.is_link_local),
            ("multicast", address.is_multicast),
            ("reserved", address.is_reserved),
        ):
            if refused:
                return kind
        if address.is_private or not address.is_global:
            return None if self.allow_private else "private"
        return None


def resolve_allowed(host: str, port: int, policy: AddressPolicy) -> str:
    """The first address of `host` (every one checked), or BlockedAddress."""
    host = host.strip("[]")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise BlockedAddress(
            "unreachable", f"The name {host!r} does not resolve."
        ) from exc
    addresses = []
    for info in infos:
        # sockaddr[0] is the address as text for AF_INET/AF_INET6 (typeshed
        # allows an int for other families, which a stream lookup never gives).
        raw = str(info[4][0]).split("%", 1)[0]  # an IPv6 zone id
        try:
            addresses.append(ipaddress.ip_address(raw))
        except ValueError:
            continue
    if not addresses:
        raise BlockedAddress("unreachable", f"The name {host!r} does not resolve.")
    for address in addresses:
        why = policy.why_refused(address)
        if why is not None:
            raise BlockedAddress(
                "blocked_address",
                f"{host} resolves to {address}, a {why} address; connectors may reach "
                "only public addresses on this server.",
            )
    return str(addresses[0])
