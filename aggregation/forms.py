"""Staff forms: re-aggregation with a threshold, the accuracy sample, merge/split/copy of clusters."""

from __future__ import annotations

from django import forms

from aggregation.policy import LABEL_MODELS
from config.columns import in_words


class AggregateForm(forms.Form):
    threshold = forms.FloatField(min_value=0.0, max_value=1.0, required=False, help_text="ρ threshold")
    comparison = forms.ChoiceField(choices=[("", "as before"), (">=", "≥"), (">", ">")], required=False)
    label_model = forms.ChoiceField(
        choices=[("", "as before"), *[(name, in_words(name)) for name in sorted(LABEL_MODELS)]],
        required=False,
    )


class SampleForm(forms.Form):
    size = forms.IntegerField(min_value=1, max_value=100_000, initial=100)
    seed = forms.IntegerField(initial=0)


class MergeForm(forms.Form):
    clusters = forms.TypedMultipleChoiceField(coerce=int, widget=forms.CheckboxSelectMultiple)


class SplitForm(forms.Form):
    cluster = forms.IntegerField(widget=forms.HiddenInput)
    perspectives = forms.TypedMultipleChoiceField(coerce=int, widget=forms.CheckboxSelectMultiple)


class CopyForm(forms.Form):
    clusters = forms.TypedMultipleChoiceField(coerce=int, widget=forms.CheckboxSelectMultiple)
    oppose = forms.BooleanField(required=False, help_text="The claims take opposite sides: flip the stance.")
