"""MTurk layout templates, the HTML that MTurk's requester site and Turkle run. Pure: no Django.

A layout is HTML with `${column}` placeholders for one CSV row, ordinary form fields, and
crowd-html-elements (`crowd-form`, `crowd-radio-group`/`crowd-radio-button`, `crowd-checkbox`,
`crowd-input`, `crowd-text-area`, `crowd-classifier`). The platform loads no crowd-html-elements
script, so `render_layout` turns those elements into the plain form controls they stand for, names
every control as the platform's form expects, and drops the template's own `<form>` and submit
buttons (the page has one form and one Submit). A template nobody trusted is then sanitised with
nh3: no script, no event handler, no javascript: URL reaches the page.

Answers come out as MTurk's batch results name them (`answer_columns`): `Answer.<name>` for plain
fields (several ticked boxes joined by "|"), `Answer.<name>.label` for a crowd-classifier, and
`Answer.<button>.<value>` = true/false for each crowd-radio-button and crowd-checkbox.
"""

from __future__ import annotations

import ast
import html
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from annotation.task_types.sanitising import sanitise

TEXT, CHOICE, MULTI, FLAG = "text", "choice", "multi", "flag"
PLACEHOLDER = re.compile(r"\$\{([A-Za-z0-9_]+)\}")
FIELD_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,100}$")
# Names the platform's own pages post alongside the answers: a template may not take them.
RESERVED_NAMES = frozenset(
    {
        "page_token",
        "csrfmiddlewaretoken",
        "preview",
        "assignmentId",
        "hitId",
        "workerId",
        "turkSubmitTo",
        "PROLIFIC_PID",
        "STUDY_ID",
        "SESSION_ID",
    }
)
# Controls that submit or upload: the platform's page has its own Submit, and takes no files.
DROPPED_INPUTS = frozenset({"submit", "image", "reset"})
UNWRAPPED = frozenset({"form", "crowd-form", "html", "head", "body", "meta"})
SUPPRESSED = frozenset({"title"})
CROWD_CHILDREN = {
    "classification-target": ("div", {"class": "classification-target"}),
    "short-instructions": ("div", {"class": "short-instructions"}),
    "full-instructions": ("details", {"class": "full-instructions"}),
}


class LayoutError(ValueError):
    """A template the platform cannot offer: no answer field, a reserved or malformed name, a file input."""


@dataclass(frozen=True)
class Option:
    value: str  # what the form posts
    column: str = ""  # for crowd-radio-button and crowd-checkbox: the Answer.<column> it sets true


@dataclass(frozen=True)
class LayoutField:
    """One answer of the template: a name, a kind (text, choice, multi, flag) and its options."""

    name: str
    kind: str
    options: tuple[Option, ...] = ()
    required: bool = False
    element: str = "input"

    @property
    def values(self) -> list[str]:
        return [option.value for option in self.options]


@dataclass(frozen=True)
class Layout:
    fields: tuple[LayoutField, ...]
    variables: tuple[str, ...]


def parse_layout(source: str) -> Layout:
    """The template's answer fields, in the order they appear, and the `${columns}` it reads."""
    converter = _Converter(names=None)
    converter.feed(source)
    converter.close()
    fields = converter.layout_fields()
    if not fields:
        raise LayoutError("the template has no named form field, so a worker could answer nothing")
    variables = tuple(dict.fromkeys(PLACEHOLDER.findall(source)))
    return Layout(fields=fields, variables=variables)


def render_layout(source: str, row: Mapping[str, Any], names: Mapping[str, str], *, trusted: bool) -> str:
    """The template for one CSV row, its controls named `names[field]`; sanitised unless trusted."""
    filled = PLACEHOLDER.sub(lambda match: html.escape(str(row.get(match.group(1), "")), quote=True), source)
    converter = _Converter(names=names)
    converter.feed(filled)
    converter.close()
    converted = "".join(converter.out)
    return converted if trusted else sanitise(converted)


def answer_columns(layout_field: LayoutField, value: Any) -> dict[str, str]:
    """One answer as MTurk's batch results name its columns (without the `Answer.` prefix)."""
    if layout_field.element in ("crowd-radio-group", "crowd-checkbox"):
        chosen = {str(value)} if layout_field.kind == CHOICE else ({"on"} if value else set())
        return {opt.column: "true" if opt.value in chosen else "false" for opt in layout_field.options}
    if layout_field.element == "crowd-classifier":
        return {f"{layout_field.name}.label": "" if value is None else str(value)}
    if isinstance(value, list | tuple):
        return {layout_field.name: "|".join(str(part) for part in value)}
    if isinstance(value, bool):
        return {layout_field.name: "true" if value else "false"}
    return {layout_field.name: "" if value is None else str(value)}


def answer_column_names(fields: tuple[LayoutField, ...]) -> list[str]:
    """Every Answer.<...> column the template's fields give, in order."""
    names: list[str] = []
    for layout_field in fields:
        empty: Any = [] if layout_field.kind == MULTI else None
        names.extend(answer_columns(layout_field, empty))
    return names


def _categories(raw: str | None) -> list[str]:
    """crowd-classifier's `categories`, a JavaScript array literal of strings."""
    try:
        parsed = json.loads(raw or "")
    except json.JSONDecodeError:
        try:
            parsed = ast.literal_eval(raw or "")
        except (ValueError, SyntaxError):
            raise LayoutError(f"crowd-classifier categories {raw!r} are not a list of strings") from None
    if not isinstance(parsed, list | tuple) or not parsed or not all(isinstance(c, str) for c in parsed):
        raise LayoutError(f"crowd-classifier categories {raw!r} are not a list of strings")
    return list(parsed)


def _tag(name: str, attrs: Mapping[str, str | None]) -> str:
    parts = [name]
    for key, value in attrs.items():
        parts.append(key if value is None else f'{key}="{html.escape(value, quote=True)}"')
    return "<" + " ".join(parts) + ">"


@dataclass
class _Building:
    kind: str
    element: str
    options: list[Option] = field(default_factory=list)
    required: bool = False


class _Converter(HTMLParser):
    """Walks a template once: records its fields and writes the platform's HTML for it."""

    def __init__(self, names: Mapping[str, str] | None) -> None:
        super().__init__(convert_charrefs=True)
        self.names = names or {}
        self.fields: dict[str, _Building] = {}
        self.out: list[str] = []
        self.ends: dict[str, list[str]] = {}  # per tag, the end tags its open elements will write
        self.group: str | None = None  # the crowd-radio-group being read
        self.select: str | None = None
        self.option_text: list[str] | None = None  # an <option> without a value: its text is its value
        self.cdata = ""  # inside <script> or <style>: text is written as it stands
        self.suppressed = 0  # depth inside an element dropped with its content
        self.suppressed_tag = ""
        self.groups = 0
        # The elements rewritten on the way through; every other tag is written as it came.
        self.starts: dict[str, Callable[[str, dict[str, str | None]], None]] = {
            "input": self._start_input,
            "select": self._start_select,
            "option": self._start_option,
            "textarea": self._start_textarea,
            "button": self._start_button,
            "crowd-button": self._start_crowd_button,
            "crowd-radio-group": self._start_crowd_radio_group,
            "crowd-radio-button": self._start_crowd_radio_button,
            "crowd-checkbox": self._start_crowd_checkbox,
            "crowd-input": self._start_crowd_input,
            "crowd-text-area": self._start_crowd_text_area,
            "crowd-classifier": self._start_crowd_classifier,
        }

    # Fields ------------------------------------------------------------------------------------
    def layout_fields(self) -> tuple[LayoutField, ...]:
        return tuple(
            LayoutField(name, b.kind, tuple(b.options), b.required, b.element)
            for name, b in self.fields.items()
        )

    def _field(self, name: str | None, kind: str, element: str, required: bool = False) -> str:
        if name is None or not FIELD_NAME.match(name):
            raise LayoutError(f"form field name {name!r} is not 1-100 letters, digits, '_', '.' or '-'")
        if name in RESERVED_NAMES or name.startswith("item-"):
            raise LayoutError(f"form field name {name!r} is reserved by the platform's pages")
        found = self.fields.setdefault(name, _Building(kind, element))
        if found.kind != kind:
            raise LayoutError(f"form field {name!r} is used both as {found.kind} and as {kind}")
        found.required = found.required or required
        return self.names.get(name, name)

    def _option(self, name: str, option: Option) -> None:
        if option.value not in [known.value for known in self.fields[name].options]:
            self.fields[name].options.append(option)

    # Output ------------------------------------------------------------------------------------
    def _emit(self, text: str) -> None:
        if not self.suppressed:
            self.out.append(text)

    def _open(self, tag: str, text: str, end: str) -> None:
        self._emit(text)
        self.ends.setdefault(tag, []).append(end)

    def handle_starttag(self, tag: str, attr_list: list[tuple[str, str | None]]) -> None:
        attrs = dict(attr_list)
        if self.suppressed:
            self.suppressed += tag == self.suppressed_tag
            return
        if tag in SUPPRESSED:
            self._suppress(tag)
            return
        if tag in ("script", "style"):
            self.cdata = tag
        handler = self.starts.get(tag)
        if handler is not None:
            handler(tag, attrs)
        elif tag in UNWRAPPED or tag.startswith("crowd-"):
            self.ends.setdefault(tag, []).append("")
        elif tag in CROWD_CHILDREN:
            name, extra = CROWD_CHILDREN[tag]
            summary = f"<summary>{html.escape(attrs.get('header') or 'Instructions')}</summary>"
            self._open(tag, _tag(name, extra) + (summary if name == "details" else ""), f"</{name}>")
        else:
            self._emit(_tag(tag, attrs))

    def _suppress(self, tag: str) -> None:
        """Drop the element and everything in it (a template's own submit button, its <title>)."""
        self.suppressed_tag, self.suppressed = tag, 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in ("input", "img", "br", "hr", "meta", "link", "source", "col", "area", "wbr"):
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == self.cdata:
            self.cdata = ""
        if self.suppressed:
            self.suppressed -= tag == self.suppressed_tag
            return
        if tag == "crowd-radio-group":
            self.group = None
        elif tag == "select":
            self.select = None
        elif tag == "option" and self.option_text is not None and self.select is not None:
            self._option(self.select, Option("".join(self.option_text).strip()))
            self.option_text = None
        pending = self.ends.get(tag)
        if pending:
            self._emit(pending.pop())
        elif tag not in UNWRAPPED and not tag.startswith("crowd-") and tag not in CROWD_CHILDREN:
            self._emit(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if self.option_text is not None:
            self.option_text.append(data)
        self._emit(data if self.cdata else html.escape(data, quote=False))

    # Plain controls ----------------------------------------------------------------------------
    def _start_input(self, tag: str, attrs: dict[str, str | None]) -> None:
        kind = (attrs.get("type") or "text").lower()
        if kind in DROPPED_INPUTS:
            return
        if kind == "file":
            raise LayoutError("file inputs are not supported: the platform takes no uploads")
        own = attrs.get("name")
        if own is not None:
            shape = {"radio": CHOICE, "checkbox": MULTI}.get(kind, TEXT)
            attrs["name"] = self._field(own, shape, "input", "required" in attrs)
            if shape != TEXT:
                self._option(own, Option(attrs.get("value") or "on"))
        self._emit(_tag(tag, attrs))

    def _start_select(self, tag: str, attrs: dict[str, str | None]) -> None:
        if "name" in attrs:
            self.select = attrs["name"]
            shape = MULTI if "multiple" in attrs else CHOICE
            attrs["name"] = self._field(attrs["name"], shape, "select", "required" in attrs)
        self._emit(_tag(tag, attrs))

    def _start_option(self, tag: str, attrs: dict[str, str | None]) -> None:
        if self.select is not None:
            if attrs.get("value") is not None:
                self._option(self.select, Option(str(attrs["value"])))
            else:
                self.option_text = []
        self._emit(_tag(tag, attrs))

    def _start_textarea(self, tag: str, attrs: dict[str, str | None]) -> None:
        if "name" in attrs:
            attrs["name"] = self._field(attrs["name"], TEXT, "textarea", "required" in attrs)
        self._emit(_tag(tag, attrs))

    def _start_button(self, tag: str, attrs: dict[str, str | None]) -> None:
        if (attrs.get("type") or "submit").lower() == "submit":
            # A button submits by default: inside the platform's form it would post it early.
            attrs["type"] = "button"
        self._emit(_tag(tag, attrs))

    # crowd-html-elements -----------------------------------------------------------------------
    def _start_crowd_button(self, tag: str, attrs: dict[str, str | None]) -> None:
        if attrs.get("form-action") == "submit":
            self._suppress(tag)
            return
        self._open(tag, '<button type="button">', "</button>")

    def _start_crowd_radio_group(self, tag: str, attrs: dict[str, str | None]) -> None:
        self.groups += 1
        self.group = attrs.get("name") or f"radio_group_{self.groups}"
        self._field(self.group, CHOICE, tag)
        self._open(tag, '<fieldset class="crowd-radio-group">', "</fieldset>")

    def _start_crowd_radio_button(self, tag: str, attrs: dict[str, str | None]) -> None:
        button = attrs.get("name") or attrs.get("value") or "on"
        group = self.group or button
        name = self._field(group, CHOICE, "crowd-radio-group", "required" in attrs)
        self._option(group, Option(button, f"{button}.{attrs.get('value') or 'on'}"))
        control = {"type": "radio", "name": name, "value": button, **_flags(attrs, "required", "checked")}
        self._open(tag, '<label class="crowd-radio-button">' + _tag("input", control), "</label>")

    def _start_crowd_checkbox(self, tag: str, attrs: dict[str, str | None]) -> None:
        name = attrs.get("name")
        control_name = self._field(name, FLAG, tag, "required" in attrs)
        self._option(str(name), Option("on", f"{name}.{attrs.get('value') or 'on'}"))
        control = {
            "type": "checkbox",
            "name": control_name,
            "value": "on",
            **_flags(attrs, "required", "checked"),
        }
        self._open(tag, '<label class="crowd-checkbox">' + _tag("input", control), "</label>")

    def _start_crowd_input(self, tag: str, attrs: dict[str, str | None]) -> None:
        name = self._field(attrs.get("name"), TEXT, tag, "required" in attrs)
        kept = {
            k: attrs[k] for k in ("placeholder", "value", "min", "max", "step", "maxlength") if attrs.get(k)
        }
        control = {"type": attrs.get("type") or "text", "name": name, **kept, **_flags(attrs, "required")}
        label = html.escape(attrs.get("label") or "")
        self._open(tag, f'<label class="crowd-input">{label} ' + _tag("input", control), "</label>")

    def _start_crowd_text_area(self, tag: str, attrs: dict[str, str | None]) -> None:
        name = self._field(attrs.get("name"), TEXT, tag, "required" in attrs)
        kept = {k: attrs[k] for k in ("placeholder", "rows", "maxlength") if attrs.get(k)}
        control = _tag("textarea", {"name": name, **kept, **_flags(attrs, "required")})
        value = html.escape(attrs.get("value") or "", quote=False)
        label = html.escape(attrs.get("label") or "")
        self._open(tag, f'<label class="crowd-text-area">{label} {control}{value}</textarea>', "</label>")

    def _start_crowd_classifier(self, tag: str, attrs: dict[str, str | None]) -> None:
        name = attrs.get("name")
        control_name = self._field(name, CHOICE, tag, True)
        parts = ['<fieldset class="crowd-classifier">']
        if attrs.get("header"):
            parts.append(f"<legend>{html.escape(str(attrs['header']))}</legend>")
        parts.append('<ul class="choices">')
        for category in _categories(attrs.get("categories")):
            self._option(str(name), Option(category))
            radio = _tag(
                "input", {"type": "radio", "name": control_name, "value": category, "required": None}
            )
            parts.append(f"<li><label>{radio} {html.escape(category)}</label></li>")
        parts.append("</ul>")
        self._open(tag, "".join(parts), "</fieldset>")


def _flags(attrs: Mapping[str, str | None], *wanted: str) -> dict[str, str | None]:
    return {flag: None for flag in wanted if flag in attrs}
