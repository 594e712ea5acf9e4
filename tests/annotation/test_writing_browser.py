"""Done-when (issue 47): in real Chromium, a paraphrase typed key by key at a human pace is not
flagged, one pasted is; a passage retyped by hand is not flagged either."""

from __future__ import annotations

from typing import Any

import pytest

from annotation.models import Assignment
from annotation.quality.models import WritingRecord
from annotation.work.jobs import create_job, publish_job
from tests.annotation.factories import make_corpus
from tests.annotation.test_browser import log_in_to, page, take_the_quiz  # noqa: F401  (page: a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TYPED = "Beings that can suffer should have rights written into law."
PASTED = "Legal protection is owed to any creature capable of feeling pain."
RETYPED = "Animals should have lawful rights"  # the perspective itself, retyped by hand
COMPOSED = "동물은 법의 보호를 받아야 한다"  # "animals should be protected by law", keyed in Korean


def open_the_task(tab: Any, live_server: Any) -> Assignment:
    make_corpus(claims=1, perspectives=1)
    job = publish_job(create_job("paraphrase_writing", {}, params={"hints": 0}).pk)
    log_in_to(tab, live_server, job)
    take_the_quiz(tab, "paraphrase_writing")
    tab.click("text=Start working")
    tab.wait_for_selector("textarea, input[type=text]")
    return Assignment.objects.get(state="accepted")


def paste(tab: Any, selector: str, text: str) -> None:
    """A real paste: the text on the clipboard, then Ctrl+V in the box."""
    tab.click(selector)
    tab.evaluate("text => navigator.clipboard.writeText(text)", text)
    tab.keyboard.press("Control+V")


def test_a_typed_paraphrase_is_not_flagged_and_a_pasted_one_is(live_server: Any, page: Any) -> None:  # noqa: F811
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    assignment = open_the_task(page, live_server)
    boxes = page.locator("#hit-form textarea, #hit-form input[type=text]")
    assert boxes.count() == 2
    assert page.locator("#writing-notice").is_visible()

    boxes.nth(0).click()
    page.keyboard.type(TYPED, delay=140)  # about 7 characters a second
    paste(page, "#hit-form :is(textarea, input[type=text]) >> nth=1", PASTED)
    assert boxes.nth(1).input_value() == PASTED
    page.click("#submit-hit")
    page.wait_for_load_state()

    records = {
        record.field[-1]: record for record in WritingRecord.objects.filter(response__assignment=assignment)
    }
    assert not records["1"].flagged and records["1"].signals["typed"] == len(TYPED)
    assert records["2"].flagged and records["2"].signals["pasted"] == len(PASTED)
    assert records["2"].reasons[0].startswith("pasted")


def test_a_passage_retyped_by_hand_is_not_flagged(live_server: Any, page: Any) -> None:  # noqa: F811
    assignment = open_the_task(page, live_server)
    boxes = page.locator("#hit-form textarea, #hit-form input[type=text]")
    for n in range(boxes.count()):
        boxes.nth(n).click()
        page.keyboard.type(f"{RETYPED}, in other words {n}", delay=110)
    page.click("#submit-hit")
    page.wait_for_load_state()

    records = WritingRecord.objects.filter(response__assignment=assignment)
    assert records.count() == 2
    assert [record.reasons for record in records] == [[], []]


def composing(syllable: str) -> list[str]:
    """What a Korean input method shows while a syllable is keyed: its first consonant, then the
    syllable without its last consonant, then the syllable (Hangul's code points are arithmetic)."""
    code = ord(syllable) - 0xAC00
    if not 0 <= code < 11172:
        return [syllable]  # not a syllable (a space): keyed as it is
    first, last = code // 588, code % 28
    shown = ["ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"[first], chr(ord(syllable) - last)]
    return shown + ([syllable] if last else [])


def test_text_composed_with_an_input_method_counts_each_character_once(live_server: Any, page: Any) -> None:  # noqa: F811
    """Korean (or Chinese, or Japanese) is composed: each key sends the whole text being composed again,
    until it is committed. Counted as it came, each syllable was typed two or three times."""
    assignment = open_the_task(page, live_server)
    boxes = page.locator("#hit-form textarea, #hit-form input[type=text]")
    ime = page.context.new_cdp_session(page)
    for n in range(boxes.count()):
        boxes.nth(n).click()
        for syllable in COMPOSED:
            for shown in composing(syllable)[:-1]:
                ime.send("Input.imeSetComposition", {"text": shown, "selectionStart": 1, "selectionEnd": 1})
                page.wait_for_timeout(120)
            ime.send("Input.insertText", {"text": syllable})  # committed
            page.wait_for_timeout(120)
    assert boxes.nth(0).input_value() == COMPOSED
    page.click("#submit-hit")
    page.wait_for_load_state()

    records = WritingRecord.objects.filter(response__assignment=assignment)
    assert records.count() == 2
    assert [record.signals["typed"] for record in records] == [len(COMPOSED)] * 2
