"""What the core tells the features (and the task layer) when something happened, without
importing them: each app adds its functions in its `AppConfig.ready()`, as the coach adds its
marks to the replay (games/replay/marks.py).

The core calls a hook at the moment named; a hook's functions run in the order they were
registered (the order of INSTALLED_APPS). Whether a failure propagates is the caller's choice,
documented where it calls.
"""

import logging
from collections.abc import Awaitable, Callable

from games.core.events import Event

log = logging.getLogger(__name__)


class Hook:
    """A named list of functions called with the same arguments."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._functions: list[Callable] = []

    def register(self, function: Callable) -> Callable:
        """Add `function`; registering the same function twice is harmless."""
        if function not in self._functions:
            self._functions.append(function)
        return function

    def unregister(self, function: Callable) -> None:
        if function in self._functions:
            self._functions.remove(function)

    @property
    def functions(self) -> tuple[Callable, ...]:
        return tuple(self._functions)

    def __call__(self, *args, **kwargs) -> list:
        return [function(*args, **kwargs) for function in self._functions]

    def call_each(self, *args, **kwargs) -> None:
        """Call every function, each on its own: one that raises is logged, the rest still run."""
        for function in self._functions:
            try:
                function(*args, **kwargs)
            except Exception:
                log.exception("%s: %s failed", self.name, getattr(function, "__name__", function))

    def __repr__(self) -> str:
        return f"<Hook {self.name}: {len(self._functions)} function(s)>"


class EventHandlers:
    """What a consumer does with a feature's events: event class -> an async function called
    with (consumer, event). The consumer knows no feature; each registers its own."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._handlers: dict[str, Callable[..., Awaitable[None]]] = {}

    def register(self, event_class: type[Event], handler: Callable[..., Awaitable[None]]) -> None:
        self._handlers[event_class.type] = handler

    def handler_for(self, event_type: str) -> Callable[..., Awaitable[None]] | None:
        return self._handlers.get(event_type)

    def __repr__(self) -> str:
        return f"<EventHandlers {self.name}: {sorted(self._handlers)}>"


# After a change of a table commits, with (match_id, version, turn): wake the turn, let the
# coach prepare its advice. `turn` is what the table waits on (turns.Waiting), or None when the
# change did not work it out (then it is read). Each function runs on its own; a failure is logged (services.announce_change).
after_change = Hook("after_change")

# Inside the transaction that ends a deal, with (deal_row, result): the statistics count it
# unless its match is of one deal (games/stats), the daily deals keep a daily play's result
# (games/daily).
after_deal = Hook("after_deal")

# Inside the transaction that ends a match, with (match,): the ratings, for a match that counts
# and whose cards the site dealt (games/stats).
after_match = Hook("after_match")

# Someone's turn is waiting to be played, with (match_id, turn: turns.Waiting): the task
# layer enqueues the bot's move, the next deal, or a stand-in's timers (games/web/tasks.py).
turn_waiting = Hook("turn_waiting")

# A person's turn at a shared table has been still for a while, with (turn, match_id, still_for,
# grace); a function returns True if it woke the turn (games/tables/services.py: the stand-in).
person_turn_stalled = Hook("person_turn_stalled")

# A stand-in bot should play a person's turn after `countdown` seconds, with (match_id, version,
# reason, countdown): the task layer enqueues it (games/web/tasks.py).
stand_in_wanted = Hook("stand_in_wanted")

# The coach scored a player's decisions in a deal, with (deal_id, seat, accuracy 0..1).
review_scored = Hook("review_scored")

# Extra panels a table's page shows beside the cards, each function called with
# (match, seat, **context) and returning HTML (the coach's panel).
table_panels = Hook("table_panels")

# Extra sections of a player's page, each function called with (player, viewer) and returning
# HTML, shown only where the page shows the player's record (their history is public, or it is
# the viewer's own): the daily deals' last 30 days and streak (games/daily).
player_panels = Hook("player_panels")

# Labels for matches in a list (History), called with (match_ids) and returning {match_id: label}
# for the matches a feature owns: "Daily 2026-12-03 · deal 2" (games/daily).
match_labels = Hook("match_labels")

# Tasks will run in this process (no broker; games/core/dispatch.py), with (): start the sweeper here.
in_process_tasks_started = Hook("in_process_tasks_started")

# A seated player's table socket opened, with (match_id,): work the table may lack (the coach's
# advice for the position on screen) is asked for.
table_socket_opened = Hook("table_socket_opened")

# Events of the features that a table's socket hears (the coach's "advice ready"), with the
# consumer and the event: games/web/consumers.py dispatches them here (docs/architecture.md says
# how a feature adds one).
table_socket_events = EventHandlers("table_socket_events")

# Whether `user` may know the shared table `match` although they hold neither its invite nor a
# seat, each function called with (match, user) and returning True or False: a club's members
# know their club's tables (games/social). Asked only when every other way in has failed.
table_known_to = Hook("table_known_to")

# Why `user` may not take a seat at the forming table `match`, each function called with
# (match, user) and returning a sentence for the person, or None: a club's table seats its
# members only (games/social).
seat_refusal = Hook("seat_refusal")

# What a player's page offers its viewer besides mute and block, each function called with
# (person, viewer, request) and returning HTML, shown whatever the person's privacy: "Add friend".
player_actions = Hook("player_actions")

# Expensive work waiting or running (games/core/budget.py), each function called with (owner_id: a
# person's id, or None for everyone's) and returning the `budget.Work` items of one kind: the
# coach's reviews, face-up steps, offline checks, data downloads.
work_in_flight = Hook("work_in_flight")

# Extra sections of the lobby, each function called with (user) and returning HTML: the open
# tables of the person's clubs (games/social).
lobby_panels = Hook("lobby_panels")

# A public table's listing changed (created, a seat taken or freed, or started), after the
# transaction commits, with (match_id,): the lobby's screens are told (games/lobby).
listing_changed = Hook("listing_changed")

# The sweeper's clock ticked (every SWEEP_SECONDS, in a worker or the embedded web process),
# with (): features with due times of their own act on the overdue ones. Each function runs on
# its own (`call_each`).
sweeping = Hook("sweeping")

# The coach's marks on a seat's decisions in a finished deal, each function called with
# (deal_row, seat) and returning the marks (games.core.marks.Mark) it has stored: never computed
# when asked (games/core/marks.py says when the replay asks).
replay_marks = Hook("replay_marks")

# The coach's stored first choice at one step, each function called with (deal_row, step, seat)
# and returning an engine token or None: the face-up panel's "why they differ".
coach_choices = Hook("coach_choices")
