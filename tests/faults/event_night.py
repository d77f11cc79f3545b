"""A Setback night in the fault suite: two people (played from this process, through the
services, the moment it is their turn) and bots at one table, two rounds of one deal. The event
is started by the worker's sweeper at its time, and its worker is killed mid-round: the round's
bots stall until a worker is back, whose sweeper then wakes them, ends the round and makes the
next one. Everything about the night is read back from the database."""

import threading
from datetime import timedelta

from django.db import close_old_connections
from django.utils import timezone

from games.core import selectors, services, turns
from games.core.errors import GameError
from games.events import services as events
from games.events.models import Event, EventTable
from games.models import Match
from tests.faults import cluster, play


class People(threading.Thread):
    """The event's people: each plays their first legal move as soon as it is their turn."""

    def __init__(self, event_id: int, user_ids: set[int]):
        super().__init__(daemon=True, name="event-people")
        self.event_id = event_id
        self.user_ids = user_ids
        self.stopping = threading.Event()
        self.moves = 0

    def stop(self) -> None:
        self.stopping.set()

    def run(self) -> None:
        try:
            while not self.stopping.wait(0.1):  # a person's reaction time, not a wait
                for match_id in Match.objects.filter(
                    event_table__event_id=self.event_id, status=Match.Status.PLAYING
                ).values_list("pk", flat=True):
                    self._play(match_id)
        finally:
            close_old_connections()

    def _play(self, match_id: int) -> None:
        try:
            turn = turns.waiting_on(match_id)
            if turn is None:
                return
            if turn.kind == turns.WaitingFor.NEXT_DEAL:
                services.do_next_deal(match_id, version=turn.version)
            elif turn.kind == turns.WaitingFor.PERSON and turn.user_id in self.user_ids:
                match = Match.objects.get(pk=match_id)
                state = selectors.deal_state(selectors.current_deal(match))
                move = state.observation(turn.seat).legal_actions()[0]
                seat = match.seats.get(position=turn.seat)
                services.do_act(
                    match_id,
                    seat=turn.seat,
                    token=move,
                    version=turn.version,
                    actor=services.Actor(user=seat.user),
                )
                self.moves += 1
        except GameError:
            pass  # the table moved on under this move (a bot, a stand-in): the next look sees it
        except Exception:  # noqa: BLE001 - the database is being restarted by another fault
            close_old_connections()


def schedule() -> Event:
    people = [play.make_user(f"faults-night-{n}") for n in range(2)]
    now = timezone.now()
    event = events.do_schedule_event(
        people[0],
        name="Faults night",
        preset="house",
        movement="rotation",
        rounds=2,
        deals_per_round=1,
        minutes_per_round=10,
        bot_level="easy",
        starts_at=now + timedelta(seconds=2),
        now=now,
    )
    for person in people:
        events.do_check_in(event.pk, user=person, now=event.starts_at)
    return event


def status(event_id: int) -> str:
    return Event.objects.filter(pk=event_id).values_list("status", flat=True).get()


def wait_for(event_id: int, wanted: str, timeout: float) -> None:
    cluster.wait_until(lambda: status(event_id) == wanted, timeout, what=f"the event {wanted}")


def tables(event_id: int) -> list[EventTable]:
    return list(EventTable.objects.filter(event_id=event_id).order_by("round", "number"))
