from django import forms
from django.contrib.auth.forms import UserCreationForm

from .models import User
from .names import lookalike_problem


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)

    def clean_username(self):
        username = super().clean_username()
        if not username:
            return username  # already refused (taken, differing only in case)
        # Every existing name is compared by its skeleton: fine for thousands of players; a
        # stored, indexed skeleton column is the step after that.
        existing = User.objects.values_list("username", flat=True)
        problem = lookalike_problem(username, existing)
        if problem:
            raise forms.ValidationError(problem, code="lookalike")
        return username
