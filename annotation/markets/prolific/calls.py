"""How Prolific ledger rows become calls (`ProlificMarket.send`, `resolve` and `follow_ups`). A bonus
is two calls: set up (pays nobody), then pay.

Every call is sent once and a lost reply is decided by reading (house style rule 22,
docs/design/house-style.md): a study created is
looked for in the project by its internal name before any create, and a transition reads the study's
status before and after. The pay call is not idempotent: its row is claimed before the call, and an
unclear outcome is resolved by reading the submission's bonuses. Bonuses land "in the following
minutes", in an undocumented order, so a payment is matched to our pay rows by amount and time
(bonuses.matched_attempts). Absence proves nothing, however long it lasts: a pay row whose bonus does
not show stays UNCLEAR, visible in the ledger admin and on the job, until Prolific's records show it
or a person with `annotation.spend_money` decides (annotation.ledger.decisions). No timer pays again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from annotation.market_interface.base import Money
from annotation.market_interface.errors import MarketError, MarketUnavailableError
from annotation.market_interface.money import Finish, Records, Row, RowKind, RowState, cents
from annotation.markets.prolific import account
from annotation.markets.prolific.bonuses import PayAttempt, matched_attempts
from annotation.markets.prolific.client import ProlificClient, prolific_client
from annotation.markets.prolific.identity import PROLIFIC
from annotation.markets.prolific.rejections import rejection_category
from annotation.markets.prolific.states import PAYABLE, REVIEWED
from annotation.markets.prolific.studies import UNPUBLISHED, StudySpec

if TYPE_CHECKING:
    from annotation.models import Assignment

# Calls that spend the workspace's money in the row's currency: checked against the workspace's own
# currency before each, as a workspace may change currency after a job was booked.
SPENDING = frozenset({RowKind.CREATE_HIT, RowKind.EXTEND, RowKind.BONUS, RowKind.PAY})


def resolve_study(entry: Row) -> Finish:
    """A study row decided by reading the project: made once its study is past its draft."""
    spec = StudySpec.from_params(entry.params["study"])
    found = prolific_client().find_study(spec.project, spec.internal_name)
    if found is None:
        return Finish(RowState.FAILED, excerpt=f"no study named {spec.internal_name!r} at Prolific")
    if found.status == UNPUBLISHED:
        return Finish(
            RowState.FAILED, excerpt=f"study {found.study_id} is a draft at Prolific: never published"
        )
    return Finish(RowState.CONFIRMED, found.study_id, found.status)


def created_study(client: ProlificClient, spec: StudySpec) -> str:
    """Our study for this spec: the one the project already has under its internal name, else a new one.

    Read before creating, and read again when the create's reply is lost: a study is never created
    twice for one ledger row, whatever became of an earlier attempt.
    """
    found = client.find_study(spec.project, spec.internal_name)
    if found is not None:
        return found.study_id
    try:
        return client.create_study(spec).study_id
    except MarketUnavailableError:
        found = client.find_study(spec.project, spec.internal_name)
        if found is None:
            raise
        return found.study_id


def resolve_pay(entry: Row, records: Records) -> Finish | None:
    """Paid when the submission's bonuses account for this row; otherwise still unclear (None)."""
    submission_id = str(entry.params["submission_id"])
    paid = prolific_client().bonuses_paid(submission_id)
    rows = records.rows(
        RowKind.PAY,
        market=PROLIFIC,
        states=[RowState.CONFIRMED, RowState.SENT, RowState.UNCLEAR],
        params={"submission_id": submission_id},
    )
    attempts = [PayAttempt(r.pk, cents(r.amount), r.sent_at, r.state == RowState.CONFIRMED) for r in rows]
    if entry.pk in matched_attempts(paid, attempts):
        return Finish(RowState.CONFIRMED, entry.market_ref, f"bonus shows on the submission: {list(paid)}")
    # Prolific pays "in the following minutes" and documents no way to tell "not yet" from "never":
    # absence proves nothing, so the row stays unclear for Prolific's records or a person to decide.
    return None


class ProlificMoney(Money):
    """Prolific's paying calls, one per ledger row; a bonus is set up, then paid by its follow-up row."""

    def work_status(self, row: Row) -> str:
        return prolific_client().get_submission(row.market_ref).status

    def send(self, entry: Row, records: Records) -> Finish:
        """The row's one call at Prolific: a study published or given places, a review, a bonus set up
        or paid."""
        client, p = prolific_client(), entry.params
        if entry.kind in SPENDING:
            account.check_currency(client, entry.currency)
        if entry.kind == RowKind.CREATE_HIT:
            study_id = entry.result_ref or created_study(client, StudySpec.from_params(p["study"]))
            # Kept at once: a retry publishes this draft instead of creating another.
            records.keep_result(entry, study_id)
            gone = records.unwanted(entry, publishing=True)
            if gone:  # the job was cancelled while its draft was made: it stays a draft, recruiting nobody
                left = f"{gone}; study {study_id} left an unpublished draft"
                return Finish(RowState.FAILED, study_id, left)
            # Read first: a retry must not publish a study already publishing or published.
            study = client.move_study(study_id, "PUBLISH")
            return Finish(RowState.CONFIRMED, study.study_id, study.status)
        if entry.kind == RowKind.EXTEND:
            study = client.set_places(entry.market_ref, int(p["places"]))
            return Finish(RowState.CONFIRMED, study.study_id, f"{study.places} places")
        if entry.kind == RowKind.APPROVE:
            return Finish(RowState.CONFIRMED, client.approve_submission(entry.market_ref).submission_id)
        if entry.kind == RowKind.REJECT:
            sub = client.reject_submission(entry.market_ref, p["feedback"], p["category"])
            return Finish(RowState.CONFIRMED, sub.submission_id)
        if entry.kind == RowKind.BONUS:
            # Setting up pays nobody; the PAY row that follows moves the money.
            bulk = client.create_bonus_payment(p["study_id"], [(entry.market_ref, entry.amount)])
            return Finish(RowState.CONFIRMED, bulk.bulk_id, f"total with fees {bulk.total} {entry.currency}")
        if entry.kind == RowKind.PAY:
            return Finish(RowState.CONFIRMED, entry.market_ref, client.pay_bonus_payment(entry.market_ref))
        raise ValueError(f"Prolific has no {entry.kind} call")

    def resolve(self, entry: Row, records: Records) -> Finish | None:
        """An unclear pay row or review decided by reading the submission; None: not yet."""
        if entry.kind == RowKind.PAY:
            return resolve_pay(entry, records)
        if entry.kind == RowKind.CREATE_HIT:
            return resolve_study(entry)
        return super().resolve(entry, records)

    def follow_ups(self, entry: Row, records: Records) -> Sequence[Row]:
        """A confirmed bonus set-up leads to its PAY row; nothing else leads anywhere.

        The PAY row of a set-up bonus: its token comes from the setup row, so however often this
        runs there is one PAY row per attempt, and `engine.execute` claims each at most once."""
        if entry.kind != RowKind.BONUS:
            return []
        if entry.state != RowState.CONFIRMED:
            raise MarketError(f"bonus setup {entry.pk} is {entry.state}; nothing to pay yet")
        if not entry.result_ref:
            # Decided "made" by a person after its reply was lost: its id never reached us, so it
            # cannot be paid.
            raise MarketError(f"bonus setup {entry.pk} has no Prolific id; it cannot be paid")
        pay = records.follow_up(
            entry,
            RowKind.PAY,
            market_ref=entry.result_ref,
            params={"submission_id": entry.market_ref, "bonus_entry": entry.pk},
        )
        return [pay]

    def row_params(self, kind: str, assignment: Assignment) -> dict[str, Any]:
        """A bonus is set up on the study; a rejection carries the job's rejection category."""
        if kind == RowKind.BONUS:
            return {"study_id": assignment.hit.external_id}
        if kind == RowKind.REJECT:
            return {"category": rejection_category(assignment.job.params)}
        return {}


MONEY = ProlificMoney(
    market="Prolific",
    work_noun="submission",
    # A set-up whose reply is lost cannot be read back (Prolific's bonus API is set up and pay, with
    # nothing to list a set-up by), so it is never sent again either: it stays UNCLEAR.
    not_idempotent=frozenset({RowKind.BONUS, RowKind.PAY}),
    pays=frozenset({RowKind.APPROVE, RowKind.PAY}),
    payable=PAYABLE,
    reviewed=REVIEWED,
)
