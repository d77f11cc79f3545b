"""The offline page and what it is served with: the page for anyone, its service worker, its
manifest, and the engine's wheel built from this tree."""

import io
import zipfile

import pytest
from django.test import Client
from django.urls import reverse

from games.offline import selectors, wheel

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("signed_in", [False, True])
def test_the_offline_page_is_in_the_menu_and_offers_the_home_pages_rules(client, user, signed_in):
    if signed_in:
        client.force_login(user)
    home = client.get(reverse("home")).content.decode()
    assert f'href="{reverse("offline:page")}"' in home
    page = client.get(reverse("offline:page")).content.decode()
    for preset in ("house", "classic", "auction", "family"):
        assert f'<option value="{preset}"' in page
    for level in ("easy", "medium", "hard"):
        assert f'<option value="{level}"' in page
    assert f'data-wheel="{reverse("offline:wheel", args=[wheel.current().filename])}"' in page
    assert f'rel="manifest" href="{reverse("offline:manifest")}"' in page


def test_the_service_worker_caches_the_page_the_runtime_and_the_wheel(client):
    answer = client.get(reverse("offline:service_worker"))
    assert answer["Content-Type"].startswith("text/javascript")
    assert answer["Cache-Control"] == "no-cache"
    script = answer.content.decode()
    runtime = selectors.runtime()
    for url in (
        reverse("offline:page"),
        reverse("offline:wheel", args=[wheel.current().filename]),
        *runtime.files,
    ):
        assert f'"{url}"' in script
    assert "setback-offline-" in script


def test_the_manifest_opens_the_offline_page(client):
    manifest = client.get(reverse("offline:manifest")).json()
    assert manifest["start_url"] == manifest["scope"] == reverse("offline:page")


def test_the_wheel_holds_the_engine_as_it_is_in_this_tree_and_nothing_of_django():
    current = wheel.current()
    answer = Client().get(reverse("offline:wheel", args=[current.filename]))
    assert answer.status_code == 200 and b"".join(answer) == current.data
    names = zipfile.ZipFile(io.BytesIO(current.data)).namelist()
    assert "games/engine/bots/search.py" in names and "games/offline/worker.py" in names
    assert not [n for n in names if n.endswith(("models.py", "views.py", "services.py"))]
    with open(wheel.ROOT / "games/engine/rules.py", "rb") as source:
        assert (
            zipfile.ZipFile(io.BytesIO(current.data)).read("games/engine/rules.py") == source.read()
        )
    assert wheel.build().data == current.data  # the same tree, the same bytes
    gone = Client().get(reverse("offline:wheel", args=["setback_engine-0+0-py3-none-any.whl"]))
    assert gone.status_code == 404
