"""RadioChoices writes the markup Django's RadioSelect writes, without the template engine."""

from __future__ import annotations

import pytest
from django import forms
from django.test.html import parse_html

from annotation.task_types.base import labels_field
from annotation.web.widgets import RadioChoices, fast_radios

CHOICES = [("SUPPORT", "Supports <b>"), ("UNDERMINE", 'Opposes "x"'), ("NOT_VALID", "Not valid & more")]


def rendered(widget: type[forms.RadioSelect], data: dict[str, str] | None, attrs: dict[str, str]) -> str:
    class Form(forms.Form):
        item = forms.ChoiceField(choices=CHOICES, widget=widget(attrs=attrs))

    return str(Form(data)["item"])


def test_radio_choices_render_the_same_html_as_django_radios_escaped_checked_and_with_a_class() -> None:
    for data in (None, {"item": "UNDERMINE"}):
        for attrs in ({}, {"class": "choices"}):
            assert parse_html(rendered(RadioChoices, data, attrs)) == parse_html(
                rendered(forms.RadioSelect, data, attrs)
            )
    assert "&lt;b&gt;" in rendered(RadioChoices, None, {})


def test_only_plain_radio_selects_are_swapped() -> None:
    radios = fast_radios(forms.ChoiceField(choices=CHOICES, widget=forms.RadioSelect(attrs={"class": "c"})))
    boxes = fast_radios(forms.MultipleChoiceField(choices=CHOICES, widget=forms.CheckboxSelectMultiple))
    assert isinstance(radios.widget, RadioChoices) and radios.widget.attrs == {"class": "c"}
    assert list(radios.widget.choices) == CHOICES
    assert type(boxes.widget) is forms.CheckboxSelectMultiple


def test_the_fast_path_writes_exactly_the_markup_of_djangos_option_building() -> None:
    for value in (None, "UNDERMINE"):
        for attrs in (
            {"id": "id_item-7", "required": True},
            {"id": "id_item-7", "class": "c"},
            {},
            # attributes sorting before and after the id, and an id that needs escaping
            {"id": 'id_"7&', "aria-describedby": "help", "data-z": "1", "required": True, "disabled": False},
        ):
            widget = RadioChoices(choices=CHOICES)
            assert widget.render("item-7", value, attrs) == widget._render_grouped("item-7", value, attrs)


def test_grouped_choices_are_rendered_through_djangos_options() -> None:
    grouped = [("Agree", [("SUPPORT", "Supports")]), ("Disagree", [("UNDERMINE", "Opposes")])]
    html = str(RadioChoices(choices=grouped).render("item", "UNDERMINE", {"id": "i"}))
    assert 'value="UNDERMINE" id="i_1_0" checked' in html and "Supports" in html


def test_each_label_field_is_a_copy_of_its_own() -> None:
    first, second = labels_field(tuple(CHOICES)), labels_field(tuple(CHOICES))
    fast_radios(first)
    first.widget.attrs["class"] = "c"
    first.validators.append(lambda value: None)
    first.error_messages["required"] = "changed"
    assert type(second.widget) is forms.RadioSelect and second.widget.attrs == {}
    assert second.validators == [] and second.error_messages["required"] != "changed"
    assert second.required and second.clean("UNDERMINE") == "UNDERMINE"
    with pytest.raises(forms.ValidationError):
        second.clean("MAYBE")
