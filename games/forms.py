from django import forms

from . import engine
from .models import BotLevel

PRESETS = [
    ("house", "House: partners, bid 2–4, a 4 ends the auction, 11 to win"),
    ("classic", "Classic: partners, smudge, dealer steals, 21 to win"),
    ("auction", "Auction Pitch: every player for themselves, low to holder, 11"),
    ("family", "Family: for themselves, bid 1–4, follow else trump, 7"),
]
SEATING = [
    ("", "The preset's own"),
    ("partnerships", "Four players in two partnerships"),
    ("cutthroat", "Cutthroat: every player for themselves"),
    ("six", "Six players in three partnerships"),
]


class NewMatchForm(forms.Form):
    preset = forms.ChoiceField(choices=PRESETS, initial="house")
    bot_level = forms.ChoiceField(
        label="Computer players", choices=BotLevel.choices, initial=BotLevel.MEDIUM
    )
    seating = forms.ChoiceField(choices=SEATING, required=False)
    players = forms.TypedChoiceField(
        label="Players (cutthroat)",
        choices=[("", "The preset's own")] + [(n, str(n)) for n in range(2, 8)],
        coerce=int,
        required=False,
        empty_value=None,
    )
    target = forms.TypedChoiceField(
        choices=[("", "The preset's own"), (7, "7"), (11, "11"), (21, "21")],
        coerce=int,
        required=False,
        empty_value=None,
    )
    low_to = forms.ChoiceField(
        label="Low goes to",
        choices=[("", "The preset's own"), ("taker", "who takes it"), ("holder", "who held it")],
        required=False,
    )
    draw = forms.BooleanField(required=False, label="Draw: discard and refill after trump is named")
    pitch_to_bid = forms.BooleanField(required=False, label="Pitch instead of bidding")
    no_trump_first_trick = forms.BooleanField(required=False, label="No trumps on the first trick")

    def clean(self):
        data = super().clean()
        spec = {"preset": data.get("preset", "house")}
        seating = data.get("seating")
        if seating == "partnerships":
            spec["cutthroat"] = False
        elif seating == "cutthroat":
            spec["cutthroat"] = True
        elif seating == "six":
            spec["six_players"] = True
        if data.get("players") is not None:
            spec["players"] = data["players"]
        if data.get("target") is not None:
            spec["target"] = data["target"]
        if data.get("low_to"):
            spec["low_to"] = data["low_to"]
        for option in ("draw", "pitch_to_bid", "no_trump_first_trick"):
            if data.get(option):
                spec[option] = True
        try:
            data["rules"] = engine.Rules.from_spec(spec)
        except engine.RulesError as error:
            raise forms.ValidationError(str(error)) from error
        return data


class NewTableForm(NewMatchForm):
    """A table to share with people: the rules, and the host's table settings. The seats'
    bots are chosen on the table itself."""

    allow_spectators = forms.BooleanField(required=False, label="Allow spectators")
    turn_timeout_seconds = forms.IntegerField(
        label="Seconds before a bot plays for an absent player", min_value=5, max_value=600, initial=30
    )
    public = forms.BooleanField(required=False, label="List it in the lobby, open to anyone")

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "id_table_%s")  # beside the other form on the home page
        super().__init__(*args, **kwargs)
        del self.fields["bot_level"]


class TableSettingsForm(forms.Form):
    allow_spectators = forms.BooleanField(required=False, label="Allow spectators")
    turn_timeout_seconds = forms.IntegerField(
        label="Seconds before a bot plays for an absent player", min_value=5, max_value=600
    )
