"""The built-in task types' rules and label sets, built from their declarations as aggregation builds
them: the fixtures of the pure-core tests."""

from __future__ import annotations

from aggregation.responses import Responses
from aggregation.rules import AgreementRule, RuleOutcome, apply_rule
from annotation.task_types import builtin_rules

STANCE_RULE = AgreementRule.declared(builtin_rules.STANCE_RULE)
EVIDENCE_RULE = AgreementRule.declared(builtin_rules.EVIDENCE_RULE)
PARAPHRASE_RULE = AgreementRule.declared(builtin_rules.PARAPHRASE_RULE)

STANCE_5, STANCE_3 = STANCE_RULE.answer_set, STANCE_RULE.label_set
EVIDENCE, PARAPHRASE = EVIDENCE_RULE.label_set, PARAPHRASE_RULE.label_set


def stance_outcome(responses: Responses, rule: AgreementRule = STANCE_RULE) -> RuleOutcome:
    """Stance verification: 5-way answers → voter counts, 5- and 3-way majorities, ρ on 3, kept/rejected."""
    return apply_rule(responses, rule)
