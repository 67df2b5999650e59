"""The groups' pages, served in process: a group's page for its members only (anyone else gets
the 404 page, a visitor the log-in page first), an invite's page that joins nothing by being
viewed, and the list of mine."""

from __future__ import annotations

import pytest
from django.test import Client

from groups.models import Membership

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_member_gets_the_groups_page(group, member):
    response = logged_in(member).get(f"/groups/{group['id']}/")

    assert response.status_code == 200
    page = response.content.decode()
    assert "Friday club" in page and f'data-group-id="{group["id"]}"' in page
    assert "data-new-invite" not in page  # (the owner's alone)


def test_the_owner_gets_the_owners_buttons(group, owner):
    page = logged_in(owner).get(f"/groups/{group['id']}/").content.decode()

    assert "data-new-invite" in page and "data-rename" in page


def test_anyone_else_gets_the_404_page_as_for_no_group(group, other, guest):
    for client in (logged_in(other), guest):
        there = client.get(f"/groups/{group['id']}/")
        nowhere = client.get("/groups/999999/")
        assert there.status_code == nowhere.status_code == 404
        assert "data-error-status" in there.content.decode()


def test_a_visitor_is_sent_to_log_in_whatever_the_group(group):
    for path in (f"/groups/{group['id']}/", "/groups/999999/"):
        response = Client().get(path)
        assert response.status_code == 302
        assert response["Location"] == f"/login/?next={path}"


def test_viewing_an_invite_joins_nothing(group, other):
    response = logged_in(other).get(f"/groups/join/{group['invite']}/")

    assert response.status_code == 200
    assert f'data-invite="{group["invite"]}"' in response.content.decode()
    assert not Membership.objects.filter(group_id=group["id"], user=other).exists()


def test_a_visitor_and_a_guest_are_asked_to_sign_up_on_the_pages(group, guest):
    visitor = Client().get(f"/groups/join/{group['invite']}/").content.decode()
    as_guest = guest.get("/groups/").content.decode()

    assert "data-group-sign-in" in visitor and "data-join" not in visitor
    assert f"/login/?next=/groups/join/{group['invite']}/" in visitor
    assert "data-group-sign-in" in as_guest and "data-new-group" not in as_guest
