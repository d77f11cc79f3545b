"""The garbage collector's settings for the processes that serve the site: Daphne and the
Celery worker (`settle`, once their code is loaded)."""

import gc

# Under the paced load test each Daphne process ran a full collection every ten seconds or so,
# 120 to 340 ms with the interpreter lock held, and every screen it served waited: those pauses
# made most of move -> update's p95 (docs/journal/2026-12-03-server-cpu-per-move.md). So:
# - what the process loaded at start-up (modules, classes, URL patterns: about 130,000 objects)
#   lives as long as the process: frozen, a full collection no longer walks it;
# - the youngest generation is collected after 20,000 new objects, not Python's 700. A request
#   or a render leaves short-lived reference cycles (a busy Daphne about 8,000 objects a second),
#   nearly all of them garbage at the next young collection: collected less often, they lose
#   nothing, and far fewer objects reach the older generations, whose collections are the long
#   ones. A young collection then takes 10 to 50 ms every few seconds.
YOUNG_THRESHOLD = 20_000


def settle() -> None:
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
