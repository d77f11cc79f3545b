"""The offline page and what it is served with: the page for anyone, its service worker, its
manifest, and the engine's wheel built from this tree."""

import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from games.offline import selectors, wheel, worker

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


# --- Issue 44, item 11: the menu with no network, the player's name, the coach's figure ------


def test_the_service_worker_may_answer_the_whole_sites_pages_with_the_no_network_page(client):
    answer = client.get(reverse("offline:service_worker"))
    assert answer["Service-Worker-Allowed"] == "/"
    script = answer.content.decode()
    # The no-network page is kept with the offline page, second in the list the worker reads.
    urls = json.loads(re.search(r"const PRECACHE = (\[.*?\]);", script).group(1))
    assert urls[:2] == [reverse("offline:page"), reverse("offline:unavailable")]
    page = client.get(reverse("offline:page")).content.decode()
    assert 'data-scope="/"' in page


@pytest.mark.parametrize("signed_in", [False, True])
def test_the_no_network_page_says_what_works_without_one(client, user, signed_in):
    if signed_in:
        client.force_login(user)
    page = client.get(reverse("offline:unavailable")).content.decode()
    assert "This page needs the network" in page
    assert "What works without a network" in page
    assert re.search(rf'<a href="{reverse("offline:page")}" data-offline-link>', page)
    assert '<a href="" data-try-again>Try again</a>' in page  # the address asked for, again


def test_the_offline_page_knows_the_players_name(client, user):
    assert 'data-player=""' in client.get(reverse("offline:page")).content.decode()
    client.force_login(user)
    assert 'data-player="alice"' in client.get(reverse("offline:page")).content.decode()


def test_the_offline_coach_ranks_by_net_as_the_online_coach_does():
    options = {"choices": {"preset": "house"}, "level": "easy", "seed": 44, "key": "net44"}
    view = json.loads(worker.start(json.dumps({**options, "engine": ""})))["table"]
    for _ in range(60):
        if not view["bot_to_act"] and view["result"] is None:
            panel = json.loads(worker.coach())
            if panel["state"] == "advice" and len(panel["options"]) > 1:
                break
            view = json.loads(worker.act(panel["options"][0]["action"]))["table"]
        else:
            view = json.loads(worker.bot())["table"]
    else:
        raise AssertionError("no decision with a choice came")
    nets = []
    for option in panel["options"]:
        points, theirs = float(option["points_text"]), float(option["theirs_text"])
        net = float(option["net_text"].replace("\u2212", "-"))
        assert abs(net - (points - theirs)) < 0.011
        nets.append(net)
    assert nets == sorted(nets, reverse=True)  # best first, by net
    render = (Path(settings.BASE_DIR) / "static/offline/render.js").read_text()
    assert 'option.net_text) + "</strong> net</span>' in render and "</strong> pts" not in render
