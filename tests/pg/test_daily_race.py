"""The daily deals at midnight: several processes making the day's set at the same moment store
it once, and two tabs starting the same deal at once get one play. Truly parallel calls, each
on its own connection, on PostgreSQL where the unique constraints really race."""

import pytest

from games.daily import services
from games.daily.models import DailyDeal, DailyPlay, DailySet
from games.models import Match

from .concurrency import in_parallel

pytestmark = [pytest.mark.pg, pytest.mark.real_services, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("round_", range(3))
def test_processes_racing_at_midnight_make_one_set(round_):
    day = services.today()
    results = in_parallel(*[lambda: services.ensure_day(day)] * 6)
    assert all(isinstance(r, DailySet) for r in results), results
    assert {r.pk for r in results} == {DailySet.objects.get(day=day).pk}
    assert DailyDeal.objects.count() == 8
    assert sorted(DailyDeal.objects.values_list("number", flat=True)) == list(range(1, 9))


@pytest.mark.parametrize("round_", range(3))
def test_two_tabs_starting_a_deal_at_once_get_one_play(make_user, round_):
    alice = make_user(f"alice{round_}")
    day = services.today()
    services.ensure_day(day)
    results = in_parallel(*[lambda: services.do_play(alice, day=day, number=1)] * 4)
    assert all(isinstance(r, Match) for r in results), results
    assert len({r.pk for r in results}) == 1
    assert DailyPlay.objects.filter(user=alice).count() == 1
    assert Match.objects.filter(host=alice).count() == 1  # the losers' matches rolled back
