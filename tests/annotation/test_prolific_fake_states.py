"""The fake Prolific moves as Prolific documents, each behaviour tested against the page it follows
(schema.json's "sources" names each page; the fake's docstring lists the behaviours)."""

from __future__ import annotations

import threading

import pytest

from annotation.market_interface.errors import MarketRejectedError
from annotation.markets.prolific.client import ProlificClient
from annotation.markets.prolific.fake import FakeProlific
from annotation.markets.prolific.http_errors import ProlificThrottledError
from annotation.markets.prolific.schema import schema
from annotation.markets.prolific.screening import least_maximum_time
from annotation.markets.prolific.studies import StudySpec

PROJECT = FakeProlific.PROJECT


def spec(n: int = 1, places: int = 2, **screening: int) -> StudySpec:
    made = StudySpec(
        name="Stance",
        description="Say the stance",
        task_url="https://stancework.example/work/1/",
        places=places,
        reward_cents=150,
        minutes=10,
        completion_code="ABCD1234",
        project=PROJECT,
        internal_name=f"stancework job {n} hits 1-2",
    )
    if screening:
        made = StudySpec.from_params({**made.as_params(), "screening": screening})
    return made


def active(market: FakeProlific, client: ProlificClient, places: int = 2) -> str:
    study_id = client.create_study(spec(places=places)).study_id
    client.transition_study(study_id, "PUBLISH")
    client.get_study(study_id)
    return study_id


def submitted(market: FakeProlific, study_id: str, count: int) -> list[str]:
    ids = [f"session{n:017d}" for n in range(count)]
    for n, session in enumerate(ids):
        market.submit(study_id, session, f"{n:024x}")
    return ids


def test_a_published_study_is_publishing_then_active_by_itself_as_the_study_object_says() -> None:
    """Study object: "PUBLISHING – Study publish has been triggered and is being processed"."""
    assert "the-study-object" in schema()["sources"]["study object (statuses)"]
    market = FakeProlific()
    market.publishing_reads = 2
    client = market.client(attempts=1)
    study_id = client.create_study(spec()).study_id

    published = client.transition_study(study_id, "PUBLISH")
    reads = [client.get_study(study_id).status for _ in range(2)]

    assert published.status == "PUBLISHING"
    assert reads == ["PUBLISHING", "ACTIVE"]


def test_a_study_whose_places_are_all_submitted_awaits_review_then_completes_by_itself() -> None:
    """Study object: AWAITING REVIEW once all submissions are in; COMPLETED once all are approved."""
    market = FakeProlific()
    client = market.client(attempts=1)
    study_id = active(market, client)

    sessions = submitted(market, study_id, 2)
    full = client.get_study(study_id)
    for session in sessions:
        client.approve_submission(session)

    assert (full.status, full.places_taken) == ("AWAITING REVIEW", 2)
    assert client.get_study(study_id).status == "COMPLETED"


def test_stop_leaves_a_study_awaiting_review_while_submissions_await_it() -> None:
    """Researcher help, "Pausing & stopping a study": after stopping, "Awaiting review" if there
    are submissions to review, else "Completed"."""
    assert "Pausing-stopping-a-study" in schema()["sources"]["pausing and stopping a study"]
    market = FakeProlific()
    client = market.client(attempts=1)
    waiting, empty = active(market, client, places=3), active(market, client, places=3)
    (session,) = submitted(market, waiting, 1)

    stopped = [client.transition_study(study, "STOP").status for study in (waiting, empty)]
    client.approve_submission(session)

    assert stopped == ["AWAITING REVIEW", "COMPLETED"]
    assert client.get_study(waiting).status == "COMPLETED"


@pytest.mark.parametrize("freed", ["reject", "return"])
def test_a_full_study_losing_an_awaited_submission_is_paused_by_prolific(freed: str) -> None:
    """Researcher help, "Pausing & stopping a study", automatic pausing: a study at its number of
    submissions, all awaiting review, is paused when one is rejected or returned."""
    market = FakeProlific()
    client = market.client(attempts=1)
    study_id = active(market, client)
    first, _ = submitted(market, study_id, 2)

    if freed == "reject":
        client.reject_submission(
            first,
            "Every gold item was answered against its known stance, and the free text was empty. " * 2,
            "LOW_EFFORT",
        )
    else:
        market.return_submission(first)

    assert client.get_study(study_id).status == "PAUSED"


def test_pages_are_capped_whatever_size_is_asked_and_ordered_only_when_asked() -> None:
    """Project studies reference: page, page_size and ordering (-date_created); it names no largest
    page, so the fake serves at most `page_cap`; without ordering the order moves with changes."""
    (listing,) = [e for e in schema()["endpoints"] if e["operation"] == "get-project-studies"]
    assert "ordering" in listing["query"] and "page_size" in listing["x-paging"]
    market = FakeProlific()
    market.page_cap = 2
    client = market.client(attempts=1)
    made = [client.create_study(spec(n)).study_id for n in range(5)]
    path = f"https://api.prolific.com/api/v1/projects/{PROJECT}/studies/"

    def page(**query: str | int) -> list[str]:
        return [s["id"] for s in client.session.get(path, params=query).json()["results"]]

    assert page(page=1, page_size=10) == made[::-1][:2]  # the last changed first, two at most
    client.transition_study(made[0], "PUBLISH")
    assert page(page=1, page_size=2) == [made[0], made[4]]
    assert page(page=1, page_size=10, ordering="date_created") == made[:2]
    assert page(page=3, page_size=10, ordering="date_created") == made[4:]


def test_a_maximum_time_under_two_plus_two_t_plus_two_root_t_is_refused() -> None:
    """Prolific refuses a maximum allowed time under 2 + 2t + 2√t minutes (t the estimated time);
    its help centre explains the floor ("Setting the Maximum Allowed Time")."""
    assert "Maximum-Allowed-Time" in schema()["sources"]["maximum allowed time"]
    client = FakeProlific().client(attempts=1)

    assert least_maximum_time(10) == 29  # 2 + 20 + 6.32…
    with pytest.raises(MarketRejectedError, match="under 29 minutes"):
        client.create_study(spec(maximum_allowed_time=28))
    assert client.create_study(spec(maximum_allowed_time=29)).status == "UNPUBLISHED"


def test_a_429_carries_retry_after_and_does_nothing() -> None:
    """Managing high loads: a 429 is transient and asks the client to back off and retry."""
    assert "managing-high-loads" in schema()["sources"]["managing high loads"]
    market = FakeProlific()
    market.throttle("create-study", retry_after=7)

    with pytest.raises(ProlificThrottledError) as throttled:
        market.client(attempts=1).create_study(spec())

    assert throttled.value.retry_after == 7.0
    assert market.studies == {} and market.effects["create-study"] == 0


def test_a_429_keeps_its_retry_after_while_other_requests_are_answered() -> None:
    """The loopback server answers from several threads: a 429's Retry-After is its own, not wiped by
    a request answered between the fake's answer and its headers."""
    market = FakeProlific()
    market.throttle("get-project", retry_after=7)
    market.hold(1, "get-project")
    caught: list[BaseException] = []

    def throttled() -> None:
        try:
            market.client(attempts=1).get_project(PROJECT)
        except ProlificThrottledError as error:
            caught.append(error)

    thread = threading.Thread(target=throttled)
    thread.start()
    assert market.held.wait(10)
    market.client(attempts=1).get_balance(FakeProlific.WORKSPACE)  # answered meanwhile, no 429
    market.release.set()
    thread.join(10)

    assert [getattr(error, "retry_after", None) for error in caught] == [7.0]


@pytest.mark.parametrize("reviewed", [False, True])
def test_more_places_make_a_full_study_active_again(reviewed: bool) -> None:
    """Researcher help, "Increasing places": once places are added the study becomes active by
    itself, a completed one too ("data collection shall resume")."""
    assert "article/ea1755" in schema()["sources"]["increasing places"]
    market = FakeProlific()
    client = market.client(attempts=1)
    study_id = active(market, client)
    sessions = submitted(market, study_id, 2)
    if reviewed:
        for session in sessions:
            client.approve_submission(session)
    full = client.get_study(study_id).status

    more = client.set_places(study_id, 3)

    assert full == ("COMPLETED" if reviewed else "AWAITING REVIEW")
    assert (more.status, more.places_taken) == ("ACTIVE", 2)
    market.submit(study_id, "session-third", "f" * 24)
    assert client.get_study(study_id).status == "AWAITING REVIEW"
