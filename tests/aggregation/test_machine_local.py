"""The local classifier's pure core (issue 46): TF-IDF pair features under a logistic head."""

from __future__ import annotations

import numpy as np

from aggregation.machines.local import TFIDF, LocalClassifier, cross_validated, example_key

GOOD = ["helps", "benefits", "protects", "improves", "supports"]
BAD = ["harms", "hurts", "endangers", "worsens", "damages"]


def examples(n: int, seed: int) -> tuple[list[tuple[str, str]], list[str]]:
    rng = np.random.default_rng(seed)
    rows, labels = [], []
    for i in range(n):
        side = i % 2
        verb = (GOOD, BAD)[side][rng.integers(5)]
        rows.append((f"claim {i % 7} about schools", f"this {verb} pupils in case {rng.integers(1000)}"))
        labels.append(("for", "against")[side])
    return rows, labels


def test_a_plain_signal_is_learnt_and_scores_are_probabilities() -> None:
    train, train_labels = examples(200, 1)
    test, test_labels = examples(100, 2)
    model = LocalClassifier(("against", "for")).fit(train, train_labels)
    codes, scores, unseen = model.label(test)
    assert model.features == TFIDF
    assert unseen.all()
    assert np.mean(np.array(model.labels)[codes] == np.array(test_labels)) >= 0.95
    assert ((scores >= 0.5) & (scores <= 1.0)).all()


def test_an_example_it_was_trained_on_gets_no_label() -> None:
    train, labels = examples(60, 3)
    model = LocalClassifier(("against", "for")).fit(train, labels)
    codes, scores, unseen = model.label([train[0], ("a new claim", "this helps pupils")])
    assert unseen.tolist() == [False, True]
    assert codes[0] == -1 and np.isnan(scores[0]) and codes[1] >= 0
    assert example_key(train[0]) in model.trained_on


def test_cross_validation_labels_every_example_out_of_fold() -> None:
    rows, labels = examples(150, 4)
    groups = [row[0] for row in rows]
    codes, scores = cross_validated(rows, labels, ("against", "for"), groups)
    assert len(codes) == len(scores) == 150
    assert np.mean(np.array(["against", "for"])[codes] == np.array(labels)) >= 0.9
