"""Sign-up: the rules of a username and a password stand beside their fields from the start, and
a refusal is shown by the field it concerns, in sentences of the page's language — never after a
raw field name ("username: ...")."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import Browser, expect

from .conftest import PASSWORD, SIZES, STEP_TIMEOUT_MS


@pytest.mark.parametrize("size", SIZES)
def test_sign_up_states_its_rules_and_says_what_is_wrong_by_each_field(
    browser: Browser, daphne_server: str, size: str
) -> None:
    context = browser.new_context(viewport=SIZES[size], base_url=daphne_server)
    context.set_default_timeout(STEP_TIMEOUT_MS)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto("/signup/")
        form = page.locator("form[data-auth-form]")
        username, password = form.locator("input[name=username]"), form.locator("[name=password]")
        expect(form.locator("#username-rules")).to_have_text(
            "3 to 30 characters: letters, digits, _ and -. No one else may have it, in capitals"
            " or not."
        )
        expect(form.locator("#password-rules")).to_contain_text("At least 8 characters")
        expect(username).to_have_attribute("aria-describedby", "username-rules username-error")

        submit = form.locator("button[type=submit]")
        submit.click()  # nothing filled in
        expect(form.locator("[data-field-error=username]")).to_have_text("Enter a username.")
        expect(username).to_be_focused()

        username.fill("ab")
        password.fill(PASSWORD)
        form.locator("[name=password2]").fill(PASSWORD)
        submit.click()
        error = form.locator("[data-field-error=username]")
        expect(error).to_have_text("Usernames are 3 to 30 characters: letters, digits, _ and -.")
        expect(username).to_have_attribute("aria-invalid", "true")
        expect(form.locator("[data-form-error]")).to_be_empty()

        name = f"s{uuid.uuid4().hex[:10]}"
        username.fill(name)
        password.fill("12345678")
        form.locator("[name=password2]").fill("12345678")
        submit.click()
        error = form.locator("[data-field-error=password]")
        expect(error).to_contain_text("This password is too common.")
        expect(error).to_contain_text("This password is entirely numeric.")
        expect(password).to_have_attribute("aria-invalid", "true")
        expect(username).not_to_have_attribute("aria-invalid", "true")
        assert "password:" not in form.inner_text() and "username:" not in form.inner_text()

        # In Finnish: the same, in Finnish sentences.
        page.get_by_test_id("language").select_option("fi")
        expect(page.locator("html")).to_have_attribute("lang", "fi")
        form.locator("input[name=username]").fill(name)
        form.locator("[name=password]").fill("12345678")
        form.locator("[name=password2]").fill("12345678")
        form.locator("button[type=submit]").click()
        error = form.locator("[data-field-error=password]")
        expect(error).to_contain_text("Tämä salasana on liian yleinen.")
        assert not error.inner_text().lower().startswith(("password", "salasana:"))

        form.locator("[name=password]").fill(PASSWORD)
        form.locator("[name=password2]").fill(PASSWORD)
        form.locator("button[type=submit]").click()
        page.wait_for_url(f"{daphne_server}/")
        assert errors == []
    finally:
        context.close()
