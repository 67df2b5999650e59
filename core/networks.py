"""What a client's *network* is, defined once: its IPv4 address's /24, its IPv6 address's /64 —
one household, office or mobile subscriber, as a rule. The limits that count per network
(``core.throttling``) and the fair-play review's linked accounts (``leaderboard.review``)
both read it here. Standard library only, so that every layer may import it
(tests/site/test_layering.py)."""

from __future__ import annotations

import ipaddress
from typing import Final

#: The prefix length a network is known by, per IP version.
NETWORK_PREFIX: Final = {4: 24, 6: 64}


def network(address: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """The network of ``address`` (``203.0.113.0/24`` for ``203.0.113.7``), or ``None`` for text
    that is not an IP address."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return None
    return ipaddress.ip_network(f"{ip}/{NETWORK_PREFIX[ip.version]}", strict=False)
