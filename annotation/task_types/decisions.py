"""What aggregation hands a task type's write-back hook: one decided item. Pure module: no Django."""

from __future__ import annotations

from dataclasses import dataclass

# The release's spelling of an outcome with a tied top count; never a label a worker can choose.
NO_MAJORITY_LABEL = "NO_MAJORITY_LABEL"


@dataclass(frozen=True)
class Decision:
    """One item's outcome, with the corpus rows it is about.

    ``label`` is decided on the rule's label set (stance: 3-way), ``fine_label`` on the answers'
    (stance: 5-way); a multi-label outcome lists its kept ``labels``, most agreed first.
    """

    item_id: int
    label: str
    fine_label: str
    counts: list[int]
    agreement: float | None
    kept: bool
    cluster_id: int | None = None
    perspective_id: int | None = None
    evidence_id: int | None = None
    claim_id: int | None = None
    labels: tuple[str, ...] = ()
