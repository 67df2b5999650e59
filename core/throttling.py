"""Rate limits by scope (signup, login, login_account, login_account_all, actions, states, hints,
verdicts, practice, practice_network, guests, guest_games), counted atomically.

A view opts in with `throttle_scope = "<scope>"`; ScopedThrottle is in DRF's
DEFAULT_THROTTLE_CLASSES, so nothing else is needed. The rates are settings.THROTTLE_RATES
(environment: THROTTLE_SIGNUP, THROTTLE_LOGIN, THROTTLE_LOGIN_ACCOUNT, THROTTLE_LOGIN_ACCOUNT_ALL,
THROTTLE_ACTIONS, THROTTLE_STATES, THROTTLE_HINTS, THROTTLE_VERDICTS, THROTTLE_PRACTICE,
THROTTLE_PRACTICE_NETWORK, THROTTLE_GUESTS, THROTTLE_GUEST_GAMES). A client is its user when
authenticated (:func:`user_key`, the one name of a player in every limit: the REST views' and the
game socket's actions count together), else its address (behind proxies see
REST_FRAMEWORK["NUM_PROXIES"]) as :func:`address_key` counts it: an IPv4 address, or an IPv6
address's /64. Log-ins are counted by :class:`LoginLimits`: per address, per account and
network, per account; hints and verdicts count their searches only (:func:`limit`); a new
practice game counts against several limits at once, per player and per network
(:class:`Limits`, :func:`network_key`).

**Addresses and networks.** An IPv6 client is counted by its /64: one subscriber is given a whole
/64 (2^64 addresses) and may take any address in it, so counting each address apart was no limit
(30 sign-ups from one /64 got 21 through a limit of 10). An IPv4 client is counted by its own
address, not its /24: IPv4 addresses are scarce — an attacker pays for each one — and one /24 is
often a carrier's NAT pool or a campus, many unrelated households behind one prefix, who would
share one allowance. (An IPv4 address written as IPv6, ``::ffff:203.0.113.7``, is that IPv4
address.) The limits that are meant per *network* (:func:`network_key`; a log-in's failures per
account) count an IPv4 /24 or an IPv6 /64 (``core.networks``).

**Log-ins that cannot be used against others.** Failed log-ins lock the (account, network) pair,
not the account: ten wrong passwords for a name on the board from a stranger's network used to
lock its owner out for an hour; now they lock that network out of that account only. A botnet
guessing one account from many networks meets a ceiling per account (50 failures an hour by
default: five networks' allowance), which still lets in a network the account has logged in from
before — see :class:`LoginLimits`.

**Atomic under parallel requests.** A limit is a sliding log per key of the times of the requests
it let through within the rate's period; one step drops the old ones, compares the count with the
limit and logs the new request: on Redis one Lua script over a sorted set (``rl:<scope>:<ident>``),
on the zero-setup in-memory cache (this process's alone) under one lock. Of a burst of requests
sent at once, exactly as many as the limit allows get through: a request is counted *before* the
work it limits (a log-in before its password is hashed), never read, checked and written back
later, which let 45 of 80 parallel wrong passwords through a limit of 20. A refused request is
not counted; its wait (``Retry-After``) is the time until the oldest request in the log leaves it,
at least a second and at most the period.

**Counts given back.** Each entry of a log is named, so that one counted request can be taken back
(:meth:`Counter.give_back`), which some limits need: a log-in answered 503 ``busy`` checked no
password and is no failure of the account (else a log-in flood, which makes the site busy, would
fill the owner's own count while they retry); a right password is no failure either; a new
practice game refused for a bad code counts nothing (bad input changes nothing); and the limits of
one request are counted all or none (:class:`Limits`: a request one limit refuses uses up none of
the others). Why not the ``limits`` library, whose moving windows are atomic on Redis and in
memory alike: it can count a request and clear a key's whole window, not take one request back
(clearing the window instead would let a guesser who keeps the site busy wipe their own failures,
and forget the games a player made), and its in-memory storage starts a timer thread in every
process that uses it, which a web process must not (docs/architecture.md). One mechanism for every
limit, whose atomicity ``tests/site/test_throttling_bursts.py`` tries with parallel bursts.

The counts live in the cache's Redis when there is one (``REDIS_CACHE_URL``, else
``REDIS_URL``), under the cache's key prefix, through this process's bounded client of it
(``core.redis_bounds``: Django's cache has no public way to run a script); else in the in-memory
cache, through its public API. When Redis cannot be reached the limits fail open: the request
goes through and a warning is logged, because a refused or failed request would be worse than an
unlimited one for as long as Redis is away.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import math
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest
from django.utils.translation import gettext as _
from redis.exceptions import RedisError
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle

from core import networks, redis_bounds

log = logging.getLogger(__name__)

#: What a cache that cannot be reached raises (redis-py's errors; socket errors below them).
CACHE_ERRORS = (RedisError, OSError)


def rate_of(scope: str) -> tuple[int, int] | None:
    """(requests, seconds) of ``scope``'s rate, read when asked (a test may change the rates),
    or ``None`` for no limit."""
    rates = api_settings.DEFAULT_THROTTLE_RATES
    if scope not in rates:
        raise ImproperlyConfigured(f"no throttle rate for the scope {scope!r}")
    rate = rates[scope]
    if rate is None:
        return None
    limit, window = ScopedRateThrottle().parse_rate(str(rate))
    return int(limit or 0), int(window or 1)


def hit(scope: str, ident: str) -> float | None:
    """Count one request of ``ident`` against ``scope``'s rate if it is within it: ``None`` (go
    on), else the seconds until the oldest request counted leaves the window (refuse; nothing was
    counted). Fails open when the cache is away."""
    return Counter(scope, ident).hit()


def user_key(user_pk: object) -> str:
    """What every per-player limit counts a player under, whatever its scope: the REST views'
    throttle (:class:`ScopedThrottle`) and the game socket (``games.api.moves.count_action``)
    alike, so that actions over either way in count against one ``actions`` limit."""
    return f"user:{user_pk}"


def _address_ident(address: str) -> str:
    """What a per-address limit counts ``address`` under (:func:`address_key`), hashed: the text
    may come from a proxy's header, and the keys stay short and plain."""
    return f"address:{_digest(address_key(address))}"


class Counter:
    """The requests one key made within the last period of ``scope``'s rate: a sliding log of
    their times, named so that one can be given back, checked and added to in one atomic step."""

    def __init__(self, scope: str, ident: str) -> None:
        self.scope = scope
        self.rate = rate_of(scope)
        self.ident = ident
        self._member: str | None = None

    @property
    def key(self) -> str:
        return f"rl:{self.scope}:{self.ident}"

    def hit(self) -> float | None:
        """Count one now if the key is within its limit: ``None`` (go on), else the seconds
        until the oldest counted request leaves the window (refuse; nothing was counted). Fails
        open when the cache is away."""
        if self.rate is None:
            return None
        limit, window = self.rate
        self._member = uuid.uuid4().hex
        try:
            wait = _admit(self.key, limit, window, time.time(), self._member)
        except CACHE_ERRORS as exc:
            log.warning("rate limit %r not applied: the cache is unreachable (%s)", self.scope, exc)
            return None
        if wait is not None:
            self._member = None
            return max(1.0, wait)
        return None

    def give_back(self) -> None:
        """Take back what :meth:`hit` counted (it did not use the limit: a log-in that succeeded,
        against the failures allowed)."""
        if self.rate is None or self._member is None:
            return
        try:
            _remove(self.key, self._member, self.rate[1])
        except CACHE_ERRORS as exc:
            log.warning("rate limit %r: the cache is unreachable (%s)", self.scope, exc)
        self._member = None


# KEYS: the log (a sorted set of request ids by time). ARGV: now, window (s), limit, request id.
# Returns -1 when admitted (and logged), else the seconds until the oldest request leaves.
_ADMIT = """
local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('EXPIRE', KEYS[1], math.ceil(window) + 1)
  return '-1'
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return tostring(tonumber(oldest[2]) + window - now)
"""
_lock = threading.Lock()


def _redis() -> Any:
    """The cache's Redis (this process's bounded client of it), or ``None`` without one."""
    url = settings.REDIS_CACHE_URL
    return redis_bounds.client(str(url)) if url else None


def _redis_key(key: str) -> str:
    """``key`` under the cache's prefix (the tests give each run its own, and clear it)."""
    return f"{settings.CACHES['default'].get('KEY_PREFIX') or 'canfield'}:{key}"


def _admit(key: str, limit: int, window: int, now: float, member: str) -> float | None:
    """Atomically: drop the requests older than ``window``, and log this one if fewer than
    ``limit`` remain (``None``), else the seconds until the oldest leaves — at most ``window``
    (as :func:`hit`'s)."""
    client = _redis()
    if client is not None:
        answer = float(client.eval(_ADMIT, 1, _redis_key(key), now, window, limit, member))
        return None if answer < 0 else min(answer, float(window))
    backend = caches["default"]
    with _lock:  # the in-memory cache is this process's alone: one lock makes it atomic
        log_: list[tuple[float, str]] = [
            entry for entry in backend.get(key, []) if entry[0] > now - window
        ]
        if len(log_) < limit:
            backend.set(key, [*log_, (now, member)], timeout=window + 1)
            return None
        backend.set(key, log_, timeout=window + 1)
        return min(min(t for t, _ in log_) + window - now, float(window))


def _remove(key: str, member: str, window: int) -> None:
    client = _redis()
    if client is not None:
        client.zrem(_redis_key(key), member)
        return
    backend = caches["default"]
    with _lock:
        kept = [entry for entry in backend.get(key, []) if entry[1] != member]
        backend.set(key, kept, timeout=window + 1)


class ScopedThrottle(ScopedRateThrottle):
    """DRF's ScopedRateThrottle, counting with :func:`hit` (atomic), and reading the rates when
    asked (DRF copies them at import, so a test's override would go unseen): a user by
    :func:`user_key`, an anonymous client by :func:`address_key` (an IPv6 client by its /64)."""

    retry_after: float | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        user = request.user
        if user is not None and user.is_authenticated:
            ident = user_key(user.pk)
        else:
            ident = _address_ident(client_address(request))
        self.retry_after = hit(self.scope, ident)
        return self.retry_after is None

    def wait(self) -> float | None:
        return self.retry_after


def client_address(request: HttpRequest | Request) -> str:
    """The client's address as DRF reads it (the socket's peer, or X-Forwarded-For behind
    ``NUM_PROXIES`` proxies); ``""`` when there is none."""
    drf_request = request if isinstance(request, Request) else Request(request)
    return BaseThrottle().get_ident(drf_request) or ""


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``address`` as an IP address — an IPv4 address written as IPv6 as the IPv4 one — or
    ``None`` for text that is none."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def address_key(address: str) -> str:
    """What a per-address limit counts ``address`` under: an IPv4 address itself, an IPv6
    address's /64 (see the module's docstring for why), other text as it is."""
    ip = _ip(address)
    if ip is None:
        return address
    if ip.version == 4:
        return str(ip)
    return str(networks.network(str(ip)))


def network_of(address: str) -> str:
    """The network of ``address`` as text (``203.0.113.0/24``, ``2001:db8::/64``), or
    ``address:<text>`` for text that is no IP address."""
    ip = _ip(address)
    network = networks.network(str(ip)) if ip is not None else None
    return str(network) if network is not None else f"address:{address}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


#: How long a network an account logged in from stays known to it (:class:`LoginLimits`).
KNOWN_NETWORK_DAYS = 90


class LoginLimits:
    """The limits of a log-in attempt, for the API's log-in and the admin's alike:

    - per client address (:func:`address_key`), every attempt: ``THROTTLE_LOGIN`` (scope
      ``login``), a flood guard;
    - per (account, network), failed attempts: ``THROTTLE_LOGIN_ACCOUNT`` (scope
      ``login_account``) — the account is the username tried, ignoring case, known or not; the
      network the client's /24 or /64 (:func:`network_of`). Strangers who guess an account's
      password from their networks fill their own counts, never the owner's: the owner logs in
      from their network whatever others tried;
    - per account, failed attempts from all networks together: ``THROTTLE_LOGIN_ACCOUNT_ALL``
      (scope ``login_account_all``, much larger) — what stops a botnet from guessing one
      account's password from many networks at once. While it is full, a network that has logged
      in to the account before (or signed it up: :func:`remember_network`, kept in the cache for
      ``KNOWN_NETWORK_DAYS`` days) is still let in, and counts its failures only per (account,
      network); a network new to the account is refused (429) until the ceiling's window moves
      on. So strangers' wrong passwords never stop the owner from logging in from a network they
      have used; from a new network, only while a botnet keeps the ceiling full.

    :meth:`admit` first — it counts the attempt, before any password is hashed, so a burst of
    parallel guesses gets no more through than the limits —, then :meth:`succeeded` after a right
    password (a success is no failure: the account's counts are given back, and the network is
    remembered), or :meth:`not_checked` when no password was checked (the hashing was busy).
    """

    def __init__(self, request: HttpRequest | Request, username: str) -> None:
        address = client_address(request)
        self.address = _address_ident(address)
        # (hashed: any text may be tried as a username, and the cache keys stay plain)
        self.account = _digest(username.strip().lower())
        self.network = network_of(address)
        self.pair = Counter("login_account", _digest(f"{self.account} {self.network}"))
        self.all = Counter("login_account_all", self.account)

    def admit(self) -> Throttled | None:
        """Count this attempt; the 429 to answer if a limit is passed."""
        wait = hit("login", self.address)
        if wait is not None:
            return Throttled(wait, _("Too many log-in attempts from this address."))
        wait = self.pair.hit()
        if wait is not None:
            return Throttled(wait, _("Too many failed log-ins to this account from your network."))
        wait = self.all.hit()
        if wait is not None and not known_network(self.account, self.network):
            self.pair.give_back()
            return Throttled(wait, _("Too many failed log-ins to this account."))
        return None

    def succeeded(self) -> None:
        self.not_checked()
        remember(self.account, self.network)

    def not_checked(self) -> None:
        self.pair.give_back()
        self.all.give_back()


def _known_key(account: str, network: str) -> str:
    return f"login_known:{_digest(f'{account} {network}')}"


def known_network(account: str, network: str) -> bool:
    """Whether ``network`` has logged in to (or signed up) ``account`` (a digest of the username)
    within ``KNOWN_NETWORK_DAYS``; ``False`` when the cache is away."""
    try:
        return bool(caches["default"].get(_known_key(account, network)))
    except CACHE_ERRORS as exc:
        log.warning("known log-in networks not read: the cache is unreachable (%s)", exc)
        return False


def remember(account: str, network: str) -> None:
    try:
        caches["default"].set(
            _known_key(account, network), True, timeout=KNOWN_NETWORK_DAYS * 24 * 3600
        )
    except CACHE_ERRORS as exc:
        log.warning("known log-in network not kept: the cache is unreachable (%s)", exc)


def remember_network(request: HttpRequest | Request, username: str) -> None:
    """Keep the network of ``request`` as one that ``username``'s owner uses (a sign-up)."""
    remember(_digest(username.strip().lower()), network_of(client_address(request)))


def limit(scope: str, ident: str, message: str) -> Callable[[], None]:
    """A hook that counts one against ``scope``'s rate for ``ident``, or raises ``Throttled``
    (429 with ``message`` and the wait) when the rate is passed: for a service that counts only
    some of a view's requests (a hint counts its searches, not its lookups)."""

    def count() -> None:
        wait = hit(scope, ident)
        if wait is not None:
            raise Throttled(math.ceil(wait), message)

    return count


def network_key(request: HttpRequest | Request) -> str:
    """What the per-network limits count ``request`` under: a hash of its client's network
    (:func:`network_of`: the /24 or /64 of its address, behind ``NUM_PROXIES`` proxies), or of
    the address itself when that is no IP address."""
    network = network_of(client_address(request))
    text = f"net:{network}" if not network.startswith("address:") else network
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class Limits:
    """The limits of one request that must all admit it — a new practice game counts per player
    and per network, and a guest's per network too — counted all or none.

    :meth:`admit` counts one against each limit in turn; at the first that is full it gives back
    what it had counted and raises that limit's 429 (``Throttled``, with the wait). Each count is
    atomic (:class:`Counter`), so a burst of parallel requests gets no more through any limit
    than it allows, and a request one limit refuses uses up none of the others.
    :meth:`give_back` takes back the whole count when the work they limited was refused (a bad
    code: nothing was made)."""

    def __init__(self, *limits: tuple[str, str, str]) -> None:
        """``limits``: (scope, ident, the 429's message) each, counted in this order."""
        self.limits = limits
        self._counted: list[Counter] = []

    def admit(self) -> None:
        for scope, ident, message in self.limits:
            counter = Counter(scope, ident)
            wait = counter.hit()
            if wait is not None:
                self.give_back()
                raise Throttled(math.ceil(wait), message)
            self._counted.append(counter)

    def give_back(self) -> None:
        for counter in self._counted:
            counter.give_back()
        self._counted = []
