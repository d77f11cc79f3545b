from django import forms
from django.conf import settings

from games import engine
from games.core.forms import PRESETS
from games.models import DEFAULT_BOT_LEVEL, BotLevel

SEATING = [
    ("partners", "Partners, 2 vs 2"),
    ("cutthroat", "Cutthroat"),
]


class PairingForm(forms.Form):
    preset = forms.ChoiceField(label="Rules", choices=PRESETS, initial="house")
    seating = forms.ChoiceField(choices=SEATING, initial="partners")
    players = forms.TypedChoiceField(
        label="Players",
        choices=[(n, str(n)) for n in range(2, 8)],
        coerce=int,
        initial=3,
    )
    bot_level = forms.ChoiceField(
        label="Bots for empty seats", choices=BotLevel.choices, initial=DEFAULT_BOT_LEVEL
    )
    wait_seconds = forms.IntegerField(label="Wait (seconds)", initial=30)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "id_pairing_%s")
        super().__init__(*args, **kwargs)
        field = self.fields["wait_seconds"]
        field.min_value = settings.PAIRING_WAIT_MIN_SECONDS
        field.max_value = settings.PAIRING_WAIT_MAX_SECONDS
        field.widget.attrs.update(min=field.min_value, max=field.max_value)
        field.validators.extend(
            forms.IntegerField(min_value=field.min_value, max_value=field.max_value).validators
        )

    def clean(self):
        data = super().clean()
        spec = {"preset": data.get("preset", "house")}
        if data.get("seating") == "cutthroat":
            spec.update(cutthroat=True, players=data.get("players") or 3)
        else:
            spec["cutthroat"] = False
        try:
            data["rules"] = engine.Rules.from_spec(spec)
        except engine.RulesError as error:
            raise forms.ValidationError(str(error)) from error
        return data
