"""An aggregation run in words, for its admin page and its job's dashboard (no NumPy: the admin imports
it whenever Django starts)."""

from __future__ import annotations

import re

from aggregation.models import AggregationRun
from annotation.models import task_type_name
from config.columns import in_words

_KEPT = re.compile(r"majority in \{([^}]*)\}")


def rule_in_words(run: AggregationRun) -> str:
    """A run's rule as recorded (AgreementRule.describe), its task type and the labels it keeps named
    as a person reads them: "Stance: rho(stance-3) >= 0.5 and majority is Supports or Undermines"."""
    _, found, condition = run.rule.partition(": ")
    if not found:
        return in_words(run.rule)

    def kept(match: re.Match[str]) -> str:
        names = [run.job.label_name(code.strip()) for code in match.group(1).split(",") if code.strip()]
        listed = " or ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)
        return f"majority is {listed}"

    return f"{task_type_name(run.task_type)}: {_KEPT.sub(kept, condition)}"
