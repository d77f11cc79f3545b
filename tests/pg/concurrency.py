"""Calls made at the same moment, each on a thread (and so a database connection) of its own."""

import threading

from django.db import connection


def in_parallel(*calls):
    """Run the calls at the same moment on threads of their own (each its own connection)."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait(timeout=10)
            results[i] = call()
        except Exception as error:  # noqa: BLE001 - the test looks at what each call did
            results[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results
