"""Prolific's resources as the adapter reads them, with their units made explicit. Pure: no Django.

Money: a study's `reward`, a submission's `bonus_payments`, a bulk bonus's `amount`, `fees`, `vat`
and `total_amount`, and a workspace's balances are all in cents (pence) at Prolific; only the
`csv_bonuses` lines we send are in the study currency. Each field below says which it holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from annotation.markets.prolific.bonuses import bonus_cents

CENTS_PER_UNIT = Decimal(100)


@dataclass(frozen=True)
class Study:
    study_id: str
    status: str
    places: int
    places_taken: int = 0


@dataclass(frozen=True)
class StudyListed:
    """A study as a project's list shows it: enough to find ours, and to see one nobody here owns."""

    study_id: str
    internal_name: str
    status: str


@dataclass(frozen=True)
class Submission:
    submission_id: str
    participant_id: str
    status: str  # RESERVED | ACTIVE | AWAITING REVIEW | APPROVED | PARTIALLY APPROVED | REJECTED | ...
    study_code: str
    bonus_cents: tuple[int, ...] = ()


@dataclass(frozen=True)
class BulkBonus:
    """A bulk bonus payment set up (not yet paid). Every amount in cents, as Prolific answers."""

    bulk_id: str
    study_id: str
    amount_cents: Decimal
    fees_cents: Decimal
    vat_cents: Decimal
    total_cents: Decimal

    @property
    def total(self) -> Decimal:
        """What leaves the balance, fees and VAT included, in the study currency."""
        return (self.total_cents / CENTS_PER_UNIT).quantize(Decimal("0.01"))


@dataclass(frozen=True)
class Balance:
    currency: str
    available_cents: int


@dataclass(frozen=True)
class Project:
    project_id: str
    workspace_id: str


@dataclass(frozen=True)
class ParticipantGroup:
    group_id: str
    name: str


def study(raw: Mapping[str, Any]) -> Study:
    return Study(
        study_id=str(raw["id"]),
        status=str(raw.get("status", "")),
        places=int(raw.get("total_available_places", 0)),
        places_taken=int(raw.get("places_taken") or 0),
    )


def study_listed(raw: Mapping[str, Any]) -> StudyListed:
    return StudyListed(
        study_id=str(raw["id"]),
        internal_name=str(raw.get("internal_name") or ""),
        status=str(raw.get("status", "")),
    )


def submission(raw: Mapping[str, Any]) -> Submission:
    # The list has `participant_id`; a submission read on its own has `participant`.
    return Submission(
        submission_id=str(raw["id"]),
        participant_id=str(raw.get("participant_id") or raw.get("participant") or ""),
        status=str(raw.get("status", "")),
        study_code=str(raw.get("study_code") or raw.get("entered_code") or ""),
        bonus_cents=bonus_cents(raw.get("bonus_payments") or ()),
    )


def bulk_bonus(raw: Mapping[str, Any], study_id: str) -> BulkBonus:
    def cents(name: str) -> Decimal:
        return Decimal(str(raw.get(name) or 0))

    return BulkBonus(
        bulk_id=str(raw["id"]),
        study_id=str(raw.get("study") or study_id),
        amount_cents=cents("amount"),
        fees_cents=cents("fees"),
        vat_cents=cents("vat"),
        total_cents=cents("total_amount"),
    )


def balance(raw: Mapping[str, Any]) -> Balance:
    return Balance(currency=str(raw.get("currency_code", "")), available_cents=int(raw["available_balance"]))


def project(raw: Mapping[str, Any]) -> Project:
    return Project(project_id=str(raw["id"]), workspace_id=str(raw.get("workspace") or ""))


def participant_group(raw: Mapping[str, Any]) -> ParticipantGroup:
    return ParticipantGroup(group_id=str(raw["id"]), name=str(raw.get("name", "")))


def error_summary(body: Any) -> str:
    """Prolific's error format ({"error": {"title", "detail"}}) as one line; "" for anything else."""
    error = body.get("error") if isinstance(body, Mapping) else None
    if not isinstance(error, Mapping):
        return ""
    title, detail = str(error.get("title") or ""), error.get("detail")
    if isinstance(detail, Mapping):
        detail = "; ".join(
            f"{field}: {' '.join(map(str, v)) if isinstance(v, list) else v}" for field, v in detail.items()
        )
    elif isinstance(detail, list):
        detail = " ".join(map(str, detail))
    return ": ".join(part for part in (title, str(detail or "")) if part)
