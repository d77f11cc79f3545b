from django import forms

from games.models import preset_name

from .selectors import PRESETS
from .services import MAX_RECORD_BYTES


class HistoryFilter(forms.Form):
    preset = forms.ChoiceField(
        label="Rules",
        required=False,
        choices=[("", "All rules")] + [(p, preset_name(p)) for p in PRESETS],
    )
    outcome = forms.ChoiceField(
        label="Result",
        required=False,
        choices=[("", "Any result"), ("won", "Won"), ("lost", "Lost"), ("playing", "Not finished")],
    )

    def values(self) -> dict:
        """The filters to apply: an unknown value is ignored (that filter only), not refused."""
        self.is_valid()
        return {name: self.cleaned_data.get(name, "") for name in self.fields}


class ImportForm(forms.Form):
    file = forms.FileField(label="A record file (.json)", required=False)
    text = forms.CharField(
        label="…or paste the record",
        required=False,
        widget=forms.Textarea(
            attrs={
                "rows": 6,
                "spellcheck": "false",
                "placeholder": '{"format": "setback-deal/1", ...}',
            }
        ),
    )

    def clean(self):
        data = super().clean()
        upload = data.get("file")
        if upload:
            data["payload"] = upload.read(MAX_RECORD_BYTES + 1)  # more is refused, unread
        elif data.get("text", "").strip():
            data["payload"] = data["text"]
        else:
            raise forms.ValidationError("Choose a record file or paste a record.")
        return data
