"""Rules the tests themselves keep, where breaking one makes other tests fail at random."""

import re
from pathlib import Path

TESTS = Path(__file__).parent

# asgiref's sync_to_async runs a test's sync work on one thread that outlives the test, and its
# database connection is never closed: that connection can still see the database as it was
# before the last test's flush (the last test's user still there, this test's not yet). channels'
# database_sync_to_async closes the thread's connection before and after each call, as it does
# for the consumers, so every call sees the database as it is.
PLAIN_SYNC_TO_ASYNC = re.compile(r"from asgiref\.sync import[^\n]*\bsync_to_async\b")


def test_async_tests_reach_the_database_as_the_consumers_do():
    offenders = [
        str(path.relative_to(TESTS))
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != Path(__file__).name and PLAIN_SYNC_TO_ASYNC.search(path.read_text())
    ]
    assert not offenders, f"use channels.db.database_sync_to_async in {offenders}"
