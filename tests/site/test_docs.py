import re

URL = "/api/docs/"


def test_it_serves_swagger_ui(api):
    response = api.get(URL)

    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    page = response.content.decode()
    assert '<div id="swagger-ui"></div>' in page
    assert '"/api/schema/"' in page


def test_it_loads_everything_from_this_server(api):
    page = api.get(URL).content.decode()

    urls = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert sorted(urls) == [
        "/static/drf_spectacular_sidecar/swagger-ui-dist/favicon-32x32.png",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-standalone-preset.js",
        "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui.css",
    ]
    assert not re.search(r"https?://|cdn\.|//unpkg|validator\.swagger", page)


def test_it_can_fetch_every_asset(api):
    page = api.get(URL).content.decode()

    for url in re.findall(r'(?:src|href)="([^"]*)"', page):
        response = api.get(url)
        assert response.status_code == 200, url
        assert b"".join(response.streaming_content), url


def test_it_turns_off_the_online_validator(api):
    page = api.get(URL).content.decode()

    assert '"validatorUrl": null' in page
