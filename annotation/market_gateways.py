"""How each ledger row kind becomes market calls: read first, call once, read again to resolve.

`precheck` reads the market before a call: only work the market reports as submitted is reviewed or
paid, and work already in the target state is confirmed without a second call. `send` makes the
one call. `resolve` decides an unclear row from the market's state, never by repeating the call.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from annotation.ledger import LedgerEntry, LedgerKind, LedgerState
from annotation.providers.market_clients import mturk_client, prolific_client
from annotation.providers.mturk_spec import HitSpec
from annotation.providers.prolific import StudySpec


@dataclass(frozen=True)
class Finish:
    """A decision about a row reached without (or after) the call."""

    state: str
    ref: str = ""
    excerpt: str = ""


class Gateway:
    def precheck(self, entry: LedgerEntry) -> Finish | None:
        return None

    def send(self, entry: LedgerEntry) -> Finish:
        raise NotImplementedError

    def resolve(self, entry: LedgerEntry) -> Finish | None:
        return None


MTURK_TARGET: dict[str, str] = {LedgerKind.APPROVE: "Approved", LedgerKind.REJECT: "Rejected"}


class MTurkGateway(Gateway):
    def precheck(self, entry: LedgerEntry) -> Finish | None:
        if entry.kind not in (LedgerKind.APPROVE, LedgerKind.REJECT, LedgerKind.BONUS):
            return None
        status = mturk_client().get_assignment(entry.market_ref).status
        if entry.kind in MTURK_TARGET and status == MTURK_TARGET[entry.kind]:
            return Finish(LedgerState.CONFIRMED, entry.market_ref, f"already {status} at MTurk")
        allowed = ("Submitted", "Approved") if entry.kind == LedgerKind.BONUS else ("Submitted",)
        if status not in allowed:
            return Finish(LedgerState.FAILED, excerpt=f"MTurk reports the assignment as {status}")
        return None

    def send(self, entry: LedgerEntry) -> Finish:
        client, p = mturk_client(), entry.params
        if entry.kind == LedgerKind.CREATE_HIT:
            spec = HitSpec(p["task_url"], int(p["max_assignments"]), dt.timedelta(seconds=int(p["lifetime"])))
            outcome = client.create_hit(p["hit_type_id"], spec, entry.token)
        elif entry.kind == LedgerKind.EXTEND:
            outcome = client.create_additional_assignments(entry.market_ref, int(p["count"]), entry.token)
        elif entry.kind == LedgerKind.APPROVE:
            outcome = client.approve(entry.market_ref, p.get("feedback", ""))
        elif entry.kind == LedgerKind.REJECT:
            outcome = client.reject(entry.market_ref, p["feedback"])
        elif entry.kind == LedgerKind.BONUS:
            outcome = client.send_bonus(
                entry.worker_ref, entry.market_ref, entry.amount, p["reason"], entry.token
            )
        else:
            raise ValueError(f"MTurk has no {entry.kind} call")
        return Finish(
            LedgerState.CONFIRMED, outcome.ref, "replayed: MTurk had it already" if outcome.replayed else ""
        )

    def resolve(self, entry: LedgerEntry) -> Finish | None:
        client = mturk_client()
        if entry.kind == LedgerKind.BONUS:
            # SendBonus is synchronous: ListBonusPayments is the whole truth.
            at_market = sum(
                1 for b in client.list_bonuses(assignment_id=entry.market_ref) if b.amount == entry.amount
            )
            ours = (
                LedgerEntry.objects.filter(
                    provider=entry.provider,
                    kind=LedgerKind.BONUS,
                    market_ref=entry.market_ref,
                    amount=entry.amount,
                    state=LedgerState.CONFIRMED,
                )
                .exclude(pk=entry.pk)
                .count()
            )
            if at_market > ours:
                return Finish(LedgerState.CONFIRMED, entry.market_ref, "bonus found at MTurk")
            return Finish(LedgerState.FAILED, excerpt="no such bonus at MTurk")
        if entry.kind == LedgerKind.CREATE_HIT:
            for hit in client.list_hits():
                if hit.annotation == entry.token:
                    return Finish(LedgerState.CONFIRMED, hit.hit_id, "HIT found at MTurk")
            return Finish(LedgerState.FAILED, excerpt="no HIT carries this token at MTurk")
        if entry.kind in MTURK_TARGET:
            status = client.get_assignment(entry.market_ref).status
            ok = status == MTURK_TARGET[entry.kind]
            return Finish(LedgerState.CONFIRMED if ok else LedgerState.FAILED, entry.market_ref, status)
        return None


PROLIFIC_TARGET: dict[str, str] = {LedgerKind.APPROVE: "APPROVED", LedgerKind.REJECT: "REJECTED"}
AWAITING_REVIEW = "AWAITING REVIEW"


def cents(amount: Decimal) -> int:
    return int((Decimal(amount) * 100).to_integral_value())


class ProlificGateway(Gateway):
    def precheck(self, entry: LedgerEntry) -> Finish | None:
        client = prolific_client()
        if entry.kind == LedgerKind.PAY:
            # Before the one pay call, note what the submission already shows, to resolve by reading.
            before = client.bonuses_paid(entry.params["submission_id"])
            entry.params = {**entry.params, "paid_before": len(before)}
            LedgerEntry.objects.filter(pk=entry.pk).update(params=entry.params)
            return None
        if entry.kind not in (LedgerKind.APPROVE, LedgerKind.REJECT, LedgerKind.BONUS):
            return None
        status = client.get_submission(entry.market_ref).status
        if entry.kind in PROLIFIC_TARGET and status == PROLIFIC_TARGET[entry.kind]:
            return Finish(LedgerState.CONFIRMED, entry.market_ref, f"already {status} at Prolific")
        allowed = (AWAITING_REVIEW, "APPROVED") if entry.kind == LedgerKind.BONUS else (AWAITING_REVIEW,)
        if status not in allowed:
            return Finish(LedgerState.FAILED, excerpt=f"Prolific reports the submission as {status}")
        return None

    def send(self, entry: LedgerEntry) -> Finish:
        client, p = prolific_client(), entry.params
        if entry.kind == LedgerKind.CREATE_HIT:
            study_id = entry.result_ref
            if not study_id:
                study_id = client.create_study(StudySpec(**p["study"])).study_id
                # Kept at once: a retry publishes this draft instead of creating another.
                LedgerEntry.objects.filter(pk=entry.pk).update(result_ref=study_id)
            study = client.publish_study(study_id)
            return Finish(LedgerState.CONFIRMED, study.study_id, study.status)
        if entry.kind == LedgerKind.EXTEND:
            study = client.set_places(entry.market_ref, int(p["places"]))
            return Finish(LedgerState.CONFIRMED, study.study_id, f"{study.places} places")
        if entry.kind == LedgerKind.APPROVE:
            return Finish(LedgerState.CONFIRMED, client.approve_submission(entry.market_ref).submission_id)
        if entry.kind == LedgerKind.REJECT:
            sub = client.reject_submission(entry.market_ref, p["feedback"], p.get("category", "OTHER"))
            return Finish(LedgerState.CONFIRMED, sub.submission_id)
        if entry.kind == LedgerKind.BONUS:
            # Setting up pays nobody; the PAY row that follows moves the money.
            bulk = client.create_bonus_payment(p["study_id"], [(entry.market_ref, entry.amount)])
            return Finish(LedgerState.CONFIRMED, bulk.bulk_id, f"total with fees {bulk.total}")
        if entry.kind == LedgerKind.PAY:
            return Finish(LedgerState.CONFIRMED, entry.market_ref, client.pay_bonus_payment(entry.market_ref))
        raise ValueError(f"Prolific has no {entry.kind} call")

    def resolve(self, entry: LedgerEntry) -> Finish | None:
        client = prolific_client()
        if entry.kind == LedgerKind.PAY:
            before = int(entry.params.get("paid_before", 0))
            paid = client.bonuses_paid(entry.params["submission_id"])
            if cents(entry.amount) in paid[before:]:
                return Finish(
                    LedgerState.CONFIRMED, entry.market_ref, f"bonus shows on the submission: {paid}"
                )
            # Prolific pays "in the following minutes": absence is not proof. Stay unclear.
            return None
        if entry.kind in PROLIFIC_TARGET:
            status = client.get_submission(entry.market_ref).status
            ok = status == PROLIFIC_TARGET[entry.kind]
            return Finish(LedgerState.CONFIRMED if ok else LedgerState.FAILED, entry.market_ref, status)
        return None


GATEWAYS: dict[str, Gateway] = {"mturk": MTurkGateway(), "prolific": ProlificGateway()}
