"""Celery tasks: thin. They read, decide, and call a service; the service does the writing."""

import os
import socket
from dataclasses import asdict, dataclass
from typing import TypedDict

from asgiref.sync import async_to_sync
from celery import shared_task
from celery.signals import worker_ready
from channels.layers import get_channel_layer
from django.db import connection

from games.core import dispatch, events, searches, services, turns
from games.core.dispatch import TRANSIENT
from games.core.errors import GameError, NotFound, NotPlaying, NotYourTurn, StaleMove
from games.engine import bots, claim
from games.tables import services as tables
from games.web.sweeper import start_watchdog


class Retry(TypedDict):
    """Celery's retry options of a game task (RETRY)."""

    autoretry_for: tuple[type[BaseException], ...]
    retry_backoff: int
    retry_backoff_max: int
    retry_jitter: bool
    max_retries: int
    ignore_result: bool


# A game task hit by a transient error (dispatch.TRANSIENT) tries again with a growing, jittered
# delay (about 1, 2, 4, 8 s, at most 8 s: far below the broker's visibility timeout). Retrying is
# safe: the move names its version. If every retry fails (or the broker is down so the retry
# cannot be sent), the sweeper finds the turn again.
RETRY: Retry = {
    "autoretry_for": TRANSIENT,
    "retry_backoff": 1,
    "retry_backoff_max": 8,
    "retry_jitter": True,
    "max_retries": 6,
    "ignore_result": True,
}


@worker_ready.connect
def _start_sweeper(**_):
    """Every worker sweeps for lost turns (a dead worker's, a lost message's) on its own."""
    start_watchdog()


@dataclass(frozen=True)
class WorkerReport(events.Event, type="worker.report"):
    """Where a task ran (report_worker's answer over the channel layer)."""

    pid: int
    host: str
    database_vendor: str
    database_name: str


@shared_task
def report_worker(reply_channel: str | None = None) -> dict:
    """Say where this task ran: the process, the database, and (optionally) answer over the
    channel layer. CI's second run uses it to prove that the worker, PostgreSQL and Redis are real.
    """
    report = WorkerReport(
        pid=os.getpid(),
        host=socket.gethostname(),
        database_vendor=connection.vendor,
        database_name=connection.settings_dict["NAME"],
    )
    if reply_channel:
        layer = get_channel_layer()
        assert layer is not None  # the settings always name one (CHANNEL_LAYERS)
        async_to_sync(layer.send)(reply_channel, report.message())
    return asdict(report)


# A bot's move: read the seat's observation, decide, and apply it through the one service.
# acks_late + reject_on_worker_lost: a worker that dies mid-move leaves the task on the queue
# for another worker; the version check makes a repeated task harmless.
@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=20, time_limit=30, **RETRY)
def play_bot_turn(match_id: int, version: int, seat: str = "", level: str = "") -> str:
    turn = turns.bot_turn(match_id, version, seat=seat, level=level)
    if turn is None:
        return "stale"
    return _play(match_id, version, turn)


def _play(match_id: int, version: int, turn: turns.BotTurn) -> str:
    """The bot's choice for `turn`, made through the one service path; "stale" when the table
    moved on (a person, another task) or went away while the bot was thinking."""
    if claim.claim_refusal(turn.observation) is None:
        # Every remaining trick is surely the bot's: it claims them, as a person may.
        action = services.CLAIM
    else:
        action = searches.compute(bots.choose, turn.observation, turn.level, seed=turn.seed)
    try:
        actor = services.Actor.bot(turn.level)
        services.through_restarts(
            lambda: services.do_act(
                match_id, seat=turn.seat, token=action, version=version, actor=actor
            )
        )
    except (StaleMove, NotYourTurn, NotFound, NotPlaying):
        return "stale"
    return action


@shared_task(acks_late=True, reject_on_worker_lost=True, time_limit=30, **RETRY)
def start_next_deal(match_id: int, version: int) -> str:
    try:
        services.through_restarts(lambda: services.do_next_deal(match_id, version=version))
    except GameError:
        return "stale"
    return "dealt"


# A person's turn at a shared table, played by a bot because they are away or idle. The Action
# row names no user and the bot's level: a stand-in. The version check makes a late or repeated
# task harmless, and the person takes the seat back by acting on their next turn.
@shared_task(acks_late=True, reject_on_worker_lost=True, soft_time_limit=20, time_limit=30, **RETRY)
def stand_in_turn(match_id: int, version: int, reason: str = "idle") -> str:
    if not tables.stand_in_due(match_id, version, reason):
        return "stale"
    turn = turns.bot_turn(match_id, version, stand_in_level=tables.STAND_IN_LEVEL)
    if turn is None:
        return "stale"
    return _play(match_id, version, turn)


# --- Waking turns: the hooks the core and the tables call (registered in games/apps.py) ---------


def wake_turn(match_id: int, turn: turns.Waiting) -> None:
    """Enqueue what plays the waiting turn (`hooks.turn_waiting`)."""
    if turn.kind == turns.WaitingFor.PERSON:
        tables.wake_stand_in(turn, match_id)  # a shared table: a bot plays the turn if they do not
    elif turn.kind == turns.WaitingFor.BOT:
        dispatch.enqueue(
            play_bot_turn,
            match_id,
            turn.version,
            turn.seat,
            turn.bot_level,
            countdown=turn.pace_seconds,
        )
    elif turn.kind == turns.WaitingFor.NEXT_DEAL and turn.automatic:
        dispatch.enqueue(start_next_deal, match_id, turn.version, countdown=turn.pace_seconds)


def wake_if_waiting(match_id: int, version: int, turn: turns.Waiting | None = None) -> None:
    """After a change (`hooks.after_change`): wake the turn it left waiting, if still current.
    A turn the change worked out under its lock is woken as it is: if the table has moved on
    since, the task finds its version stale and does nothing."""
    if turn is None:
        turn = turns.waiting_on(match_id)
    if turn is not None and turn.version == version:
        wake_turn(match_id, turn)


def enqueue_stand_in(match_id: int, version: int, reason: str, countdown: float) -> None:
    """A stand-in's turn, after `countdown` seconds (`hooks.stand_in_wanted`)."""
    dispatch.enqueue(stand_in_turn, match_id, version, reason, countdown=countdown)
