"""The demo's offline stand-in for web search: PERSPECTRUM's web sentences, one page each, written whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from config.whole_files import WriteError
from corpus.models import Perspective
from pipeline.demo import web_sentences_file
from tests.config.test_whole_files import disk_full_after

pytestmark = pytest.mark.django_db


def test_each_web_sentence_of_the_pool_is_one_page_and_nothing_else_is(tmp_path: Path) -> None:
    Perspective.objects.create(pid=2, text="Second web sentence.", source="google")
    Perspective.objects.create(pid=1, text="First web sentence.", source="google")
    Perspective.objects.create(pid=3, text="A debate point.", source="idebate")
    out = tmp_path / "data" / "web.jsonl"

    assert web_sentences_file(out) == out
    pages = [json.loads(line) for line in out.read_text().splitlines()]
    assert pages == [
        {"url": "perspectrum:pool/1", "title": "", "text": "First web sentence."},
        {"url": "perspectrum:pool/2", "title": "", "text": "Second web sentence."},
    ]


def test_a_failed_write_leaves_the_previous_file_whole(tmp_path: Path) -> None:
    Perspective.objects.create(pid=1, text="A web sentence long enough to pass the limit.", source="google")
    out = tmp_path / "web.jsonl"
    out.write_text("the previous pages\n")

    with pytest.raises(WriteError, match="the previous file is intact"), disk_full_after(16):
        web_sentences_file(out)

    assert out.read_text() == "the previous pages\n"
    assert [path.name for path in tmp_path.iterdir()] == [out.name]  # no partial file left


def test_no_web_sentence_no_file(tmp_path: Path) -> None:
    assert web_sentences_file(tmp_path / "web.jsonl") is None
    assert list(tmp_path.iterdir()) == []
