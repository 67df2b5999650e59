import yaml
from django.core.management import call_command

AUTH_PATHS = {"/api/auth/signup/", "/api/auth/login/", "/api/auth/logout/", "/api/auth/me/"}


def test_it_serves_the_openapi_schema_as_yaml(api):
    response = api.get("/api/schema/")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi")
    schema = yaml.safe_load(response.content)
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "Canfield Online API"
    assert AUTH_PATHS | {"/api/health/"} <= set(schema["paths"])


def test_it_serves_the_openapi_schema_as_json(api):
    response = api.get("/api/schema/", {"format": "json"})

    assert response.status_code == 200
    schema = response.json()
    assert set(schema["paths"]) >= AUTH_PATHS


def test_it_describes_signup_and_its_errors(api):
    schema = api.get("/api/schema/", {"format": "json"}).json()

    signup = schema["paths"]["/api/auth/signup/"]["post"]
    assert signup["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/SignupRequest"
    }
    assert signup["responses"]["201"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/AuthResult"
    }
    assert signup["responses"]["400"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"
    }
    error = schema["components"]["schemas"]["Error"]
    assert error["description"] == (
        "Every error: a stable machine-readable `code` and a `message` for people."
    )
    assert error["required"] == ["code", "message"]
    assert set(error["properties"]) == {
        "code",
        "message",
        "fields",
        "retry_after",
        "ply",
        "reason",
    }
    assert error["properties"]["fields"]["type"] == "object"
    assert error["properties"]["reason"]["type"] == "string"
    assert "docs/api.md" in error["properties"]["reason"]["description"]
    assert set(schema["components"]["securitySchemes"]) == {"tokenAuth", "cookieAuth"}


def test_it_needs_no_login(api):
    assert api.get("/api/schema/").status_code == 200


def test_it_is_generated_without_a_warning(tmp_path):
    # A warning is a schema that reads worse than it should (an enum named by a hash, a field of
    # no known type): the generator fails on one.
    call_command("spectacular", "--fail-on-warn", "--file", str(tmp_path / "schema.yml"))

    schema = (tmp_path / "schema.yml").read_text()
    assert "GameStatusEnum:" in schema and "AnalysisStatusEnum:" in schema
