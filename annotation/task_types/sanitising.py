"""What an untrusted MTurk template may keep on the worker's page: the form controls and media it
needs, and no script, style, event handler or javascript: URL (nh3). Pure: no Django."""

from __future__ import annotations

import nh3

ALLOWED_TAGS = nh3.ALLOWED_TAGS | {
    "input",
    "select",
    "option",
    "optgroup",
    "textarea",
    "label",
    "fieldset",
    "legend",
    "button",
    "audio",
    "video",
    "source",
    "section",
    "main",
}
ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    **{tag: set(attributes) for tag, attributes in nh3.ALLOWED_ATTRIBUTES.items()},
    "*": {"class", "id", "title", "lang", "dir"},
    "input": {
        "name",
        "type",
        "value",
        "checked",
        "required",
        "placeholder",
        "min",
        "max",
        "step",
        "maxlength",
        "minlength",
        "size",
        "pattern",
        "readonly",
    },
    "select": {"name", "multiple", "required", "size"},
    "option": {"value", "selected"},
    "textarea": {"name", "rows", "cols", "placeholder", "required", "maxlength", "minlength"},
    "label": {"for"},
    "button": {"type", "value"},
    "audio": {"src", "controls"},
    "video": {"src", "controls", "width", "height"},
    "source": {"src", "type"},
}


def sanitise(fragment: str) -> str:
    """An untrusted template's HTML with scripts, styles, event handlers and unsafe URLs removed."""
    return nh3.clean(fragment, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES)
