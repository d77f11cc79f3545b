"""Friends, notifications and clubs: thin. Parse, check who asks (a selector), call one
service, answer. A refusal (GameError) is a page saying why, with its status."""

from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from games.core import pages
from games.core.errors import NotFound
from games.core.forms import PRESETS
from games.core.http import HtmxRequest, SignedInRequest
from games.core.limits import limited
from games.replay.views import face_up_match, face_up_step

from . import selectors, services
from .models import Membership, Notification

refusals_as_pages = pages.refusals_as_pages("social/refused.html")


def _yes(request, field: str) -> bool:
    return request.POST.get(field, "") in ("1", "yes", "on", "true")


def _done(request, text: str, to: str, *args) -> HttpResponse:
    if text:
        messages.success(request, text)
    return redirect(to, *args)


# --- Friends ----------------------------------------------------------------------------------


@login_required
def friends(request: SignedInRequest) -> HttpResponse:
    incoming, outgoing = selectors.pending_requests(request.user.pk)
    return render(
        request,
        "social/friends.html",
        {
            "friends": selectors.friend_rows(request.user.pk),
            "incoming": incoming,
            "outgoing": outgoing,
        },
    )


@login_required
@require_POST
@limited("friend_request")
@refusals_as_pages
def ask_friend(request: HttpRequest) -> HttpResponse:
    row = services.do_ask_friend(request.user, name=request.POST.get("name", ""))
    text = "You are now friends." if row.accepted else "Your request is on its way."
    return _done(request, text, "social:friends")


@login_required
@require_POST
@refusals_as_pages
def answer_friend(request: HttpRequest) -> HttpResponse:
    accept = _yes(request, "accept")
    services.do_answer_friend(request.user, name=request.POST.get("name", ""), accept=accept)
    return _done(request, "You are now friends." if accept else "", "social:friends")


@login_required
@require_POST
@refusals_as_pages
def remove_friend(request: HttpRequest) -> HttpResponse:
    services.do_remove_friend(request.user, name=request.POST.get("name", ""))
    return _done(request, "", "social:friends")


# --- Notifications ----------------------------------------------------------------------------


@login_required
def notifications(request: SignedInRequest) -> HttpResponse:
    return render(
        request,
        "social/notifications.html",
        {
            "notifications": selectors.notifications(request.user.pk),
            "kinds": Notification.Kind.choices,
            "mailed": selectors.mail_choices(request.user.pk),
        },
    )


@login_required
@require_POST
def mark_read(request: HttpRequest) -> HttpResponse:
    raw = request.POST.get("id", "")
    services.do_mark_read(request.user, notification_id=int(raw) if raw.isdigit() else None)
    return redirect("social:notifications")


@login_required
@require_POST
def open_notification(request: SignedInRequest, notification_id: int) -> HttpResponse:
    """ "Join" (or "Answer") in the list: marked read, then where it leads."""
    note = Notification.objects.filter(pk=notification_id, user=request.user).first()
    if note is None:
        raise Http404("No such notification.")
    services.do_mark_read(request.user, notification_id=note.pk)
    return redirect(note.url or "social:notifications")


@login_required
@require_POST
def mail_choices(request: HttpRequest) -> HttpResponse:
    services.do_set_mail_choices(request.user, kinds=request.POST.getlist("kind"))
    return _done(request, "Your e-mail choices are saved.", "social:notifications")


# --- Tables -----------------------------------------------------------------------------------


@login_required
@require_POST
@limited("invite")
@refusals_as_pages
def invite_to_table(request: HttpRequest, match_id: int) -> HttpResponse:
    name = request.POST.get("name", "")
    services.do_invite_to_table(request.user, match_id=match_id, name=name)
    return _done(request, f"{name} is invited.", "table", match_id)


# --- Clubs ------------------------------------------------------------------------------------


@login_required
def clubs(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "social/clubs.html",
        {
            "mine": selectors.my_clubs(request.user),
            "invitations": selectors.invitations(request.user),
            "public": selectors.public_clubs(),
        },
    )


@login_required
@require_POST
@refusals_as_pages
def new_club(request: HttpRequest) -> HttpResponse:
    club = services.do_create_club(
        request.user,
        name=request.POST.get("name", ""),
        description=request.POST.get("description", ""),
        public=request.POST.get("access", "public") == "public",
    )
    return redirect("social:club", club.pk)


def _visible(request, club_id: int):
    found = selectors.visible_club(club_id, request.user)
    if found is None:
        raise NotFound("There is no such club.")
    return found


@login_required
@refusals_as_pages
def club(request: HttpRequest, club_id: int) -> HttpResponse:
    club, member = _visible(request, club_id)
    context = {"club": club, "member": member, "presets": PRESETS}
    if member is not None:
        people = selectors.members(club)
        # The viewer is here, whether or not this page's own socket has opened yet.
        online = selectors.online_ids(m.user_id for m in people) | {request.user.pk}
        context.update(
            members=people,
            online=online,
            games=selectors.recent_games(club),
            board=selectors.leaderboard(club),
            tables=selectors.open_club_tables([club.pk]),
            is_admin=member.role in (Membership.Role.OWNER, Membership.Role.ADMIN),
            is_owner=member.role == Membership.Role.OWNER,
        )
        if context["is_admin"]:
            context["asking"] = selectors.asking(club)
            context["invite_url"] = request.build_absolute_uri(
                reverse("social:join_club", args=[club.invite_token])
            )
    else:
        context["invited"] = club.requests.filter(user_id=request.user.pk, kind="invite").exists()
        context["asked"] = club.requests.filter(user_id=request.user.pk, kind="ask").exists()
    return render(request, "social/club.html", context)


@login_required
@refusals_as_pages
def join_club(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation link: a GET shows the club and a button; the POST joins."""
    club = selectors.club_by_token(token)
    if club is None:
        raise NotFound("This invitation link leads nowhere; ask for a new one.")
    if request.method == "POST":
        services.do_join_by_link(request.user, token=token)
        return _done(request, f"Welcome to {club.name}.", "social:club", club.pk)
    return render(request, "social/join.html", {"club": club, "token": token})


def _club_post(service, message: str = "", back_to_club: bool = True):
    """A POST about club `club_id`: call `service(user, club_id, request)`, then back to the
    club's page (or, once the person is no longer in it, the clubs' page)."""

    @login_required
    @require_POST
    @refusals_as_pages
    def view(request: HttpRequest, club_id: int) -> HttpResponse:
        service(request.user, club_id, request)
        if back_to_club:
            return _done(request, message, "social:club", club_id)
        return _done(request, message, "social:clubs")

    view.__name__ = service.__name__.lstrip("_")
    return view


def _name(request) -> str:
    return request.POST.get("name", "")


def _invite(user, club_id, request):
    services.do_invite_to_club(user, club_id=club_id, name=_name(request))


def _ask(user, club_id, request):
    services.do_ask_to_join(user, club_id=club_id)


def _answer_invite(user, club_id, request):
    services.do_answer_club_invite(user, club_id=club_id, accept=_yes(request, "accept"))


def _answer_request(user, club_id, request):
    services.do_answer_join_request(
        user, club_id=club_id, name=_name(request), accept=_yes(request, "accept")
    )


def _leave(user, club_id, request):
    services.do_leave_club(user, club_id=club_id)


def _remove(user, club_id, request):
    services.do_remove_member(user, club_id=club_id, name=_name(request), ban=_yes(request, "ban"))


def _lift_ban(user, club_id, request):
    services.do_lift_ban(user, club_id=club_id, name=_name(request))


def _role(user, club_id, request):
    services.do_set_role(
        user, club_id=club_id, name=_name(request), role=request.POST.get("role", "")
    )


def _hand_over(user, club_id, request):
    services.do_hand_over(user, club_id=club_id, name=_name(request))


def _delete(user, club_id, request):
    services.do_delete_club(user, club_id=club_id)


invite_to_club = limited("invite")(_club_post(_invite, "Invitation sent."))
ask_to_join = limited("friend_request")(_club_post(_ask, "Your request is with the club."))
answer_invite = _club_post(_answer_invite)
answer_request = _club_post(_answer_request)
leave_club = _club_post(_leave, "You left the club.", back_to_club=False)
remove_member = _club_post(_remove, "Done.")
lift_ban = _club_post(_lift_ban, "The ban is lifted.")
set_role = _club_post(_role, "Done.")
hand_over = _club_post(_hand_over, "The club has a new owner.")
delete_club = _club_post(_delete, "The club is deleted.", back_to_club=False)


@login_required
@require_POST
@limited("new_table")
@refusals_as_pages
def new_club_table(request: HttpRequest, club_id: int) -> HttpResponse:
    preset = request.POST.get("preset", "house")
    if preset not in dict(PRESETS):
        preset = "house"
    match = services.do_create_club_table(request.user, club_id=club_id, rules_spec=preset)
    return redirect("table", match_id=match.pk)


# --- Club replays: face up, for members, where every player's privacy allows ----------------


def _club_game(request, club_id: int, match_id: int):
    club, member = _visible(request, club_id)
    if member is None:
        raise NotFound("There is no such game.")
    game = selectors.club_game(club, match_id)
    if game is None:
        raise NotFound("There is no such game, or a player keeps their history private.")
    return club, game


@login_required
@refusals_as_pages
def club_game(request: HttpRequest, club_id: int, match_id: int) -> HttpResponse:
    club, game = _club_game(request, club_id, match_id)
    return face_up_match(request, game, partial(_club_step_url, club.pk, game.pk))


@login_required
@refusals_as_pages
def club_step(request: HtmxRequest, club_id: int, match_id: int, number: int, step: int):
    club, game = _club_game(request, club_id, match_id)
    return face_up_step(
        request,
        game,
        number,
        step,
        partial(_club_step_url, club.pk, game.pk),
        heading=f"{club.name}: match {game.pk}, deal {number}",
        back_url=reverse("social:club_game", args=[club.pk, game.pk]),
    )


def _club_step_url(club_id: int, match_id: int, number: int, step: int) -> str:
    return reverse("social:club_step", args=[club_id, match_id, number, step])
