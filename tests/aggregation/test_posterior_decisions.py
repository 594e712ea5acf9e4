"""The posteriors the decisions read (issue 46): calibrated on the items whose answer people know when
there are enough of them (the job's own, else its task type's), cross-fitted; else as they are."""

from __future__ import annotations

import numpy as np

from aggregation.posterior_decisions import AS_THEY_ARE, TASK_TYPE, THIS_JOB, KnownAnswers


def overconfident(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[int, str]]:
    """A label model sure of every item (posterior 0.99) and right on about 70% of them."""
    rng = np.random.default_rng(seed)
    items = np.arange(100, 100 + n)
    labels = np.array(["yes"] * n, dtype=object)
    truth = {int(item): ("yes" if rng.random() < 0.7 else "no") for item in items}
    return items, labels, np.full(n, 0.99), truth


def test_an_overconfident_model_is_read_at_how_often_it_was_right() -> None:
    items, labels, raw, truth = overconfident(200)
    known = dict(list(truth.items())[:60])
    posteriors = KnownAnswers(known).posteriors(items, labels, raw)
    assert posteriors.source == THIS_JOB and posteriors.items == 60
    confidence = posteriors.confidence(items, raw)
    right = np.mean([truth[i] == "yes" for i in known])
    assert np.allclose(confidence[60:], right)  # the others: the fit on all 60
    assert (confidence < 0.9).all()
    assert "calibrated posteriors" in posteriors.sentence() and "this job's 60 items" in posteriors.sentence()


def test_a_calibration_item_never_calibrates_itself() -> None:
    items, labels, raw, truth = overconfident(40, seed=1)
    posteriors = KnownAnswers(truth).posteriors(items, labels, raw)
    assert posteriors.calibration is not None
    confidence = posteriors.confidence(items, raw)
    assert np.allclose(confidence, posteriors.calibration.cross_fitted)
    assert posteriors.own == dict(
        zip(items.tolist(), posteriors.calibration.cross_fitted.tolist(), strict=True)
    )


def test_too_few_of_the_jobs_own_borrow_the_task_types() -> None:
    items, labels, raw, truth = overconfident(50, seed=2)
    known = dict(list(truth.items())[:4])
    pooled = KnownAnswers(known, np.full(30, 0.99), np.r_[np.ones(15), np.zeros(15)], "stance")
    posteriors = pooled.posteriors(items, labels, raw)
    assert (posteriors.source, posteriors.items) == (TASK_TYPE, 34)
    assert set(posteriors.own) == set(known)
    assert "the stance jobs' 34 items" in posteriors.sentence()
    assert posteriors.confidence(items, raw)[10] < 0.6


def test_with_too_few_anywhere_the_posteriors_are_read_as_they_are() -> None:
    items, labels, raw, truth = overconfident(50, seed=3)
    known = dict(list(truth.items())[:5])
    posteriors = KnownAnswers(known, np.full(4, 0.99), np.ones(4), "stance").posteriors(items, labels, raw)
    assert (posteriors.source, posteriors.items, posteriors.calibration) == (AS_THEY_ARE, 9, None)
    assert np.array_equal(posteriors.confidence(items, raw), raw)
    assert "the posteriors as they are: 9 items" in posteriors.sentence()
    assert "at least 10 are needed" in posteriors.sentence()
