"""Admin columns and fields that speak plainly: a label by its name, a measured figure rounded to what
it means, a code in words, yes/no for a flag, and a mapping (params, filters, changes) as a table,
folded when long. Each is made for one model field, so a change list declares what it shows. And
`ReadOnlyRecords`, the page of records that only the code writes."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import datetime
from types import MethodType
from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from config.wording import figure

Column = Callable[[Any, Any], Any]
FOLD_ROWS = 8  # a table longer than this is folded under a summary line
NOTHING = "—"
# A moment as JSON holds one (an invitation's expiry, a crawl's start): ISO 8601, to the microsecond.
ISO_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")


def moment(text: str) -> str:
    """An ISO 8601 moment as the pages show one, in the site's time zone: "2026-12-06 14:38"."""
    when = datetime.fromisoformat(text)
    return f"{timezone.localtime(when) if timezone.is_aware(when) else when:%Y-%m-%d %H:%M}"


def in_words(value: object) -> str:
    """A value as a person reads it: yes/no, — for nothing, a figure to 4 places, a moment to the
    minute, a code in words."""
    if value is None or value == "":
        return NOTHING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return figure(value, 4).rstrip("0").rstrip(".") if value != int(value) else str(int(value))
    if isinstance(value, str) and ISO_MOMENT.fullmatch(value):
        return moment(value)
    if isinstance(value, str) and "_" in value and " " not in value and "/" not in value and "." not in value:
        words = value.replace("_", " ")
        return words.capitalize() if value.isupper() else words  # a label code: "Not supported"
    if isinstance(value, (list, tuple)):
        return ", ".join(in_words(part) for part in value) or NOTHING
    return str(value)


def table(value: object) -> SafeString:
    """A mapping as a two-column table (nested ones inside), folded with <details> when long; a list
    as a comma-separated line, or of mappings (an import's conflicts) as one table each."""
    if isinstance(value, (list, tuple)) and any(isinstance(part, Mapping) for part in value):
        return format_html_join("", "{}", ((table(part),) for part in value))
    if not isinstance(value, Mapping):
        return format_html("{}", in_words(value))
    if not value:
        return SafeString(NOTHING)
    rows = format_html_join(
        "", "<tr><th>{}</th><td>{}</td></tr>", ((in_words(key), table(part)) for key, part in value.items())
    )
    shown = format_html('<table class="plain">{}</table>', rows)
    if len(value) <= FOLD_ROWS:
        return shown
    return format_html("<details><summary>{} entries</summary>{}</details>", len(value), shown)


def table_field(field: str, description: str) -> Column:
    """A read-only field showing a JSON field as a table."""

    @admin.display(description=description)
    def shown(modeladmin: Any, obj: Any) -> SafeString:
        return table(getattr(obj, field))

    shown.__name__ = f"{field}_table"
    return shown


def figure_column(field: str, description: str, digits: int = 4) -> Column:
    """A column showing a measured figure to `digits` places ("0.3333"), — where there is none."""

    @admin.display(description=description, ordering=field)
    def shown(modeladmin: Any, obj: Any) -> str:
        value = getattr(obj, field)
        return figure(value, digits) if isinstance(value, float) else in_words(value)

    shown.__name__ = f"{field}_figure"
    return shown


def words_column(field: str, description: str) -> Column:
    """A column showing a code, or a list of codes, in words ("low agreement")."""

    @admin.display(description=description, ordering=field)
    def shown(modeladmin: Any, obj: Any) -> str:
        return in_words(getattr(obj, field))

    shown.__name__ = f"{field}_words"
    return shown


def label_column(field: str, description: str) -> Column:
    """A column showing a label code of the row's job by the name its task type gives it."""

    @admin.display(description=description, ordering=field)
    def shown(modeladmin: Any, obj: Any) -> SafeString | str:
        value = getattr(obj, field)
        return str(obj.job.label_name(value)) if isinstance(value, str) or value is None else table(value)

    shown.__name__ = f"{field}_name"
    return shown


class ExampleJSONField(forms.JSONField):
    """A JSON object typed into a box that shows an example as its placeholder (a person reads the
    words of its help text; the JSON is what they type): empty, not "{}", while it holds nothing."""

    def __init__(self, example: str, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        super().__init__(widget=forms.Textarea(attrs={"rows": 3, "placeholder": example}), **kwargs)

    def prepare_value(self, value: Any) -> Any:
        return "" if value is None or value == {} else super().prepare_value(value)


class InWordsFilter(admin.AllValuesFieldListFilter):
    """A list filter by a field's stored values, each shown in words ("no points")."""

    def choices(self, changelist: Any) -> Any:
        for choice in super().choices(changelist):
            if choice["display"] != self.empty_value_display and choice["display"] != "All":
                choice["display"] = in_words(choice["display"])
            yield choice


def readable_fields(model: Any, codes: tuple[str, ...] = ()) -> list[str]:
    """A model's fields for a read-only page as `PlainFields` shows them: each JSON field as its table
    (`<name>_table`), each float as a figure (`<name>_figure`), and the `codes` in words (`<name>_words`)."""
    suffixes = {"JSONField": "_table", "FloatField": "_figure"}
    return [
        f.name + ("_words" if f.name in codes else suffixes.get(f.get_internal_type(), ""))
        for f in model._meta.fields
    ]


class PlainFields:
    """An admin that shows a read-only field named `<field>_table`, `<field>_figure` or `<field>_words`
    as that field's table, figure or words."""

    def __getattr__(self, name: str) -> Any:
        kinds: dict[str, Callable[[str, str], Column]] = {
            "_table": table_field,
            "_figure": figure_column,
            "_words": words_column,
        }
        for suffix, kind in kinds.items():
            if name.endswith(suffix):
                field = name.removesuffix(suffix)
                return MethodType(kind(field, field.replace("_", " ")), self)
        raise AttributeError(name)


class ReadOnlyRecords:
    """An admin of records that only the code writes (an audit trail, an import, a built release): staff
    read them, and no one adds, changes or deletes one by hand."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
