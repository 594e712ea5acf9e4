"""MTurk's money: how its ledger rows become calls (`send`) and how a lost reply is decided by reading
(`resolve`). HITs, extensions and bonuses carry the row's UniqueRequestToken, which MTurk honours for
24 hours."""

from __future__ import annotations

import datetime as dt

from annotation.market_interface.base import Money
from annotation.market_interface.money import Finish, Records, Row, RowKind, RowState
from annotation.markets.mturk.client import mturk_client
from annotation.markets.mturk.spec import HitSpec
from annotation.markets.mturk.states import PAYABLE, REVIEWED


class MTurkMoney(Money):
    """MTurk's paying calls, one per ledger row."""

    def work_status(self, row: Row) -> str:
        return mturk_client().get_assignment(row.market_ref).status

    def send(self, entry: Row, records: Records) -> Finish:
        """The row's one call at MTurk."""
        client, p = mturk_client(), entry.params
        if entry.kind == RowKind.CREATE_HIT:
            spec = HitSpec(p["task_url"], int(p["max_assignments"]), dt.timedelta(seconds=int(p["lifetime"])))
            outcome = client.create_hit(p["hit_type_id"], spec, entry.token)
        elif entry.kind == RowKind.EXTEND:
            outcome = client.create_additional_assignments(entry.market_ref, int(p["count"]), entry.token)
        elif entry.kind == RowKind.APPROVE:
            outcome = client.approve(entry.market_ref, p.get("feedback", ""))
        elif entry.kind == RowKind.REJECT:
            outcome = client.reject(entry.market_ref, p["feedback"])
        elif entry.kind == RowKind.BONUS:
            outcome = client.send_bonus(
                entry.worker_ref, entry.market_ref, entry.amount, p["reason"], entry.token
            )
        else:
            raise ValueError(f"MTurk has no {entry.kind} call")
        return Finish(
            RowState.CONFIRMED, outcome.ref, "replayed: MTurk had it already" if outcome.replayed else ""
        )

    def resolve(self, entry: Row, records: Records) -> Finish | None:
        """An unclear row decided by reading MTurk: its bonuses, its HITs, an assignment's status."""
        client = mturk_client()
        if entry.kind == RowKind.BONUS:
            # SendBonus is synchronous: ListBonusPayments is the whole truth.
            at_market = sum(
                1 for b in client.list_bonuses(assignment_id=entry.market_ref) if b.amount == entry.amount
            )
            confirmed = records.rows(
                RowKind.BONUS, market=entry.market, market_ref=entry.market_ref, states=[RowState.CONFIRMED]
            )
            ours = sum(1 for row in confirmed if row.amount == entry.amount and row.pk != entry.pk)
            if at_market > ours:
                return Finish(RowState.CONFIRMED, entry.market_ref, "bonus found at MTurk")
            return Finish(RowState.FAILED, excerpt="no such bonus at MTurk")
        if entry.kind == RowKind.CREATE_HIT:
            for hit in client.list_hits():
                if hit.annotation == entry.token:
                    return Finish(RowState.CONFIRMED, hit.hit_id, "HIT found at MTurk")
            return Finish(RowState.FAILED, excerpt="no HIT carries this token at MTurk")
        return super().resolve(entry, records)


MONEY = MTurkMoney(
    market="MTurk",
    token_protected=frozenset({RowKind.CREATE_HIT, RowKind.EXTEND, RowKind.BONUS}),
    # MTurk honours a UniqueRequestToken for 24 hours; past that a resend could act twice.
    token_lifetime=dt.timedelta(hours=23),
    payable=PAYABLE,
    reviewed=REVIEWED,
)
