"""Prolific screening per job: sent in Prolific's format, and what Prolific would refuse refused
before any call. Against FakeProlific (schema-checked)."""

from __future__ import annotations

from typing import Any

import pytest

from annotation.ledger.models import LedgerEntry
from annotation.markets.prolific.fake import FakeProlific
from annotation.markets.prolific.schema import by_operation, check_request
from annotation.work.job_errors import JobError
from annotation.work.jobs import create_job, publish_job
from tests.annotation.factories import make_corpus
from tests.annotation.test_prolific_market import fake, published, study_of

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["fake"]  # the fixture, imported for pytest


SCREENING = {
    "languages": ["19"],
    "countries": ["1", "2"],
    "approval_rate": {"lower": 95, "upper": 100},
    "previous_submissions": {"lower": 100},
    "devices": ["desktop", "tablet"],
    "naivety_distribution_rate": 0.5,
    "maximum_allowed_time": 45,
}


def test_a_job_published_with_language_and_country_filters_sends_them_in_prolifics_format(
    fake: FakeProlific,
) -> None:
    job = published(prolific_screening=SCREENING, minutes=10)

    sent = fake.studies[study_of(job)]["sent"]
    check_request("POST", "https://api.prolific.com/api/v1/studies/", sent)  # the published schema
    assert sent["filters"][:4] == [
        {"filter_id": "fluent-languages", "selected_values": ["19"]},
        {"filter_id": "current-country-of-residence", "selected_values": ["1", "2"]},
        {"filter_id": "approval_rate", "selected_range": {"lower": 95, "upper": 100}},
        {"filter_id": "approval_numbers", "selected_range": {"lower": 100}},
    ]
    assert sent["filters"][4]["filter_id"] == "participant_group_blocklist"
    assert sent["device_compatibility"] == ["desktop", "tablet"]
    assert (sent["naivety_distribution_rate"], sent["maximum_allowed_time"]) == (0.5, 45)
    assert by_operation("create-study").operation == "create-study"


@pytest.mark.parametrize(
    ("screening", "said"),
    [
        ({"countries": "UK"}, "choice ids"),
        ({"approval_rate": {"lower": 120}}, "within 0..100"),
        ({"approval_rate": {"lower": 99, "upper": 90}}, "above upper"),
        ({"devices": ["watch"]}, "devices must be"),
        ({"naivety_distribution_rate": 2}, "between 0 and 1"),
        ({"maximum_allowed_time": 5}, "at least 29"),
        ({"maximum_allowed_time": 28}, "at least 29 for an estimated time of 10"),
        ({"gender": ["1"]}, "has no"),
    ],
)
def test_a_screening_prolific_would_refuse_is_refused_before_any_call(
    fake: FakeProlific, screening: dict[str, Any], said: str
) -> None:
    make_corpus(claims=1, perspectives=1)
    job = create_job("stance", {}, market="prolific", params={"prolific_screening": screening})

    with pytest.raises(JobError, match=said):
        publish_job(job.pk)
    assert fake.calls == [] and not LedgerEntry.objects.exists()
