"""The text table (issue 50, docs/accessibility.md): a person's setting, kept on the account,
sent at once from the table (htmx) or by the account page's form; the table page then carries
the body class the stylesheet lays the table out by, and the switch beside the sounds."""

import re

import pytest
from django.urls import reverse

from accounts import export
from accounts import services as account_services
from games.core import services

pytestmark = pytest.mark.django_db


def text_table_of(user) -> bool:
    user.refresh_from_db()
    return user.text_table


def body_classes(page: str) -> list[str]:
    return re.search(r'<body[^>]* class="([^"]*)"', page).group(1).split()


def test_a_new_account_has_the_drawn_table(user):
    assert text_table_of(user) is False


def test_the_table_sends_a_change_at_once_and_draws_itself_as_text(logged_in_client, user):
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    table_url = reverse("table", args=[match.pk])
    page = logged_in_client.get(table_url).content.decode()
    assert "text-table" not in body_classes(page)
    assert re.search(r"data-text-table-switch>", page)  # beside the sound controls, off
    response = logged_in_client.post(
        reverse("text_table_settings"), {"text_table": "on"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 204  # the page already redrew itself
    assert text_table_of(user) is True
    page = logged_in_client.get(table_url).content.decode()
    assert "text-table" in body_classes(page)
    assert "data-text-table-switch checked" in page and "js/text-table.js" in page
    assert export.profile(user)["settings"]["text_table"] is True
    # Unchecked, the switch sends nothing: the drawn table again.
    logged_in_client.post(reverse("text_table_settings"), {}, HTTP_HX_REQUEST="true")
    assert text_table_of(user) is False


def test_the_account_page_s_form_comes_back_to_the_page(logged_in_client, user):
    response = logged_in_client.post(
        reverse("text_table_settings"), {"text_table": "on", "next": reverse("account")}
    )
    assert response.status_code == 302 and response["Location"] == reverse("account")
    page = logged_in_client.get(reverse("account")).content.decode()
    assert "Your table setting is saved." in page
    assert "data-text-table-switch checked" in page


def test_only_a_signed_in_post_changes_it(client, user):
    response = client.post(reverse("text_table_settings"), {"text_table": "on"})
    assert response.status_code == 302 and reverse("login") in response["Location"]
    client.force_login(user)
    assert client.get(reverse("text_table_settings")).status_code == 405
    assert text_table_of(user) is False


def test_deleting_the_account_forgets_the_setting(user, password):
    account_services.do_set_text_table(user, on=True)
    account_services.do_delete_account(user, password=password)
    assert text_table_of(user) is False
