import dataclasses

from django import forms

from games import engine
from games.models import DEFAULT_BOT_LEVEL, BotLevel

# Short enough for a drop-down on a phone (390 px): the longer names were cut off mid-word
# (issue 44). Each preset's whole rules are on the rules page and under the table.
PRESET_LABEL_MAX = 32
PRESETS = [
    ("house", "House: partners, to 11"),
    ("classic", "Classic: partners, smudge, to 21"),
    ("auction", "Auction Pitch: cutthroat, to 11"),
    ("family", "Family: cutthroat, to 7"),
]
SEATING = [
    ("", "The preset's own"),
    ("partnerships", "Four players in two partnerships"),
    ("cutthroat", "Cutthroat: every player for themselves"),
    ("six", "Six players in three partnerships"),
]


def last_choices(user) -> dict[str, str]:
    """The person's last rules preset and bot level (User.last_choices) that are still choices
    of these forms, as a form's `initial`: the forms open on what the person chose last."""
    kept = getattr(user, "last_choices", None) or {}
    known = {"preset": dict(PRESETS), "bot_level": dict(BotLevel.choices)}
    return {name: kept[name] for name, values in known.items() if kept.get(name) in values}


# Every rules option has a field on the new-match and new-table forms, built from the engine's
# Rules: the seating chooses cutthroat and six_players; the options with choices have a field of
# their own below; every other option is a switch (a yes/no option of Rules), which needs only
# its wording here. An option of Rules without its field here stops the site from starting.
SEATING_OPTIONS = ("cutthroat", "six_players")
OPTION_FIELDS = ("players", "target", "low_to")
SWITCH_LABELS = {
    "draw": "Draw: discard and refill after trump is named",
    "pitch_to_bid": "Pitch instead of bidding",
    "no_trump_first_trick": "No trumps on the first trick",
}
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(engine.Rules)}
SWITCHES = tuple(
    name
    for name in engine.OPTION_NAMES
    if name not in SEATING_OPTIONS and name not in OPTION_FIELDS and _DEFAULTS[name] is False
)
_unlabelled = set(engine.OPTION_NAMES) - {*SEATING_OPTIONS, *OPTION_FIELDS, *SWITCH_LABELS}
if _unlabelled:
    raise ImportError(f"rules options with no field on the new-match form: {sorted(_unlabelled)}")


class NewMatchForm(forms.Form):
    preset = forms.ChoiceField(choices=PRESETS, initial="house")
    bot_level = forms.ChoiceField(
        label="Computer players", choices=BotLevel.choices, initial=DEFAULT_BOT_LEVEL
    )
    seating = forms.ChoiceField(label="Seating", choices=SEATING, required=False)
    players = forms.TypedChoiceField(
        label="Players (cutthroat)",
        choices=[("", "The preset's own")] + [(n, str(n)) for n in range(2, 8)],
        coerce=int,
        required=False,
        empty_value=None,
    )
    target = forms.TypedChoiceField(
        label="Points to win",
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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for option in SWITCHES:
            self.fields[option] = forms.BooleanField(required=False, label=SWITCH_LABELS[option])

    @property
    def rules_fields(self):
        """The rules options' fields, in the order the page shows them."""
        return [self[name] for name in ("seating", *OPTION_FIELDS, *SWITCHES)]

    def clean(self):
        data = super().clean()
        spec = engine.rules.spec_from_choices(
            data.get("preset", "house"),
            seating=data.get("seating") or "",
            players=data.get("players"),
            target=data.get("target"),
            low_to=data.get("low_to") or "",
            switches=[option for option in SWITCHES if data.get(option)],
        )
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
        label="Seconds before a bot plays for an absent player",
        min_value=5,
        max_value=600,
        initial=30,
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
