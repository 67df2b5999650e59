import re

URL = "/api/docs/"
SCRIPT = "/api/docs/?script="


def test_it_serves_swagger_ui(api):
    response = api.get(URL)

    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    page = response.content.decode()
    assert '<div id="swagger-ui"></div>' in page
    assert '"/api/schema/"' in api.get(SCRIPT).content.decode()


def test_it_has_no_inline_script_or_style(api):
    page = api.get(URL).content.decode()

    assert not re.search(r"<script(?![^>]*\bsrc=)", page)
    assert "<style" not in page and "style=" not in page


def test_it_loads_everything_from_this_server(api):
    page = api.get(URL).content.decode()

    urls = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert sorted(urls) == [
        SCRIPT,
        "/static/drf_spectacular_sidecar/swagger-ui-dist/favicon-32x32.png",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-standalone-preset.js",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui.css",
        "/static/frontend/css/api-docs.css",
    ]
    assert not re.search(r"https?://|cdn\.|//unpkg|validator\.swagger", page)
    assert not re.search(
        r"https?://|cdn\.|//unpkg|validator\.swagger", api.get(SCRIPT).content.decode()
    )


def test_it_can_fetch_every_asset(api):
    page = api.get(URL).content.decode()

    for url in re.findall(r'(?:src|href)="([^"]*)"', page):
        response = api.get(url)
        assert response.status_code == 200, url
        body = response.content if url == SCRIPT else b"".join(response.streaming_content)
        assert body, url


def test_it_turns_off_the_online_validator(api):
    script = api.get(SCRIPT).content.decode()

    assert '"validatorUrl": null' in script
