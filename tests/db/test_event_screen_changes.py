"""Which changes an event page's socket sends again in full (games/events/consumers.py): a
deal's end at another table leaves the viewer's own part as it was, one at their own table, a
new round or a change to anyone's part renders it again; changes heard while a render is under
way are merged into one (issue 49: a night of 200 people)."""

from games.events.consumers import MyPart, _Due
from games.events.realtime import EventChanged


def test_a_deal_at_another_table_leaves_the_viewers_own_part_as_it_was():
    mine = MyPart("<section>table 3</section>", "<section>table 3</section>", match_id=30)
    elsewhere = _Due.of(EventChanged(event_id=1, change=5, match_id=31))
    assert not elsewhere.changes(mine)
    assert _Due.of(EventChanged(event_id=1, change=5, match_id=30)).changes(mine)
    assert _Due.of(EventChanged(event_id=1, change=5)).changes(mine)  # a check-in, the end
    assert _Due.of(EventChanged(event_id=1, change=5, moved=True, match_id=31)).changes(mine)
    assert elsewhere.changes(None)  # nothing sent yet
    assert elsewhere.changes(MyPart("", "", match_id=None)) is False  # not seated this round


def test_changes_heard_meanwhile_are_sent_as_one():
    deals = _Due.of(EventChanged(event_id=1, change=5, match_id=31)).and_then(
        _Due.of(EventChanged(event_id=1, change=9, match_id=30))
    )
    assert (deals.change, deals.moved, deals.tables) == (9, False, frozenset({30, 31}))
    assert deals.changes(MyPart("", "", match_id=30))
    moved = deals.and_then(_Due.of(EventChanged(event_id=1, change=7, moved=True)))
    assert (moved.change, moved.moved, moved.tables) == (9, True, None)
