"""Radio groups rendered without the template engine.

A stance HIT has 50 items of 5 choices each: Django's RadioSelect renders every choice through three
templates, which took about 100 ms of a 120 ms task page under load (bench/load.py). This widget writes
the same markup as Django 5's radio.html and input_option.html with `format_html`, so pages, scripts
and tests see no difference.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.forms.renderers import BaseRenderer
from django.forms.utils import flatatt
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString


class RadioChoices(forms.RadioSelect):
    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: BaseRenderer | None = None
    ) -> SafeString:
        widget = self.get_context(name, value, attrs)["widget"]
        options = [
            option for _group, group_options, _index in widget["optgroups"] for option in group_options
        ]
        choices = format_html_join(
            "",
            '<div><label{}><input type="radio" name="{}" value="{}"{}> {}</label></div>',
            (
                (
                    _for(option["attrs"]),
                    option["name"],
                    option["value"],
                    flatatt(option["attrs"]),
                    option["label"],
                )
                for option in options
            ),
        )
        wrapper = {"id": widget["attrs"].get("id"), "class": widget["attrs"].get("class")}
        return format_html("<div{}>{}</div>", flatatt({k: v for k, v in wrapper.items() if v}), choices)


def _for(attrs: dict[str, Any]) -> SafeString:
    return format_html(' for="{}"', attrs["id"]) if attrs.get("id") else SafeString("")


def fast_radios(field: forms.Field) -> forms.Field:
    """The field with its RadioSelect swapped for RadioChoices (same choices and attributes)."""
    if type(field.widget) is forms.RadioSelect:
        field.widget = RadioChoices(attrs=field.widget.attrs, choices=field.widget.choices)
    return field
