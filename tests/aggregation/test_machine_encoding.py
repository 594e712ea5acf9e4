"""The local machine's dense features (issue 46): each distinct text is encoded once, however many
folds, classifiers and calls read it; the vectors stay dense."""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest

from aggregation.machines import local
from aggregation.machines.local import MINILM, CachingEncoder, LocalClassifier, cross_validated
from tests.aggregation.test_machine_local import examples


class CountingEncoder:
    """A fake sentence encoder: a text's vector is a hash of its words; every text it is asked for
    is counted."""

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.asked.update(texts)
        rows = np.zeros((len(texts), 16), dtype=np.float32)
        for row, text in zip(rows, texts, strict=True):
            for word in text.split():
                row[hash(word) % 16] += 1.0
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> CountingEncoder:
    fake = CountingEncoder()
    monkeypatch.setattr(local, "load_encoder", lambda: fake)
    monkeypatch.setattr(local, "_CACHES", {})
    return fake


def test_each_distinct_text_is_encoded_once_across_a_cross_validation(counting: CountingEncoder) -> None:
    rows, labels = examples(150, 4)
    groups = [row[0] for row in rows]
    codes, scores = cross_validated(rows, labels, ("against", "for"), groups)
    distinct = {text for row in rows for text in row}
    assert len(distinct) < 2 * len(rows)  # claims repeat: a text asked for twice must not be encoded twice
    assert set(counting.asked) == distinct
    assert max(counting.asked.values()) == 1
    assert len(codes) == len(scores) == 150


def test_training_and_labelling_after_it_encode_nothing_again(counting: CountingEncoder) -> None:
    rows, labels = examples(120, 5)
    cross_validated(rows, labels, ("against", "for"), [row[0] for row in rows])
    model = LocalClassifier(("against", "for"), local.dense_encoder()).fit(rows, labels)
    model.probabilities(rows[:10])
    assert model.features == MINILM
    assert max(counting.asked.values()) == 1


def test_dense_pair_features_are_a_numpy_array(counting: CountingEncoder) -> None:
    rows, labels = examples(40, 6)
    model = LocalClassifier(("against", "for"), local.dense_encoder()).fit(rows, labels)
    assert model._features is not None
    features = model._features.pairs(rows[:5], model.encoder)
    assert isinstance(features, np.ndarray) and features.shape == (5, 4 * 16)


def test_a_saved_classifier_keeps_no_encoder_and_labels_with_the_one_given(counting: CountingEncoder) -> None:
    rows, labels = examples(60, 7)
    model = LocalClassifier(("against", "for"), local.dense_encoder()).fit(rows, labels)
    saved = pickle.dumps(model.without_encoder())
    assert b"CountingEncoder" not in saved
    again = pickle.loads(saved).with_encoder(local.dense_encoder())
    new = [("claim 1 about schools", "this helps pupils a lot")]
    assert np.allclose(again.probabilities(new), model.probabilities(new))


def test_the_cache_forgets_its_oldest_texts_past_its_limit() -> None:
    fake = CountingEncoder()
    cache = CachingEncoder(fake, limit=3)
    first = cache.encode(["a", "b", "c", "a"])
    assert first.shape == (4, 16) and np.allclose(first[0], first[3])
    cache.encode(["d"])
    cache.encode(["b", "a"])
    assert fake.asked == Counter({"a": 2, "b": 1, "c": 1, "d": 1})
