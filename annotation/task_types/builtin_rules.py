"""Label spellings and declared rules of the built-in task types. Pure module: no Django.

Kept apart from the task type modules (which need the ORM) so code without Django (the aggregation
core's tests, benchmarks) can read them. The stance labels' order *is* the release's ``voter_counts``
order.
"""

from __future__ import annotations

from annotation.task_types.decisions import NO_MAJORITY_LABEL
from annotation.task_types.rules import CategoricalRule, LabelCollapse, MultiLabelRule

SUPPORT = "SUPPORT"
MILDLY_SUPPORT = "MILDLY_SUPPORT"
MILDLY_UNDERMINE = "MILDLY_UNDERMINE"
UNDERMINE = "UNDERMINE"
NOT_VALID = "NOT_VALID"

SUPPORTED = "SUPPORTED"
NOT_SUPPORTED = "NOT_SUPPORTED"

SAME = "SAME"
DIFFERENT = "DIFFERENT"

# The release's voter_counts order: [support, mildly support, mildly undermine, undermine, not valid].
STANCE_5_LABELS = (SUPPORT, MILDLY_SUPPORT, MILDLY_UNDERMINE, UNDERMINE, NOT_VALID)
STANCE_3_LABELS = (SUPPORT, UNDERMINE, NOT_VALID)

# Paper §4.1 step 2a: "collapsing mildly-support and mildly-oppose into support and oppose".
STANCE_5_TO_3: dict[str, str] = {
    SUPPORT: SUPPORT,
    MILDLY_SUPPORT: SUPPORT,
    MILDLY_UNDERMINE: UNDERMINE,
    UNDERMINE: UNDERMINE,
    NOT_VALID: NOT_VALID,
}

# Flipping a stance (a perspective copied onto an opposing claim) swaps the sides, keeps the intensity.
STANCE_FLIP: dict[str, str] = {
    SUPPORT: UNDERMINE,
    MILDLY_SUPPORT: MILDLY_UNDERMINE,
    MILDLY_UNDERMINE: MILDLY_SUPPORT,
    UNDERMINE: SUPPORT,
    NOT_VALID: NOT_VALID,
    NO_MAJORITY_LABEL: NO_MAJORITY_LABEL,
}


# Paper §4.1 step 2a and the spec's defaults.
#
# How the PERSPECTRUM v1.0 release's labels follow from its voter_counts (checked on all 5,095 clusters
# in tests/aggregation/test_rules.py): stance_label_5 is the plurality of the five counts and
# stance_label_3 the plurality of the collapsed counts [S + MS, MU + U, NV], each NO_MAJORITY_LABEL on
# a tied top count. So 1 support + 1 mildly support is 3-way SUPPORT (2–0) yet 5-way NO_MAJORITY_LABEL
# (1–1): that is how NO_MAJORITY_LABEL sits beside a SUPPORT/UNDERMINE 3-way label. 4,728 clusters
# follow this exactly. 348 are stance-flipped copies (made when a perspective was copied to an opposing
# claim) whose counts were flipped by reversing the list — [NV, U, MU, MS, S] — rather than by swapping
# the sides; their labels are the flip of the rule applied to the reversed counts. 19 more are flipped
# copies whose 5-way label is NO_MAJORITY_LABEL and whose counts were left as they were. Every
# reproduced cluster has ρ ≥ 0.5 on 3 labels and none has ρ = 0.5, so the release cannot tell ≥ (paper)
# from > (original code); hence the comparison is an argument.
STANCE_RULE = CategoricalRule(
    "stance",
    "stance-5",
    STANCE_5_LABELS,
    frozenset({SUPPORT, UNDERMINE}),
    collapse=LabelCollapse("stance-3", STANCE_3_LABELS, STANCE_5_TO_3),
)
# Step 3: "keep if ρ ≥ 0.5 and supported is the majority". The worker pages store lower case.
EVIDENCE_RULE = CategoricalRule(
    "evidence", "evidence", (SUPPORTED, NOT_SUPPORTED), frozenset({SUPPORTED}), spelling=str.upper
)
# Step 2b: a paraphrase judged "same" by the majority joins its original's cluster.
PARAPHRASE_RULE = CategoricalRule(
    "paraphrase", "paraphrase", (SAME, DIFFERENT), frozenset({SAME}), threshold=None, spelling=str.upper
)
# Topics: kept per claim by a strict majority of its raters (the share itself is a policy setting).
TOPIC_RULE = MultiLabelRule("topics")

# VAST (Allaway & McKeown 2020, §3.1.2): stance on a 5-point scale, mapped to pro/con/neutral, or a
# correction of the proposed topic (whose stance, given on the new topic, is kept in the answer's value).
STRONGLY_CON = "STRONGLY_CON"
CON = "CON"
NEUTRAL = "NEUTRAL"
PRO = "PRO"
STRONGLY_PRO = "STRONGLY_PRO"
CORRECTED = "CORRECTED"
VAST_5_LABELS = (STRONGLY_CON, CON, NEUTRAL, PRO, STRONGLY_PRO)
VAST_5_TO_3: dict[str, str] = {
    STRONGLY_CON: CON,
    CON: CON,
    NEUTRAL: NEUTRAL,
    PRO: PRO,
    STRONGLY_PRO: PRO,
}
# "For all examples, we select the majority vote as the final label": no ρ threshold. A corrected
# topic is an outcome of its own, kept out of the stance labels of the proposed topic.
VAST_RULE = CategoricalRule(
    "vast_stance",
    "vast-5",
    (*VAST_5_LABELS, CORRECTED),
    frozenset({PRO, CON, NEUTRAL}),
    threshold=None,
    collapse=LabelCollapse("vast-3", (CON, NEUTRAL, PRO, CORRECTED), {**VAST_5_TO_3, CORRECTED: CORRECTED}),
    spelling=str.upper,
)
# Counter-speech selection: the candidates' letters, as shown; the crowd's pick is the plurality (no
# ρ threshold: every pick is a real answer, and accuracy against the known one is what is reported).
COUNTER_SPEECH_LETTERS = ("A", "B", "C", "D", "E")
COUNTER_SPEECH_RULE = CategoricalRule(
    "counter_speech",
    "counter-speech",
    COUNTER_SPEECH_LETTERS,
    frozenset(COUNTER_SPEECH_LETTERS),
    threshold=None,
)
