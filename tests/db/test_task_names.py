"""A service enqueues its own app's task by name (dispatch.task_named), from any thread of a
web process, before anything imported the tasks module. (Looked up in Celery's registry, which
its autodiscovery fills once on the first thread that asks, a request thread found the lobby's
task missing during the soak: a race this test cannot force, and the reason for the lookup by
module.)"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TASKS = [
    "games.lobby.tasks.pairing_due",
    "games.coach.tasks.review_deal",
    "games.daily.tasks.compute_par",
    "games.replay.tasks.analyse_faceup",
    "games.offline.tasks.check_offline_deal",
    "accounts.tasks.build_data_download",
    "accounts.tasks.send_mail",
]
PROGRAM = """
import sys, threading, django
django.setup()
from games.core import dispatch
found = {}
def look():
    for name in sys.argv[1:]:
        found[name] = dispatch.task_named(name).name
worker = threading.Thread(target=look)
worker.start()
worker.join()
print(repr(found))
"""


def test_every_task_enqueued_by_name_is_found_from_a_fresh_thread_of_a_new_process():
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *TASKS],
        cwd=ROOT,
        env={"DJANGO_SETTINGS_MODULE": "setback_site.settings", "SECRET_KEY": "x", "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert eval(done.stdout) == {name: name for name in TASKS}  # noqa: S307 - our own repr
