"""Who may open each page or post of friends, notifications and clubs (games/social): one
matrix over every URL of the app, as a visitor logged out, a stranger, a member, an admin and
the owner of an invite-only club.

- logged out: to the log-in page, every URL;
- a stranger: an invite-only club does not exist for them (404, as for a number no club has);
- a member: the club's pages and tables, its games; not its admins' posts (403);
- an admin: invitations, requests, removing members; not the owner's posts (403);
- the owner: everything.
"""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import get_resolver, reverse

from games.models import Match
from games.social import services
from games.social.models import ClubRequest
from games.tables import services as tables
from tests.db.play import play_until

pytestmark = pytest.mark.django_db

ROLES = ["stranger", "member", "admin", "owner"]
OK, GONE, NO = "ok", 404, 403

# (URL name, method, post data, what each of ROLES gets). "ok": a 200 page, or a redirect back
# after a post that was done.
CLUB_URLS = [
    ("social:club", "GET", {}, [GONE, OK, OK, OK]),
    ("social:invite_to_club", "POST", {"name": "erin"}, [GONE, NO, OK, OK]),
    ("social:ask_to_join", "POST", {}, [GONE, 400, 400, 400]),
    ("social:answer_invite", "POST", {"accept": "1"}, [GONE, GONE, GONE, GONE]),
    ("social:answer_request", "POST", {"name": "frank", "accept": "1"}, [GONE, NO, OK, OK]),
    ("social:leave_club", "POST", {}, [GONE, OK, OK, 400]),
    ("social:remove_member", "POST", {"name": "carol"}, [GONE, NO, OK, OK]),
    ("social:remove_member", "POST", {"name": "bob"}, [GONE, NO, NO, OK]),
    ("social:lift_ban", "POST", {"name": "erin"}, [GONE, NO, OK, OK]),
    ("social:set_role", "POST", {"name": "carol", "role": "admin"}, [GONE, NO, NO, OK]),
    ("social:hand_over", "POST", {"name": "carol"}, [GONE, NO, NO, OK]),
    ("social:delete_club", "POST", {}, [GONE, NO, NO, OK]),
    ("social:new_club_table", "POST", {"preset": "house"}, [GONE, OK, OK, OK]),
]
GAME_URLS = [("social:club_game", [GONE, OK, OK, OK]), ("social:club_step", [GONE, OK, OK, OK])]
# Every one's own pages: any signed-in person; nobody else's can be named.
OWN_URLS = [
    ("social:friends", "GET", {}),
    ("social:ask_friend", "POST", {"name": "carol"}),
    ("social:answer_friend", "POST", {"name": "carol", "accept": "1"}),
    ("social:remove_friend", "POST", {"name": "carol"}),
    ("social:notifications", "GET", {}),
    ("social:mark_read", "POST", {}),
    ("social:mail_choices", "POST", {"kind": "table_invite"}),
    ("social:clubs", "GET", {}),
    ("social:new_club", "POST", {"name": "A new club"}),
]


@pytest.fixture
def club_world(db):
    make = get_user_model().objects.create_user
    people = {n: make(n, password="a-long-password-1") for n in ("alice", "bob", "carol", "dave")}
    make("erin")
    frank = make("frank")
    club = services.do_create_club(people["alice"], name="Closed Club", public=False)
    for name in ("bob", "carol"):
        services.do_invite_to_club(people["alice"], club_id=club.pk, name=name)
        services.do_answer_club_invite(people[name], club_id=club.pk, accept=True)
    services.do_set_role(people["alice"], club_id=club.pk, name="bob", role="admin")
    ClubRequest.objects.create(club=club, user=frank, kind=ClubRequest.Kind.ASK)
    roles = {"owner": "alice", "admin": "bob", "member": "carol", "stranger": "dave"}
    return club, {role: people[name] for role, name in roles.items()}


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def outcome(response) -> object:
    if response.status_code in (200, 302):
        return OK
    return response.status_code


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("name", "method", "data", "expected"), CLUB_URLS)
def test_club_urls(club_world, role, name, method, data, expected):
    club, people = club_world
    client = client_for(people[role])
    url = reverse(name, args=[club.pk])
    response = client.get(url) if method == "GET" else client.post(url, data)
    assert outcome(response) == expected[ROLES.index(role)], response.content[:300]
    # A club unknown to the stranger is worded as a number no club has.
    if role == "stranger":
        other = client.get(url) if method == "GET" else client.post(url, data)
        none = client.get(reverse(name, args=[club.pk + 1000])) if method == "GET" else None
        if none is not None:
            assert none.status_code == other.status_code == 404


@pytest.fixture
def club_game(club_world):
    club, people = club_world
    match = services.do_create_club_table(people["owner"], club_id=club.pk, rules_spec="house")
    tables.do_sit(match.pk, user=people["member"], position="W")
    tables.do_fill_with_bots(match.pk, host=people["owner"], level="easy")
    tables.do_start_table(match.pk, host=people["owner"])
    play_until(match)
    return club, people, Match.objects.get(pk=match.pk)


def test_club_replays(club_game):
    """One match played for every role and URL: playing it is most of the cost."""
    club, people, match = club_game
    for name, expected in GAME_URLS:
        args = [club.pk, match.pk] + ([1, 0] if name == "social:club_step" else [])
        for role in ROLES:
            response = client_for(people[role]).get(reverse(name, args=args))
            assert outcome(response) == expected[ROLES.index(role)], (name, role)
    # A private player's game is not replayed to the members.
    people["member"].history_public = False
    people["member"].save()
    for name, extra in (("social:club_game", []), ("social:club_step", [1, 0])):
        response = client_for(people["admin"]).get(reverse(name, args=[club.pk, match.pk, *extra]))
        assert response.status_code == 404


@pytest.mark.parametrize(("name", "method", "data"), OWN_URLS)
def test_own_urls_for_anyone_signed_in(club_world, name, method, data):
    _, people = club_world
    client = client_for(people["stranger"])
    url = reverse(name)
    response = client.get(url) if method == "GET" else client.post(url, data)
    assert response.status_code in (200, 302, 404), response.status_code


def test_every_url_of_the_app_is_in_the_matrix_and_logged_out_goes_to_log_in(club_world):
    club, people = club_world
    patterns = get_resolver("games.social.urls").url_patterns
    named = {f"social:{p.name}" for p in patterns}
    covered = {n for n, *_ in CLUB_URLS} | {n for n, _ in GAME_URLS} | {n for n, *_ in OWN_URLS}
    covered |= {"social:join_club", "social:open", "social:invite_to_table"}
    assert named == covered
    anonymous = Client()
    for pattern in patterns:
        args = {
            "club_id": club.pk,
            "match_id": 1,
            "number": 1,
            "step": 0,
            "token": club.invite_token,
            "notification_id": 1,
        }
        kwargs = {
            k: v
            for k, v in args.items()
            if f"<int:{k}>" in str(pattern.pattern) or f"<str:{k}>" in str(pattern.pattern)
        }
        url = reverse(f"social:{pattern.name}", kwargs=kwargs)
        for response in (anonymous.get(url), anonymous.post(url)):
            assert response.status_code == 302 and "/accounts/login/" in response["Location"], url


def test_join_link_and_notifications_are_the_persons_own(club_world):
    club, people = club_world
    stranger = client_for(people["stranger"])
    assert stranger.get(reverse("social:join_club", args=[club.invite_token])).status_code == 200
    assert stranger.get(reverse("social:join_club", args=["wrong"])).status_code == 404
    note = services.notify(people["owner"], "club_event", "hello", "/clubs/")
    assert stranger.post(reverse("social:open", args=[note.pk])).status_code == 404
    assert (
        client_for(people["owner"]).post(reverse("social:open", args=[note.pk])).status_code == 302
    )
    stranger.post(reverse("social:join_club", args=[club.invite_token]))
    assert stranger.get(reverse("social:club", args=[club.pk])).status_code == 200


def test_inviting_to_a_table_is_for_the_tables_people_and_their_friends(club_world):
    _, people = club_world
    match = tables.do_create_table(people["owner"], rules_spec="house")
    url = reverse("social:invite_to_table", args=[match.pk])
    # Not a friend: refused; a stranger to the table: no such table.
    assert client_for(people["owner"]).post(url, {"name": "carol"}).status_code == 403
    services.do_ask_friend(people["stranger"], name="carol")
    services.do_answer_friend(people["member"], name="dave", accept=True)
    assert client_for(people["stranger"]).post(url, {"name": "carol"}).status_code == 404
    services.do_ask_friend(people["owner"], name="carol")
    services.do_answer_friend(people["member"], name="alice", accept=True)
    assert client_for(people["owner"]).post(url, {"name": "carol"}).status_code == 302
