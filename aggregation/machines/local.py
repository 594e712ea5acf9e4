"""The `local` machine annotator: a classifier trained on the project's own decided labels of a task
type. Pure module: no Django.

An example is a tuple of texts (claim and perspective for stance; two perspectives for paraphrase
verification). Each text becomes a vector: the dense extra's packaged MiniLM when it is installed
(loaded offline by search.dense), else TF-IDF fitted on the training texts. A pair (u, v) is read as
[u, v, |u − v|, u ∘ v], the usual sentence-pair features (Conneau et al., EMNLP 2017), under a
logistic head (scikit-learn). A classifier remembers what it was trained on and never labels it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sparse
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from aggregation.label_models import FloatArray, IntArray
from annotation.machines.keys import example_key
from search.dense import DenseUnavailableError, Encoder, load_encoder

Example = tuple[str, ...]
TFIDF, MINILM = "tfidf", "minilm"


CACHE_LIMIT = 200_000  # texts (MiniLM: 1.5 kB each, so at most about 300 MB)


class CachingEncoder:
    """A sentence encoder that encodes each distinct text once: the vectors are kept by text (the
    oldest forgotten past ``limit``), so the folds of a cross-validation, a final fit and the labelling
    after it read the same vectors instead of encoding the same texts again."""

    def __init__(self, encoder: Encoder, limit: int = CACHE_LIMIT) -> None:
        self.encoder, self.limit = encoder, limit
        self._vectors: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return self.encoder.encode([])
        found = {text: self._vectors.pop(text) for text in dict.fromkeys(texts) if text in self._vectors}
        missing = [text for text in dict.fromkeys(texts) if text not in found]
        if missing:
            found.update(zip(missing, self.encoder.encode(missing), strict=True))
        self._vectors.update(found)  # the texts just read become the newest
        while len(self._vectors) > self.limit:
            del self._vectors[next(iter(self._vectors))]
        return np.stack([found[text] for text in texts])


_CACHES: dict[object, CachingEncoder] = {}


def dense_encoder() -> Encoder | None:
    """The packaged MiniLM behind the process's text cache when the dense extra is installed, else
    None (TF-IDF is used)."""
    try:
        encoder = load_encoder()
    except DenseUnavailableError:
        return None
    if encoder not in _CACHES:
        _CACHES[encoder] = CachingEncoder(encoder)
    return _CACHES[encoder]


class _Features:
    """Texts to pair features: a fitted TF-IDF (sparse), or a sentence encoder's vectors (dense). The
    encoder is given at each call, never kept (a saved classifier holds no model)."""

    def __init__(self, encoder: Encoder | None) -> None:
        self.tfidf = (
            TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), min_df=2) if encoder is None else None
        )

    def fit(self, examples: Sequence[Example]) -> _Features:
        if self.tfidf is not None:
            self.tfidf.fit([text for example in examples for text in example])
        return self

    def pairs(self, examples: Sequence[Example], encoder: Encoder | None) -> sparse.csr_matrix | np.ndarray:
        columns = [[example[k] for example in examples] for k in range(len(examples[0]))]
        if self.tfidf is not None:
            parts = [sparse.csr_matrix(self.tfidf.transform(texts)) for texts in columns]
            u, v = parts[0], parts[-1]
            return sparse.hstack([*parts, abs(u - v), u.multiply(v)]).tocsr()
        if encoder is None:
            raise ValueError("this classifier reads a sentence encoder's vectors: give it the encoder")
        dense = [np.asarray(encoder.encode(texts), dtype=np.float32) for texts in columns]
        return np.hstack([*dense, np.abs(dense[0] - dense[-1]), dense[0] * dense[-1]])


@dataclass
class LocalClassifier:
    """A logistic head over text features, with the label names and what it was trained on."""

    labels: tuple[str, ...]
    encoder: Encoder | None = None
    trained_on: frozenset[str] = frozenset()
    _features: _Features | None = field(default=None, repr=False)
    _head: LogisticRegression | None = field(default=None, repr=False)

    @property
    def features(self) -> str:
        return TFIDF if self.encoder is None else MINILM

    def fit(self, examples: Sequence[Example], labels: Sequence[str]) -> LocalClassifier:
        codes = np.array([self.labels.index(label) for label in labels])
        self._features = _Features(self.encoder).fit(examples)
        features = self._features.pairs(examples, self.encoder)
        self._head = LogisticRegression(max_iter=2000, C=4.0).fit(features, codes)
        self.trained_on = frozenset(map(example_key, examples))
        return self

    def probabilities(self, examples: Sequence[Example]) -> FloatArray:
        """(examples × labels): the head's probabilities, whatever the examples."""
        if self._features is None or self._head is None:
            raise ValueError("the classifier is not trained")
        found = self._head.predict_proba(self._features.pairs(examples, self.encoder))
        full = np.zeros((len(examples), len(self.labels)))
        full[:, self._head.classes_] = found
        return full

    def without_encoder(self) -> LocalClassifier:
        """The classifier to save: its head and features, no model."""
        return replace(self, encoder=None)

    def with_encoder(self, encoder: Encoder | None) -> LocalClassifier:
        """A saved classifier made ready to label again (a dense one needs the encoder it was fit on)."""
        return replace(self, encoder=encoder)

    def label(self, examples: Sequence[Example]) -> tuple[IntArray, FloatArray, np.ndarray]:
        """Each example's label code and score (its top probability), and which may be labelled at
        all: an example the classifier was trained on gets none (code −1, score nan)."""
        unseen = np.array([example_key(example) not in self.trained_on for example in examples], dtype=bool)
        codes, scores = np.full(len(examples), -1), np.full(len(examples), np.nan)
        if unseen.any():
            found = self.probabilities([e for e, keep in zip(examples, unseen, strict=True) if keep])
            codes[unseen], scores[unseen] = found.argmax(axis=1), found.max(axis=1)
        return codes.astype(np.intp), scores, unseen


def cross_validated(
    examples: Sequence[Example],
    labels: Sequence[str],
    names: tuple[str, ...],
    groups: Sequence[object],
    *,
    folds: int = 5,
) -> tuple[IntArray, FloatArray]:
    """Out-of-fold label codes and scores: each example labelled by a classifier trained neither on it
    nor on anything of its group (its claim: perspectives of one claim share words, and folds that
    split them would flatter the classifier)."""
    codes = np.array([names.index(label) for label in labels])
    predicted, scores = np.zeros(len(examples), dtype=np.intp), np.zeros(len(examples))
    encoder = dense_encoder()
    for train, held in GroupKFold(folds).split(np.zeros(len(codes)), codes, list(groups)):
        model = LocalClassifier(names, encoder).fit([examples[i] for i in train], [labels[i] for i in train])
        found = model.probabilities([examples[i] for i in held])
        predicted[held], scores[held] = found.argmax(axis=1), found.max(axis=1)
    return predicted, scores
