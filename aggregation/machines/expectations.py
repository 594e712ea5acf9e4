"""What to expect of a local machine before it labels: the figures `python -m bench machines_perspectrum`
measured on PERSPECTRUM's release (trained on the train and dev splits, labelling the test split;
routing at δ = 0.05 over 20 random calibration samples of 500 test items, the release's labels standing
in for people's decisions). A job's page says them beside its machine, and the guide states the same
figures (tests/aggregation/test_machine_expectations.py holds the two together). Pure module: no
Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from aggregation.machines.local import MINILM, TFIDF

FEATURES = {MINILM: "the packaged MiniLM", TFIDF: "TF-IDF"}


@dataclass(frozen=True)
class Measured:
    what: str  # the task, as a sentence names it
    accuracy: float  # on the test split
    majority: float  # the test split's most frequent label's share
    cross_validated: float  # 5 folds by claim on train and dev
    accepted: Mapping[float, float]  # ε → mean share of the other test items accepted from the machine
    realised: Mapping[float, float]  # ε → mean realised error of what was accepted (where any was)


# (task type, features) → what the bench measured (the MiniLM run took 547 s, the TF-IDF one 167 s).
MEASURED: dict[tuple[str, str], Measured] = {
    ("stance", MINILM): Measured("stance", 0.5727, 0.5305, 0.6195, {0.05: 0.0, 0.10: 0.0}, {}),
    ("stance", TFIDF): Measured("stance", 0.5925, 0.5305, 0.6595, {0.05: 0.0, 0.10: 0.0}, {}),
    ("paraphrase_verification", MINILM): Measured(
        "paraphrases", 0.8124, 0.6175, 0.8474, {0.05: 0.0, 0.10: 0.371}, {0.10: 0.0674}
    ),
    ("paraphrase_verification", TFIDF): Measured(
        "paraphrases", 0.7258, 0.6175, 0.8494, {0.05: 0.0, 0.10: 0.0}, {}
    ),
}


def _routing(measured: Measured) -> str:
    parts = []
    for target, share in sorted(measured.accepted.items()):
        if share == 0:
            parts.append(f"nothing at ε = {target:g}")
        else:
            realised = measured.realised[target]
            parts.append(f"{share:.1%} of the items at ε = {target:g} (realised error {realised:.4f})")
    return " and ".join(parts)


def expectation(task_type: str, features: str) -> str | None:
    """What to expect of a local machine of ``features`` on ``task_type``; None where nothing was
    measured."""
    measured = MEASURED.get((task_type, features))
    if measured is None:
        return None
    taken = [target for target, share in sorted(measured.accepted.items()) if share > 0]
    if taken:
        verdict = f"expect {measured.what} to go partly to the machine (at ε = {taken[0]:g} or more)"
    else:
        verdict = f"expect {measured.what} to go to people"
    return (
        f"On PERSPECTRUM's release a local machine on {FEATURES[features]} labelled {measured.what} at "
        f"{measured.accuracy:.4f} accuracy (majority class {measured.majority:.4f}; "
        f"{measured.cross_validated:.4f} cross-validated by claim), and routing accepted "
        f"{_routing(measured)}: {verdict}"
    )
