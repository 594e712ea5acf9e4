"""Radio groups rendered without the template engine.

A stance HIT has 50 items of 5 choices each: Django's RadioSelect renders every choice through three
templates, which took most of a task page's time under load (bench/load.py). This widget writes
the same markup as Django 5's radio.html and input_option.html with `format_html`, so pages, scripts
and tests see no difference.
"""

from __future__ import annotations

import functools
import html
from typing import Any

from django import forms
from django.forms.renderers import BaseRenderer
from django.forms.utils import flatatt
from django.utils import translation
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString


class RadioChoices(forms.RadioSelect):
    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: BaseRenderer | None = None
    ) -> SafeString:
        options = _flat_options(tuple(self.choices))
        if options is None:  # grouped choices: Django's own option building
            return self._render_grouped(name, value, attrs)
        final = self.build_attrs(self.attrs, attrs)
        chosen = set(self.format_value(value))
        base_id, name_html = final.get("id"), html.escape(name)
        # Options differ only by their id's index and whether they are checked: their attributes are
        # flattened once per group, not once per option (a fifth of a 50-item task page's CPU).
        flattened = {
            False: _split_at_index(final, {}),
            True: _split_at_index(final, self.checked_attribute),
        }
        id_html = html.escape(str(base_id)) if base_id else ""
        parts = []
        for index, (raw, value_html, label_html) in enumerate(options):
            before, after = flattened[raw in chosen]
            option_id = f"{id_html}_{index}" if base_id else ""
            label_for = f' for="{option_id}"' if base_id else ""
            parts.append(
                f'<div><label{label_for}><input type="radio" name="{name_html}" value="{value_html}"'
                f"{before}{option_id}{after}> {label_html}</label></div>"
            )
        wrapper = {"id": base_id, "class": final.get("class")}
        return SafeString(f"<div{_flat({k: v for k, v in wrapper.items() if v})}>{''.join(parts)}</div>")

    def _render_grouped(self, name: str, value: Any, attrs: dict[str, Any] | None) -> SafeString:
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


def _flat_options(choices: tuple[tuple[Any, Any], ...]) -> list[tuple[str, str, str]] | None:
    """(value, escaped value, escaped label) per choice, in the active language; None for grouped choices.
    Escaping every label of every item through Django's lazy-aware helpers was most of a task
    page's CPU (bench/load.py's page figures)."""
    if any(isinstance(label, list | tuple) for _value, label in choices):
        return None
    return _escaped(choices, translation.get_language())


@functools.lru_cache(maxsize=256)
def _escaped(choices: tuple[tuple[Any, Any], ...], language: str | None) -> list[tuple[str, str, str]]:
    values = ["" if value is None else str(value) for value, _label in choices]
    return [
        (raw, html.escape(raw), html.escape(str(label)))
        for raw, (_v, label) in zip(values, choices, strict=True)
    ]


_INDEX = "\x00"  # where an option's index goes in its flattened attributes (never in escaped text)


def _split_at_index(final: dict[str, Any], checked: dict[str, Any]) -> tuple[str, str]:
    """An option's flattened attributes around its id (the group's id, "_", the option's index):
    what comes before the index, and after it. Without an id, all of them and ""."""
    option = {**final, **checked}
    if not final.get("id"):
        return _flat(option), ""
    option["id"] = _INDEX
    before, after = _flat(option).split(_INDEX)
    return before, after


def _flat(attrs: dict[str, Any]) -> str:
    """django.forms.utils.flatatt, for plain values: key="value" pairs sorted, then true booleans."""
    pairs = sorted((k, v) for k, v in attrs.items() if not isinstance(v, bool) and v is not None)
    flags = sorted(k for k, v in attrs.items() if v is True)
    return "".join(f' {k}="{html.escape(str(v))}"' for k, v in pairs) + "".join(f" {k}" for k in flags)


def _for(attrs: dict[str, Any]) -> SafeString:
    return format_html(' for="{}"', attrs["id"]) if attrs.get("id") else SafeString("")


def fast_radios(field: forms.Field) -> forms.Field:
    """The field with its RadioSelect swapped for RadioChoices (same choices and attributes)."""
    if type(field.widget) is forms.RadioSelect:
        # The field's own widget, re-classed: RadioChoices adds no state, and building a new one would
        # normalize the choices again (a fifth of a 50-item form's CPU).
        field.widget.__class__ = RadioChoices
    return field
