"""The data download is built off the web process (issue 45, finding 4), one at a time per
person, into a private file only its owner can fetch, with the offline uploads in it, and gone
with the account (finding 8).

Building it in the web process took 15-17 s for 3,030 one-deal matches, and six at once took the
log-in page's median for everyone from 12 ms to 112 ms. `manage.py bench_download` measures the
build (docs/operations.md); these tests assert where it runs and what it may touch.
"""

import io
import json
import stat
import zipfile

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts import downloads, services
from accounts.models import DataDownload
from games.core import budget, dispatch
from games.offline.models import OfflineMatch, OfflineUpload
from games.offline.services import do_receive
from tests.engine.offline_helpers import played_envelope

pytestmark = pytest.mark.django_db

DATA = reverse("download_data")


@pytest.fixture
def enqueued(monkeypatch):
    calls = []
    monkeypatch.setattr(
        dispatch, "enqueue", lambda task, *args, **kw: calls.append((task.name, args))
    )
    return calls


@pytest.fixture(autouse=True)
def _a_downloads_folder_of_its_own(settings, tmp_path):
    settings.DOWNLOADS_DIR = tmp_path / "downloads"


def ask(client, capture):
    with capture(execute=True):
        return client.post(DATA)


def test_asking_builds_nothing_in_the_request_and_one_build_at_a_time_is_queued_on_checks(
    logged_in_client, user, enqueued, django_capture_on_commit_callbacks
):
    first = ask(logged_in_client, django_capture_on_commit_callbacks)
    again = ask(logged_in_client, django_capture_on_commit_callbacks)
    assert first.status_code == again.status_code == 302
    # One build waiting, one task queued, and no file written by the requests.
    assert DataDownload.objects.get().status == DataDownload.Status.WAITING
    assert enqueued == [("accounts.tasks.build_data_download", (DataDownload.objects.get().pk,))]
    assert dispatch.queue_of(dispatch.task_named(enqueued[0][0])).endswith("checks")
    assert list(downloads.folder().glob(f"{user.pk}-*")) == []
    page = logged_in_client.get(reverse("account")).content.decode()
    assert 'data-download-state="building"' in page and "every 2s" in page
    assert logged_in_client.get(DATA).status_code == 302  # nothing to fetch yet


def test_the_built_file_is_private_linked_when_ready_and_only_its_owner_s(
    logged_in_client, user, bob, password, enqueued, django_capture_on_commit_callbacks
):
    ask(logged_in_client, django_capture_on_commit_callbacks)
    (_, (download_id,)) = enqueued.pop()
    call_command("build_data_download", download_id)  # what `make run` runs in its own process
    download = DataDownload.objects.get(pk=download_id)
    assert download.status == DataDownload.Status.READY and download.size > 0
    path = downloads.file_path(download)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(downloads.folder().stat().st_mode) == 0o700
    page = logged_in_client.get(reverse("account")).content.decode()
    assert 'data-download-state="ready"' in page and "data-download" in page
    response = logged_in_client.get(DATA)
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert json.loads(archive.read("profile.json"))["username"] == user.username
    # Another person gets no file of anyone's (they have none ready).
    other = Client()
    other.login(username=bob.username, password=password)
    assert other.get(DATA).status_code == 302


def test_a_new_download_replaces_the_older_file(
    logged_in_client, user, enqueued, django_capture_on_commit_callbacks
):
    for _ in range(2):
        ask(logged_in_client, django_capture_on_commit_callbacks)
        (_, (download_id,)) = enqueued.pop()
        downloads.do_build(download_id)
    assert DataDownload.objects.count() == 1
    assert len(list(downloads.folder().glob(f"{user.pk}-*"))) == 1


def test_a_download_counts_in_the_person_s_budget(
    logged_in_client, user, enqueued, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(budget, "PER_PERSON_ITEMS", 1)
    do_receive(
        user, envelope=played_envelope("house", seed=71, key="match-0071", upload_id="deal-0071")
    )
    answer = ask(logged_in_client, django_capture_on_commit_callbacks)
    assert answer.status_code == 302
    assert not DataDownload.objects.exists() and enqueued == []
    page = logged_in_client.get(reverse("account")).content.decode()
    assert "Busy" in page


def test_the_offline_uploads_are_in_the_download_and_gone_with_the_account(
    logged_in_client, user, password, enqueued, django_capture_on_commit_callbacks
):
    do_receive(
        user, envelope=played_envelope("house", seed=73, key="match-0073", upload_id="deal-0073")
    )
    ask(logged_in_client, django_capture_on_commit_callbacks)
    download_id = next(args[0] for name, args in enqueued if name.startswith("accounts."))
    downloads.do_build(download_id)
    response = logged_in_client.get(DATA)
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    [upload] = json.loads(archive.read("offline-uploads.json"))
    assert upload["id"] == "deal-0073" and upload["status"] == "checking"
    path = downloads.file_path(DataDownload.objects.get())

    services.do_delete_account(user, password=password)
    assert not OfflineUpload.objects.filter(owner=user).exists()
    assert not OfflineMatch.objects.filter(owner=user).exists()
    assert not DataDownload.objects.exists() and not path.exists()
