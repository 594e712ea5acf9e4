"""The openai_compatible machine against a fake chat-completions server over real HTTP (issue 46):
strict parsing, a refusal, a 429, a timeout, a lost reply, the spend cap reached mid-job, and a re-run
that makes no call."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest

from annotation.ledger.models import LedgerEntry
from annotation.machines.asking import job_spend, label_job_by_chat
from annotation.machines.chat import ChatEndpoint, worst_case_cost
from annotation.machines.models import MachineAnnotator, MachineReply, ReplyState
from annotation.machines.services import register_annotator
from annotation.models import Job, Response, ResponseOrigin
from annotation.task_types.registry import get_task_type
from tests.aggregation.jobdata import stance_job
from tests.annotation.factories import make_corpus
from tests.annotation.fake_chat_server import FakeChat, fake_chat_server

pytestmark = pytest.mark.django_db

PLENTY = Decimal("100")


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    with fake_chat_server() as fake:
        yield fake


def endpoint(fake: FakeChat) -> ChatEndpoint:
    return ChatEndpoint(fake.url, "fake-model", "test-key", timeout=0.5)


def machine(per_minute: int = 600) -> MachineAnnotator:
    return register_annotator(
        "chat",
        "stance",
        "openai_compatible",
        "fake-model",
        prompt_version="stance-1",
        settings={"price_per_1k_tokens": "0.5", "requests_per_minute": per_minute, "temperature": 0},
    )


def job(perspectives: int = 3) -> Job:
    return stance_job(make_corpus(claims=1, perspectives=perspectives))


def run(fake: FakeChat, annotator: MachineAnnotator, work: Job, cap: Decimal = PLENTY):
    return label_job_by_chat(annotator, work, cap, endpoint=endpoint(fake), pause=lambda seconds: None)


def machine_labels(work: Job) -> list[str]:
    rows = Response.objects.filter(job=work, origin=ResponseOrigin.MACHINE).order_by("item_id")
    return list(rows.values_list("label", flat=True))


def test_labels_in_the_set_are_recorded_as_unpaid_machine_responses(chat: FakeChat) -> None:
    chat.script.extend([("label", "SUPPORT"), ("label", " UNDERMINE\n"), ("label", "NOT_VALID")])
    work, ledger = job(), LedgerEntry.objects.count()
    done = run(chat, machine(), work)
    assert (done.asked, done.cached, done.stopped) == (3, 0, "")
    assert machine_labels(work) == ["SUPPORT", "UNDERMINE", "NOT_VALID"]
    assert len(chat.calls) == 3 and chat.calls[0]["model"] == "fake-model"
    assert LedgerEntry.objects.count() == ledger
    assert job_spend(work) == sum(r.tokens for r in MachineReply.objects.all()) * Decimal("0.5") / 1000


@pytest.mark.parametrize(
    "reply",
    [
        ("label", "I think SUPPORT"),
        ("label", "AGREE"),
        ("label", "support"),
        ("refusal", "I can't help with that."),
    ],
    ids=["malformed", "outside-the-set", "not-exactly-a-label", "refusal"],
)
def test_a_reply_that_is_not_exactly_a_label_is_no_answer(chat: FakeChat, reply: tuple[str, ...]) -> None:
    chat.script.append(reply)
    work = job(perspectives=1)
    run(chat, machine(), work)
    assert machine_labels(work) == []
    assert MachineReply.objects.get().state == ReplyState.NO_ANSWER


def test_a_429_stops_the_run_charges_nothing_and_the_next_run_asks_again(chat: FakeChat) -> None:
    chat.script.extend([("label", "SUPPORT"), ("429",)])
    work, annotator = job(), machine()
    done = run(chat, annotator, work)
    assert "429" in done.stopped and len(chat.calls) == 2
    assert MachineReply.objects.count() == 1 and machine_labels(work) == ["SUPPORT"]
    again = run(chat, annotator, work)
    assert (again.asked, again.cached, again.stopped) == (2, 1, "")
    assert len(machine_labels(work)) == 3


@pytest.mark.parametrize("status", ["401", "403", "404", "500", "503"])
def test_an_error_status_stops_the_run_charges_nothing_and_the_next_run_asks_again(
    chat: FakeChat, status: str
) -> None:
    chat.script.extend([("label", "SUPPORT"), ("status", status)])
    work, annotator = job(), machine()
    done = run(chat, annotator, work)
    assert status in done.stopped and len(chat.calls) == 2
    assert MachineReply.objects.count() == 1 and machine_labels(work) == ["SUPPORT"]
    again = run(chat, annotator, work)
    assert (again.asked, again.cached, again.stopped) == (2, 1, "")
    assert len(machine_labels(work)) == 3


def test_a_request_the_server_will_never_serve_is_no_answer_and_the_run_goes_on(chat: FakeChat) -> None:
    chat.script.extend([("status", "400"), ("label", "SUPPORT")])
    work, annotator = job(perspectives=2), machine()
    done = run(chat, annotator, work)
    assert done.stopped == "" and len(chat.calls) == 2
    refused = MachineReply.objects.get(state=ReplyState.NO_ANSWER)
    assert refused.cost == 0 and "400" in refused.text
    assert machine_labels(work) == ["SUPPORT"]
    again = run(chat, annotator, work)
    assert again.asked == 0 and len(chat.calls) == 2  # not asked again


@pytest.mark.parametrize("failure", ["timeout", "lost"])
def test_a_lost_reply_is_unclear_counted_at_its_worst_case_and_never_resent(
    chat: FakeChat, failure: str
) -> None:
    chat.script.extend([(failure,), ("label", "SUPPORT")])
    work, annotator = job(perspectives=2), machine()
    done = run(chat, annotator, work)
    unclear = MachineReply.objects.get(state=ReplyState.UNCLEAR)
    assert done.unclear == 1 and unclear.cost > 0 and unclear.tokens == 0
    assert machine_labels(work) == ["SUPPORT"]
    calls = len(chat.calls)
    run(chat, annotator, work)
    assert len(chat.calls) == calls


def test_the_spend_cap_is_checked_before_each_batch_and_stops_the_job_mid_way(chat: FakeChat) -> None:
    work, annotator = job(perspectives=4), machine(per_minute=1)  # one call per batch
    prompt = get_task_type("stance").machine_prompt.format(**work.items.order_by("pk").first().payload)
    # Room for the first call at its worst case, not for a second one besides what the first cost.
    cap = worst_case_cost(prompt, Decimal("0.5")) * Decimal("1.1")
    done = run(chat, annotator, work, cap=cap)
    assert "spend cap" in done.stopped
    assert 1 <= len(chat.calls) < 4 and len(machine_labels(work)) == len(chat.calls)
    assert job_spend(work) <= cap


def test_a_rerun_makes_no_call(chat: FakeChat) -> None:
    work, annotator = job(), machine()
    run(chat, annotator, work)
    calls = len(chat.calls)
    again = run(chat, annotator, work)
    assert len(chat.calls) == calls == 3
    assert (again.asked, again.cached) == (0, 3)


def test_the_worst_case_counts_a_token_for_every_byte_of_the_prompt() -> None:
    # A tokenizer may cut a character outside ASCII into as many tokens as its UTF-8 bytes.
    price = Decimal("1")
    assert worst_case_cost("立场", price) == worst_case_cost("abcdef", price)
    assert worst_case_cost("abcdef", price) - worst_case_cost("abc", price) == Decimal("0.003")
