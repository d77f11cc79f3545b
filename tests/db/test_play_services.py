"""One way to change a game: the services, against the database."""

import pytest

from games import engine
from games.core import dispatch, presenters, selectors, services, turns
from games.core.turns import WaitingFor
from games.engine import deal_to_record
from games.models import Action, Deal, Match
from games.web import tasks

from .play import opened_by, play_until

pytestmark = pytest.mark.django_db


@pytest.fixture
def match(user):
    """A match whose first auction the player opens: their call comes before any bot's."""
    match = services.do_start_match(user, rules_spec="house", bot_level="easy", rng=opened_by("S"))
    assert turns.waiting_on(match.pk).seat == "S"
    return match


def state_of(match):
    match.refresh_from_db()
    return selectors.deal_state(selectors.current_deal(match))


def test_a_new_match_seats_the_player_at_south_against_three_bots(match, user):
    seats = {seat.position: seat for seat in match.seats.all()}
    assert seats["S"].user == user
    assert all(seats[p].bot_level == "easy" and seats[p].user is None for p in "NEW")
    deal = match.deals.get()
    assert deal.number == 1
    assert all(len(cards) == 6 for cards in deal.hands.values())
    assert match.version == 0 and match.status == Match.Status.PLAYING


def test_a_legal_move_is_stored_as_a_row_and_bumps_the_version(match, user):
    version = match.version
    state = state_of(match)
    token = state.legal_actions()[0]
    outcome = services.do_act(
        match.pk, seat="S", token=token, version=version, actor=services.Actor(user=user)
    )
    assert outcome.applied
    last = Action.objects.filter(deal__match=match).order_by("-id").first()
    assert (last.seat, last.token, last.user) == ("S", token, user)
    assert outcome.match.version == version + 1


def snapshot(match):
    match.refresh_from_db()
    return (
        match.version,
        Action.objects.filter(deal__match=match).count(),
        Deal.objects.filter(match=match).count(),
    )


def test_an_illegal_move_is_refused_with_a_reason_and_changes_nothing(match, user):
    state = state_of(match)
    before = snapshot(match)
    illegal = next(t for t in ["1", "smudge", "pitch:AS", "XX"] if t not in state.legal_actions())
    with pytest.raises(services.IllegalMove) as refused:
        services.do_act(
            match.pk,
            seat="S",
            token=illegal,
            version=match.version,
            actor=services.Actor(user=user),
        )
    assert str(refused.value)
    assert snapshot(match) == before


def test_a_move_out_of_turn_is_refused(match, user):
    state = state_of(match)
    other = next(s for s in "NEW" if s != state.to_act)
    before = snapshot(match)
    with pytest.raises(services.NotYourTurn, match="turn"):
        services.do_act(
            match.pk,
            seat=other,
            token="pass",
            version=match.version,
            actor=services.Actor(user=user),
        )
    assert snapshot(match) == before


def test_a_stale_move_is_refused_and_a_repeated_one_is_recognised(match, user):
    state = state_of(match)
    token = state.legal_actions()[0]
    version = match.version
    services.do_act(
        match.pk, seat="S", token=token, version=version, actor=services.Actor(user=user)
    )
    before = snapshot(match)
    repeat = services.do_act(
        match.pk, seat="S", token=token, version=version, actor=services.Actor(user=user)
    )
    assert not repeat.applied
    assert snapshot(match) == before
    with pytest.raises(services.StaleMove):
        services.do_act(
            match.pk,
            seat="S",
            token="some-other-move",
            version=version,
            actor=services.Actor(user=user),
        )
    with pytest.raises(services.StaleMove):
        services.do_act(
            match.pk, seat="S", token=token, version=version - 3, actor=services.Actor(user=user)
        )
    assert snapshot(match) == before


def test_unknown_match_is_not_found(user):
    with pytest.raises(services.NotFound):
        services.do_act(999_999, seat="S", token="pass", version=0, actor=services.Actor(user=user))


def rebuilt_record(deal_row):
    state = selectors.deal_state(deal_row)
    return deal_to_record(state)


@pytest.mark.parametrize(
    "rules",
    [
        "house",
        "classic",
        "auction",
        "family",
        {"preset": "house", "six_players": True},
        {"preset": "classic", "draw": True, "low_to": "holder"},
        {"preset": "classic", "pitch_to_bid": True},
        {"preset": "family", "players": 3, "no_trump_first_trick": True},
    ],
)
def test_whole_matches_run_to_their_end_and_every_deal_rebuilds_from_its_rows(user, rules):
    match = services.do_start_match(user, rules_spec=rules, bot_level="easy")
    play_until(match)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.winner in engine.Rules.from_spec(rules).sides
    standing = engine.MatchState(engine.Rules.from_spec(rules), match.first_dealer)
    for deal_row in match.deals.order_by("number"):
        record = rebuilt_record(deal_row)
        # The record rebuilt from the rows is a legal deal that scores as stored.
        again = engine.deal_from_record(record)
        assert deal_to_record(again) == record
        assert again.result().to_json() == deal_row.result
        assert len(record["plays"]) in (0, len(engine.Rules.from_spec(rules).seats) * 6)
        standing.add(again.result())
    assert standing.over and standing.winner == match.winner
    assert standing.totals == match.totals


def test_play_again_against_bots_keeps_the_rules_seats_and_levels_once_the_match_is_over(
    user, make_user
):
    bob = make_user("bob")
    match = services.do_start_match(user, rules_spec="classic", bot_level="medium")
    with pytest.raises(services.GameError, match="not over yet"):
        services.do_rematch(match.pk, host=user)
    with pytest.raises(services.NotFound):  # as for a match that does not exist
        services.do_rematch(match.pk, host=bob)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)

    again = services.do_rematch(match.pk, host=user)
    assert services.do_rematch(match.pk, host=user) == again  # a second tab finds the same one
    assert again.rematch_of_id == match.pk and again.status == Match.Status.PLAYING
    assert again.rules == match.rules and again.host == user
    seats = {s.position: (s.user_id, s.bot_level) for s in again.seats.all()}
    assert seats == {s.position: (s.user_id, s.bot_level) for s in match.seats.all()}
    assert again.deals.get().number == 1


def test_a_bot_task_naming_a_seat_that_is_not_to_act_changes_nothing(match, user):
    """The wake-up names the bot's seat and level so the task need not read them again; a task
    that names another seat (a forged or mixed-up message) is stale, never a move for it."""
    match = play_until(match, stop=lambda m: turns.waiting_on(m.pk).kind == WaitingFor.BOT)
    turn = turns.waiting_on(match.pk)
    before = snapshot(match)
    for seat in ("S", *(s for s in ("N", "E", "W") if s != turn.seat)):
        assert tasks.play_bot_turn(match.pk, turn.version, seat, "hard") == "stale"
    assert snapshot(match) == before
    assert tasks.play_bot_turn(match.pk, turn.version, turn.seat, turn.bot_level) != "stale"
    assert snapshot(match) != before


def test_a_move_wakes_the_next_bot_by_its_seat_and_level(
    match, user, monkeypatch, django_capture_on_commit_callbacks
):
    """What the table waits on after a move is worked out under the move's lock and handed to
    the wake-up: the task enqueued names the seat to act and its bot's level at the new version."""
    asked = []
    monkeypatch.setattr(dispatch, "enqueue", lambda task, *args, **kw: asked.append(args))
    checked = 0
    while checked < 5:
        turn = turns.waiting_on(match.pk)
        assert turn is not None, "the match ended before five bots were woken"
        asked.clear()
        with django_capture_on_commit_callbacks(execute=True):
            if turn.kind == WaitingFor.BOT:
                tasks.play_bot_turn(match.pk, turn.version, turn.seat, turn.bot_level)
            elif turn.kind == WaitingFor.PERSON:
                token = state_of(match).legal_actions()[0]
                services.do_act(
                    match.pk,
                    seat=turn.seat,
                    token=token,
                    version=turn.version,
                    actor=services.Actor(user=user),
                )
            else:
                services.do_next_deal(match.pk, version=turn.version)
        after = turns.waiting_on(match.pk)
        if after is not None and after.kind == WaitingFor.BOT:
            assert asked == [(match.pk, after.version, after.seat, after.bot_level)]
            checked += 1


def test_a_page_read_while_a_bot_moves_names_the_version_of_the_position_it_shows(match, user):
    """The table page reads the match (who may look), then renders: a bot that moves in
    between must not leave the page naming the old version beside the new position, or the
    person's move made on it is refused as stale ("The table moved on")."""
    match = play_until(match, stop=lambda m: turns.waiting_on(m.pk).kind == WaitingFor.BOT)
    read_by_the_page = Match.objects.get(pk=match.pk)
    while (turn := turns.waiting_on(match.pk)).kind == WaitingFor.BOT:  # the bots move meanwhile
        tasks.play_bot_turn(match.pk, turn.version, turn.seat, turn.bot_level)
    view = presenters.table_view(read_by_the_page, "S")
    assert (view.version, view.step) == (turn.version, selectors.current_deal(match).steps)
    if view.my_turn:
        token = state_of(match).legal_actions()[0]
        assert services.do_act(
            match.pk, seat="S", token=token, version=view.version, actor=services.Actor(user=user)
        ).applied
