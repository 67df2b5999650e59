"""Request bodies over their limit are refused with 413 too_large before the application reads
them (``core.limits.BodyLimitMiddleware``).

In the ASGI application (any server), and through a live Daphne started as every web process is
(``make run``'s shape: Daphne reads the whole body before the application sees it, then the
middleware refuses it). In the deployed shape nginx refuses a body over its cap before it reaches
Daphne: tests/deploy/test_nginx.py. Limits: settings.MAX_BODY_API (64 KB) under /api/, MAX_BODY
(1 MB) elsewhere.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest
from django.conf import settings

from canfield_site.asgi import application
from tests.support import Daphne, asgi_request, django_env, migrate

TOO_LARGE = {"code": "too_large", "message": "The request body is larger than 65536 bytes."}


def asgi_post(path: str, chunks: list[bytes], length: int | None = None) -> tuple[int, bytes, int]:
    """POST ``chunks`` through the ASGI application (with a Content-Length header if
    ``length``): the status, the body, and how many chunks the application read."""
    headers = [(b"content-type", b"application/json")]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    status, _, body, read = asgi_request(application, "POST", path, headers, chunks)
    return status, body, read


def test_it_refuses_a_declared_length_over_the_limit_without_reading_the_body():
    status, body, read = asgi_post("/api/auth/login/", [b"x" * 10], length=256 * 1024 * 1024)

    assert (status, json.loads(body), read) == (413, TOO_LARGE, 0)


def test_it_refuses_a_streamed_body_as_soon_as_it_passes_the_limit():
    chunks = [b"y" * 16384] * 100  # 1.6 MB, without a Content-Length

    status, body, read = asgi_post("/api/auth/login/", chunks)

    assert (status, json.loads(body)) == (413, TOO_LARGE)
    assert read == 5  # 80 KB read: the first chunk past 64 KB


@pytest.mark.django_db
def test_it_passes_a_body_within_the_limit_to_the_view():
    body = json.dumps({"username": "x" * 60_000, "password": "y"}).encode()
    assert len(body) <= settings.MAX_BODY_API

    status, answer, _ = asgi_post("/api/auth/login/", [body[:30_000], body[30_000:]], len(body))

    assert (status, json.loads(answer)["code"]) == (400, "invalid")  # read, and refused by the view


def test_it_allows_larger_bodies_off_the_api(settings):
    settings.MAX_BODY = 2048

    status, body, read = asgi_post("/admin/login/", [b"z" * 4096], length=4096)

    assert (status, body, read) == (413, b"The request body is larger than 2048 bytes.", 0)


# --- inside Daphne ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def daphne(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daphne]:
    work = tmp_path_factory.mktemp("body-limit")
    env = django_env(f"sqlite:///{work / 'db.sqlite3'}")
    migrate(env)
    with Daphne(env, work / "daphne.log") as server:
        yield server


def raw_post(
    port: int, path: str, headers: dict[str, str], body: Iterator[bytes], quiet: float = 2
) -> bytes:
    """POST to ``path`` with ``headers``, sending as much of ``body`` as the server reads: the
    start of its answer, taken as whole once the server has said nothing for ``quiet`` seconds
    (or closed the connection)."""
    head = "".join(
        f"{name}: {value}\r\n" for name, value in {"Host": "127.0.0.1", **headers}.items()
    )
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(f"POST {path} HTTP/1.1\r\n{head}\r\n".encode())
        try:
            for chunk in body:
                conn.sendall(chunk)
        except OSError:  # the server answered and closed: it reads no more
            pass
        conn.settimeout(quiet)
        answer = b""
        try:
            while len(answer) < 4096 and (part := conn.recv(4096)):
                answer += part
        except TimeoutError:  # the whole answer is in, on a connection kept open
            pass
        return answer


def test_daphne_refuses_a_declared_length_over_the_limit(daphne):
    body = b"{" + b" " * (100 * 1024) + b"}"

    answer = raw_post(
        daphne.port, "/api/auth/login/", {"Content-Length": str(len(body))}, iter([body])
    )

    assert answer.startswith(b"HTTP/1.1 413 ")
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1]) == TOO_LARGE


def test_daphne_refuses_a_chunked_body_past_the_limit(daphne):
    chunks = [b"1000\r\n" + b"y" * 4096 + b"\r\n" for _ in range(100)] + [b"0\r\n\r\n"]

    answer = raw_post(
        daphne.port, "/api/auth/login/", {"Transfer-Encoding": "chunked"}, iter(chunks)
    )

    assert answer.startswith(b"HTTP/1.1 413 ")


def test_daphne_refuses_a_body_over_the_limit_off_the_api(daphne):
    size = 2 * 1024 * 1024
    body = (b"x" * 65536 for _ in range(size // 65536))

    answer = raw_post(daphne.port, "/admin/login/", {"Content-Length": str(size)}, body)

    assert answer.startswith(b"HTTP/1.1 413 "), answer
    assert answer.endswith(b"The request body is larger than 1048576 bytes."), answer


def test_daphne_serves_a_body_within_the_limit(daphne):
    body = json.dumps({"username": "bob", "password": "p" * 100}).encode()

    headers = {
        "Content-Type": "application/json",
        "Content-Length": str(len(body)),
        "Connection": "close",
    }
    # (The log-in checks a password, in a hashing slot of its own: on a busy machine that takes
    # a while. The answer is whole when the server closes the connection.)
    answer = raw_post(daphne.port, "/api/auth/login/", headers, iter([body]), quiet=60)

    assert answer.startswith(b"HTTP/1.1 400 ")
    assert b'"invalid_credentials"' in answer
