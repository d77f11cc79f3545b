from django import forms

from games.core.forms import PRESETS
from games.models import preset_name

from .selectors import Filters


class StatsFilterForm(forms.Form):
    preset = forms.ChoiceField(
        label="Rules",
        choices=[("", "All rules")] + [(name, preset_name(name)) for name, _ in PRESETS],
        required=False,
    )
    since = forms.DateField(
        label="From", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label="To", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def clean(self):
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            raise forms.ValidationError("The start date must not be after the end date.")
        return data

    def filters(self) -> Filters:
        data = self.cleaned_data
        return Filters(preset=data["preset"], since=data["since"], until=data["until"])
