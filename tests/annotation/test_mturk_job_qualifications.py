"""The MTurk client's side of a job's own qualification, held to AWS's model by botocore's Stubber:
found again by its exact name among our own types, and required absent by the job's HIT type."""

from __future__ import annotations

from botocore.stub import Stubber

from annotation.markets.mturk.client import MTurkClient
from annotation.markets.mturk.spec import QualificationPolicy

NAME = "Stancework job 7: stopped workers (1a2b3c4d)"


def test_our_type_is_found_by_its_exact_name_among_our_own(mturk: MTurkClient, stub: Stubber) -> None:
    search = {"Query": NAME, "MustBeRequestable": False, "MustBeOwnedByCaller": True, "MaxResults": 100}
    stub.add_response(
        "list_qualification_types",
        {
            "QualificationTypes": [
                {"QualificationTypeId": "QUALOTHER", "Name": f"{NAME} (old)"},
                {"QualificationTypeId": "QUALJOB7", "Name": NAME},
            ],
            "NumResults": 2,
        },
        search,
    )
    stub.add_response("list_qualification_types", {"QualificationTypes": [], "NumResults": 0}, search)

    assert mturk.find_qualification_type(NAME) == "QUALJOB7"
    assert mturk.find_qualification_type(NAME) is None


def test_the_hit_type_requires_the_jobs_qualification_absent_hiding_the_hits_from_its_holders() -> None:
    policy = QualificationPolicy(locales=(), min_approved_hits=None, min_approval_rate=None)
    stopped = QualificationPolicy(
        locales=(), min_approved_hits=None, min_approval_rate=None, job_blocklist_qualification_id="QUALJOB7"
    )

    assert policy.requirements() == []
    assert stopped.requirements() == [
        {
            "QualificationTypeId": "QUALJOB7",
            "Comparator": "DoesNotExist",
            "ActionsGuarded": "DiscoverPreviewAndAccept",
        }
    ]
