"""What a job's page says to expect of its local machine (issue 46): the figures the PERSPECTRUM bench
measured, from the one function the guide's figures are held to here."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse
from django.utils.html import escape

from aggregation.machines.expectations import MEASURED, expectation
from aggregation.machines.local import MINILM, TFIDF
from annotation.machines.services import register_annotator
from tests.aggregation.jobdata import stance_job
from tests.annotation.factories import make_corpus

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "machines.md"
PLAN = {"annotator": "m", "target_error": 0.1, "confidence": 0.95, "calibration_items": 1}


def test_stance_goes_to_people_and_paraphrases_partly_to_the_machine() -> None:
    stance, paraphrase = expectation("stance", MINILM), expectation("paraphrase_verification", MINILM)
    assert stance is not None and stance.endswith("expect stance to go to people")
    assert "0.5727 accuracy (majority class 0.5305" in stance and "nothing at ε = 0.05 and nothing" in stance
    assert paraphrase is not None and "0.8124 accuracy" in paraphrase
    assert "37.1% of the items at ε = 0.1 (realised error 0.0674)" in paraphrase
    assert paraphrase.endswith("expect paraphrases to go partly to the machine (at ε = 0.1 or more)")
    assert expectation("evidence_verification", MINILM) is None


def test_the_guide_states_the_measured_figures() -> None:
    guide = " ".join(GUIDE.read_text().split())
    assert len(MEASURED) == 4  # stance and paraphrase, each with MiniLM and TF-IDF
    for measured in MEASURED.values():
        for figure in (measured.accuracy, measured.majority, measured.cross_validated):
            assert f"{figure:.4f}" in guide
        for target, share in measured.accepted.items():
            if share:
                assert f"{share:.1%}" in guide and f"{measured.realised[target]:.4f}" in guide


@pytest.mark.django_db
@pytest.mark.parametrize("features", [MINILM, TFIDF])
def test_the_jobs_page_says_what_to_expect_of_its_local_machine(admin_client, features: str) -> None:
    job = stance_job(make_corpus(claims=1, perspectives=2), machine=PLAN)
    register_annotator("m", "stance", "local", f"{features}+logistic")
    page = admin_client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()
    assert escape(expectation("stance", features)) in page


@pytest.mark.django_db
def test_a_chat_machine_gets_no_such_expectation(admin_client) -> None:
    job = stance_job(make_corpus(claims=1, perspectives=2), machine=PLAN)
    register_annotator("m", "stance", "openai_compatible", "some-model", prompt_version="stance-1")
    page = admin_client.get(reverse("aggregation:dashboard", args=[job.pk])).content.decode()
    assert 'id="machine-expectation"' not in page
