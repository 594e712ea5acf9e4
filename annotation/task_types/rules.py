"""How a task type declares the way its answers are aggregated, as data. Pure module: no Django.

The aggregation app builds its machinery (label sets, collapses, agreement rules) from these
declarations. Task types never import aggregation: the layers point one way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

# How ρ (or a share of raters) is compared with a threshold: the paper's ≥, the original code's >.
AT_LEAST, ABOVE = ">=", ">"
COMPARISONS = (AT_LEAST, ABOVE)


class RuleDeclarationError(ValueError):
    """A rule a task type declares that cannot be applied (e.g. an unknown comparison)."""


def _check_comparison(name: str, comparison: str) -> None:
    if comparison not in COMPARISONS:
        raise RuleDeclarationError(
            f"rule {name!r}: comparison must be one of {COMPARISONS}, not {comparison!r}"
        )


@dataclass(frozen=True)
class LabelCollapse:
    """A coarser label set the answers are mapped onto before agreement (stance: 5 → 3 labels)."""

    label_set: str
    labels: tuple[str, ...]
    mapping: Mapping[str, str]


@dataclass(frozen=True)
class CategoricalRule:
    """One label per answer. An item is kept when ρ passes ``threshold`` by ``comparison`` and its
    majority is in ``keep``; with ``threshold=None`` the majority alone decides.

    ``labels`` are the answers' labels in the order of every count matrix over them (for stance, the
    release's ``voter_counts`` order), spelled as the rule spells them; ``spelling`` turns a value
    the worker page stored into that spelling. ``keep`` names labels of the collapsed set when there
    is a ``collapse``. ``name`` opens the line recorded with every decision (``stance: rho(…) …``).
    """

    name: str
    label_set: str
    labels: tuple[str, ...]
    keep: frozenset[str]
    threshold: float | None = 0.5
    comparison: str = AT_LEAST
    collapse: LabelCollapse | None = None
    spelling: Callable[[str], str] = str

    def __post_init__(self) -> None:
        _check_comparison(self.name, self.comparison)

    def spell(self, value: str) -> str:
        return self.spelling(value)

    def decided(self, label: str) -> str:
        """The label an answer counts as once collapsed (itself without a collapse)."""
        return self.collapse.mapping[label] if self.collapse is not None else label


@dataclass(frozen=True)
class MultiLabelRule:
    """Several labels per answer, stored joined by ``separator``. A label is kept for an item when the
    share of the item's raters who chose it passes the policy's share by ``comparison``; there is no
    agreement coefficient and nothing to adjudicate one label at a time."""

    name: str
    comparison: str = ABOVE
    separator: str = ","

    def __post_init__(self) -> None:
        _check_comparison(self.name, self.comparison)

    def split(self, answer: str) -> list[str]:
        return [label for label in answer.split(self.separator) if label]


# What a task type declares: None when its answers are not aggregated (free text).
AggregationRule = CategoricalRule | MultiLabelRule
