import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from canfield_site.asgi import application


def test_it_answers_ok(api):
    response = api.get("/api/health/")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_it_ignores_a_bad_token(api):
    api.credentials(HTTP_AUTHORIZATION="Token nope")

    assert api.get("/api/health/").json() == {"status": "ok"}


def asgi_get(path: str) -> tuple[int, dict[bytes, bytes], bytes]:
    """GET through the ASGI application Daphne serves (channels' HttpCommunicator wants a
    body in every message, which the ASGI spec does not promise)."""
    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"localhost")],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8000),
    }
    sent: list[dict[str, Any]] = []
    requests = [{"type": "http.request", "body": b"", "more_body": False}]

    async def receive():
        if requests:
            return requests.pop()
        await asyncio.Event().wait()  # the client stays connected

    async def send(message):
        sent.append(message)

    # In a thread of its own: another test's tool may hold an event loop in this one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        run = application(scope, receive, send)  # type: ignore[arg-type]  # (a plain dict scope)
        pool.submit(asyncio.run, asyncio.wait_for(run, 10)).result()
    start, *bodies = sent
    headers = {name.lower(): value for name, value in start["headers"]}
    return start["status"], headers, b"".join(part.get("body", b"") for part in bodies)


def test_it_answers_through_the_asgi_application():
    status, headers, body = asgi_get("/api/health/")

    assert status == 200
    assert headers[b"content-type"] == b"application/json"
    assert body == b'{"status":"ok"}'


def test_it_serves_static_files_through_the_asgi_application():
    status, headers, body = asgi_get(
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui.css"
    )

    assert status == 200
    assert headers[b"content-type"].startswith(b"text/css")
    assert body.startswith(b".swagger-ui")
