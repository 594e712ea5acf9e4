"""The scale benchmark's synthetic corpus is a valid release made only of PERSPECTRUM's own texts,
and every record in it says it is synthetic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings

from bench._synthetic import CLAIM_BASE, PERSPECTIVE_BASE, write_synthetic_release
from corpus.perspectrum import read_release

RELEASE = Path(settings.PERSPECTRUM_DIR)
pytestmark = pytest.mark.skipif(not RELEASE.is_dir(), reason="needs ../shared/perspectrum")


def test_a_synthetic_corpus_larger_than_the_release_is_valid_synthetic_and_made_of_real_texts(
    tmp_path: Path,
) -> None:
    real_claims = json.loads((RELEASE / "perspectrum_with_answers_v1.0.json").read_text())
    sizes = write_synthetic_release(RELEASE, len(real_claims) + 50, tmp_path)

    made = read_release(tmp_path)  # validated and cross-checked as any release is

    assert sizes["claims"] == len(made.claims) == len(real_claims) + 50
    assert all(c["source"] == "synthetic" and c["cId"] >= CLAIM_BASE for c in made.claims)
    assert all(p["source"] == "synthetic" and p["pId"] >= PERSPECTIVE_BASE for p in made.pool)
    real_texts = {p["text"] for p in json.loads((RELEASE / "perspective_pool_v1.0.json").read_text())}
    assert {p["text"] for p in made.pool} <= real_texts
    assert {c["text"] for c in made.claims} <= {c["text"] for c in real_claims}
    # Claims past the release's size reuse a text with other perspectives: a new combination.
    text = {p["pId"]: p["text"] for p in made.pool}
    first, again = made.claims[0], made.claims[len(real_claims)]

    def perspectives(claim: dict) -> set[str]:
        return {text[pid] for cluster in claim["perspectives"] for pid in cluster["pids"]}

    assert first["text"] == again["text"]
    assert perspectives(first) != perspectives(again)
