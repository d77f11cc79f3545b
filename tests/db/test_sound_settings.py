"""The table's sounds (issue 50): the mute switch and the volume are kept on the account, sent
at once from the table (htmx) or by the account page's form; a value that is not one is refused
and changes nothing; the pages draw the setting so static/js/sounds.js knows it at load."""

import re

import pytest
from django.urls import reverse

from accounts import export
from accounts import services as account_services
from games.core import services

pytestmark = pytest.mark.django_db


def sound_of(user) -> tuple[bool, int]:
    user.refresh_from_db()
    return user.sound_muted, user.sound_volume


def test_a_new_account_plays_sounds_at_seventy(user):
    assert sound_of(user) == (False, 70)


def test_the_table_sends_a_change_at_once_and_it_is_kept(logged_in_client, user):
    response = logged_in_client.post(
        reverse("sound_settings"), {"muted": "on", "volume": "35"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 204  # nothing to swap: the page already shows it
    assert sound_of(user) == (True, 35)
    # Unchecked, the switch sends nothing: sounds on again, the volume as sent.
    logged_in_client.post(reverse("sound_settings"), {"volume": "100"}, HTTP_HX_REQUEST="true")
    assert sound_of(user) == (False, 100)
    assert export.profile(user)["settings"]["sound_volume"] == 100


def test_the_account_page_s_form_comes_back_to_the_page(logged_in_client, user):
    response = logged_in_client.post(
        reverse("sound_settings"), {"muted": "on", "volume": "0", "next": reverse("account")}
    )
    assert response.status_code == 302 and response["Location"] == reverse("account")
    assert sound_of(user) == (True, 0)
    page = logged_in_client.get(reverse("account")).content.decode()
    assert "Your sound settings are saved." in page
    assert re.search(r'<input type="checkbox" name="muted" data-sound-mute checked>', page)
    assert 'value="0" data-sound-volume-input' in page


@pytest.mark.parametrize(
    "data",
    [
        {"volume": "loud"},
        {"volume": "101"},
        {"volume": "-1"},
        {"volume": "50.5"},
        {"volume": ""},
        {"muted": "on"},  # no volume at all
    ],
)
def test_a_value_that_is_not_one_is_refused_and_changes_nothing(logged_in_client, user, data):
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        response = logged_in_client.post(reverse("sound_settings"), data, **headers)
        assert response.status_code == 400
        assert "from 0 to 100" in response.content.decode()
        assert sound_of(user) == (False, 70)


def test_only_a_signed_in_post_changes_it(client, user):
    response = client.post(reverse("sound_settings"), {"muted": "on", "volume": "10"})
    assert response.status_code == 302 and reverse("login") in response["Location"]
    client.force_login(user)
    assert client.get(reverse("sound_settings")).status_code == 405
    assert sound_of(user) == (False, 70)


def test_the_table_and_the_account_page_carry_the_setting_the_offline_page_does_not(
    logged_in_client, user
):
    user.sound_muted, user.sound_volume = True, 40
    user.save()
    match = services.do_start_match(user, rules_spec="house", bot_level="easy")
    table = logged_in_client.get(reverse("table", args=[match.pk])).content.decode()
    account = logged_in_client.get(reverse("account")).content.decode()
    for page in (table, account):
        assert 'data-sound-account data-sound-muted="1" data-sound-volume="40"' in page
        assert "js/sounds.js" in page
    # The offline page's kept copy may be older than the last change: it reads the browser's.
    offline = logged_in_client.get(reverse("offline:page")).content.decode()
    assert "data-sound-form" in offline and "data-sound-account" not in offline
    assert "js/sounds.js" in offline


def test_deleting_the_account_forgets_the_setting(user, password):
    account_services.do_set_sound(user, muted=True, volume=20)
    account_services.do_delete_account(user, password=password)
    assert sound_of(user) == (False, 70)
