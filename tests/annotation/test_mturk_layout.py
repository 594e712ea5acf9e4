"""MTurk layout templates, parsed and rendered without Django (annotation.task_types.mturk_layout)."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.task_types.mturk_layout import (
    CHOICE,
    FLAG,
    MULTI,
    TEXT,
    LayoutError,
    answer_column_names,
    answer_columns,
    parse_layout,
    render_layout,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mturk"
EMOTION = (FIXTURES / "emotion_detection.html").read_text()
CROWD = (FIXTURES / "stance_crowd_elements.html").read_text()
ROW = {"claim": "Vaccination must be made compulsory", "perspective": "It is the state’s duty"}


def platform_names(source: str) -> dict[str, str]:
    return {field.name: f"item-9-{field.name}" for field in parse_layout(source).fields}


def test_turkles_emotion_template_has_one_hidden_answer_and_reads_the_text_column() -> None:
    layout = parse_layout(EMOTION)

    assert [(f.name, f.kind) for f in layout.fields] == [("emotion", TEXT)]
    assert layout.variables == ("text",)


def test_crowd_elements_become_fields_named_as_mturk_names_their_answers() -> None:
    layout = parse_layout(CROWD)

    kinds = {f.name: (f.kind, f.element, f.required) for f in layout.fields}
    assert kinds == {
        "radio_group_1": (CHOICE, "crowd-radio-group", False),
        "topic": (CHOICE, "crowd-classifier", True),
        "unclear": (FLAG, "crowd-checkbox", False),
        "keyword": (TEXT, "crowd-input", True),
        "comment": (TEXT, "crowd-text-area", False),
    }
    assert answer_column_names(layout.fields) == [
        "supports.supports", "undermines.undermines", "neither.neither", "topic.label", "unclear.yes",
        "keyword", "comment",
    ]  # fmt: skip


def test_plain_radios_checkboxes_and_selects_collect_their_options() -> None:
    source = """<input type="radio" name="side" value="pro" required>
    <input type="radio" name="side" value="con">
    <input type="checkbox" name="tags" value="a"><input type="checkbox" name="tags" value="b">
    <select name="level"><option>low</option><option value="hi">High</option></select>"""

    fields = {f.name: (f.kind, f.values, f.required) for f in parse_layout(source).fields}

    assert fields == {
        "side": (CHOICE, ["pro", "con"], True),
        "tags": (MULTI, ["a", "b"], False),
        "level": (CHOICE, ["low", "hi"], False),
    }


def test_a_row_value_is_escaped_where_it_is_placed() -> None:
    row = {"text": "<img src=x onerror=alert(1)>"}
    html = render_layout(EMOTION, row, {"emotion": "emotion"}, trusted=True)

    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "<img" not in html


def test_an_untrusted_template_loses_its_scripts_handlers_and_javascript_urls() -> None:
    untrusted = render_layout(CROWD, ROW, platform_names(CROWD), trusted=False)
    emotion = render_layout(EMOTION, {"text": "t"}, {"emotion": "emotion"}, trusted=False)

    for html in (untrusted, emotion):
        assert "<script" not in html and "onclick" not in html and "javascript:" not in html
    assert "$(document).ready" not in emotion
    assert "a link that must not run" in untrusted  # the text stays, the link does not


def test_a_trusted_template_keeps_its_scripts() -> None:
    html = render_layout(EMOTION, {"text": "t"}, {"emotion": "emotion"}, trusted=True)

    assert "$(document).ready" in html and 'src="https://code.jquery.com/jquery-3.3.1.slim.min.js"' in html


def test_controls_are_named_for_the_platforms_form_and_the_templates_form_and_submit_go() -> None:
    html = render_layout(CROWD, ROW, platform_names(CROWD), trusted=False)

    assert 'name="item-9-radio_group_1" value="supports"' in html
    assert 'name="item-9-topic" value="education"' in html and 'name="item-9-keyword"' in html
    assert "<crowd-" not in html and "<form" not in html and ">Submit<" not in html
    assert "Vaccination must be made compulsory" in html


def test_a_bare_button_cannot_submit_the_platforms_form() -> None:
    html = render_layout(EMOTION, {"text": "t"}, {"emotion": "emotion"}, trusted=False)

    assert html.count('type="button"') == 6


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("<p>Nothing to answer</p>", "no named form field"),
        ('<input name="page_token">', "reserved"),
        ('<input name="item-3">', "reserved"),
        ('<input name="a b">', "is not 1-100 letters"),
        ('<input type="file" name="upload">', "file inputs"),
        ('<input name="x"><input type="radio" name="x" value="1">', "used both as text and as choice"),
        ('<crowd-classifier name="c" categories="not a list"></crowd-classifier>', "not a list of strings"),
    ],
)
def test_a_template_the_platform_cannot_offer_is_refused_with_the_reason(source: str, reason: str) -> None:
    with pytest.raises(LayoutError, match=reason):
        parse_layout(source)


def test_answers_are_written_as_mturk_batch_results_write_them() -> None:
    fields = {f.name: f for f in parse_layout(CROWD).fields}
    tags = parse_layout('<input type="checkbox" name="tags" value="a">').fields[0]

    assert answer_columns(fields["radio_group_1"], "neither") == {
        "supports.supports": "false", "undermines.undermines": "false", "neither.neither": "true",
    }  # fmt: skip
    assert answer_columns(fields["topic"], "education") == {"topic.label": "education"}
    assert answer_columns(fields["unclear"], True) == {"unclear.yes": "true"}
    assert answer_columns(tags, ["a", "b"]) == {"tags": "a|b"}
    assert answer_columns(fields["comment"], None) == {"comment": ""}
