from itertools import pairwise

import numpy as np
import pandas as pd
import pytest

from aggregation.dawid_skene import DawidSkene
from aggregation.label_models import Aggregate, LabelModel, MajorityVote
from aggregation.labels import NO_MAJORITY, LabelSet
from aggregation.mace import MACE
from aggregation.responses import Responses
from tests.aggregation.crowd import simulate
from tests.aggregation.published import dawid_skene_rows

ANAESTHESIA = LabelSet("anaesthesia", ("1", "2", "3", "4"))
MODELS: list[LabelModel] = [MajorityVote(), DawidSkene(), MACE()]
# The 1979 paper's method is maximum likelihood: no prior on the confusion matrices (the default's
# "better than chance" prior pulls patient 2 back to the majority's 3).
MAXIMUM_LIKELIHOOD = DawidSkene(smoothing=0.01, diagonal_prior=0.0)


@pytest.fixture(scope="module")
def anaesthesia() -> Responses:
    return Responses.from_rows(dawid_skene_rows(), ANAESTHESIA)


@pytest.fixture(scope="module")
def crowdkit():
    return pytest.importorskip(
        "crowdkit.aggregation", reason="crowd-kit (requirements-dev.txt) is not installed: no cross-check"
    )


@pytest.fixture(scope="module")
def crowdkit_mace(crowdkit):
    # crowd-kit's MACE runs variational inference from 10 random starts: seconds even on 315 labels.
    return crowdkit.MACE(random_state=0).fit(as_frame(dawid_skene_rows()))


def as_frame(rows: list[tuple[int, int, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["task", "worker", "label"])


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_every_model_gives_a_label_per_item_and_a_reliability_per_worker(model, anaesthesia):
    result = model.fit(anaesthesia)
    assert isinstance(result, Aggregate)
    assert result.labels.shape == (45,)
    assert result.worker_reliability.shape == (5,)
    assert np.all((result.worker_reliability >= 0) & (result.worker_reliability <= 1))
    np.testing.assert_allclose(result.probabilities.sum(axis=1), 1.0)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_fitting_twice_gives_the_same_result(model, anaesthesia):
    first, second = model.fit(anaesthesia), model.fit(anaesthesia)
    assert first.labels.tolist() == second.labels.tolist()
    assert first.worker_reliability.tolist() == second.worker_reliability.tolist()


def test_majority_vote_leaves_a_tie_undecided(anaesthesia):
    # Patient 12: three 2s, three 3s and a 4.
    labels = MajorityVote().fit(anaesthesia).labels_by_item()
    assert labels[12] == "NO_MAJORITY_LABEL"
    assert MajorityVote().fit(anaesthesia).labels[11] == NO_MAJORITY


def test_majority_vote_items_first_then_its_workers_is_the_whole_fit(anaesthesia):
    items = MajorityVote(workers=False).fit(anaesthesia)
    assert np.isnan(items.worker_reliability).all() and items.worker_confusion is None
    whole, completed = MajorityVote().fit(anaesthesia), MajorityVote.with_workers(items, anaesthesia)
    assert completed.labels.tolist() == whole.labels.tolist()
    assert np.array_equal(completed.probabilities, whole.probabilities)
    assert np.array_equal(completed.worker_reliability, whole.worker_reliability, equal_nan=True)
    assert np.array_equal(completed.worker_confusion, whole.worker_confusion)


def test_dawid_skene_matches_crowdkit_on_the_dawid_skene_data(anaesthesia, crowdkit):
    reference = crowdkit.DawidSkene(n_iter=100).fit(as_frame(dawid_skene_rows()))
    ours = MAXIMUM_LIKELIHOOD.fit(anaesthesia)
    assert ours.converged
    assert ours.label_names() == reference.labels_.sort_index().astype(str).tolist()
    # Expected accuracy Σ_c π_c θ[c, c] from crowd-kit's priors and confusion matrices.
    priors = reference.priors_.sort_index().to_numpy()
    for w, worker in enumerate(anaesthesia.workers.tolist()):
        confusion = reference.errors_.loc[worker].sort_index()[sorted(reference.errors_.columns)].to_numpy()
        assert ours.worker_reliability[w] == pytest.approx(float(priors @ np.diag(confusion)), abs=0.01)


def test_dawid_skene_overrules_the_majority_where_the_better_observers_disagree(anaesthesia):
    # Patient 2 (3,3,3 from observer 1; 4,3,3,4 from the others) is the textbook case.
    assert MajorityVote().fit(anaesthesia).labels_by_item()[2] == "3"
    assert MAXIMUM_LIKELIHOOD.fit(anaesthesia).labels_by_item()[2] == "4"


def test_dawid_skene_em_never_lowers_the_likelihood(anaesthesia):
    trace = DawidSkene(smoothing=1e-9, diagonal_prior=0.0).log_likelihood_trace(anaesthesia, steps=15)
    assert all(b >= a - 1e-6 for a, b in pairwise(trace))
    assert trace[-1] > trace[0]


def test_mace_agrees_with_crowdkit_on_every_patient_without_a_tied_vote(anaesthesia, crowdkit_mace):
    reference = crowdkit_mace.labels_.sort_index()
    ours = MACE().fit(anaesthesia).label_names()
    tied = MajorityVote().fit(anaesthesia).labels == NO_MAJORITY
    differing = [i for i, (a, b) in enumerate(zip(ours, reference.astype(str), strict=True)) if a != b]
    assert all(tied[i] for i in differing)


def test_mace_finds_the_least_reliable_observer_that_crowdkit_finds(anaesthesia, crowdkit_mace):
    # crowd-kit's spamming_ columns are P(spamming), P(knowing).
    knowing = np.asarray(crowdkit_mace.spamming_)[:, 1]
    ours = MACE().fit(anaesthesia).worker_reliability
    assert int(np.argmin(ours)) == int(np.argmin(knowing))


@pytest.mark.parametrize("model", [DawidSkene(), MACE()], ids=lambda m: m.name)
def test_label_models_beat_the_average_worker_and_the_majority_with_spammers(model):
    crowd = simulate()
    result = model.fit(crowd.responses)
    accuracy = float(np.mean(result.labels == crowd.truth))
    majority = float(np.mean(MajorityVote().fit(crowd.responses).labels == crowd.truth))
    assert accuracy > float(np.mean(crowd.worker_accuracy))
    assert accuracy > majority


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_spammers_get_the_lowest_reliabilities(model):
    crowd = simulate()
    reliability = model.fit(crowd.responses).worker_reliability
    assert reliability[crowd.spammers].max() < reliability[~crowd.spammers].min()


def bench_crowd(crowdkit):
    """The bench's simulated crowd (3 labels, 5 answers per item, 20% spammers) at 4,000 items: ours
    and crowd-kit's accuracy for a pair of models, crowd-kit fed rows sorted by worker and label (its
    MACE mixes workers up on unsorted rows), as the benchmarks feed it."""
    from bench.aggregation import crowdkit_frame, simulated_labels

    items, workers, labels, truth = simulated_labels(4_000, 5, 100, 3)
    responses = Responses.from_codes(items, workers, labels, LabelSet("bench-3", ("a", "b", "c")))
    frame = crowdkit_frame(items, workers, labels)

    def accuracies(ours, theirs) -> tuple[float, float]:
        predicted = theirs.fit_predict(frame).sort_index()
        their = float(np.mean(predicted.to_numpy(dtype=np.int64) == truth[predicted.index.to_numpy()]))
        return float(np.mean(ours.fit(responses).labels == truth)), their

    return accuracies


def test_dawid_skene_is_never_worse_than_crowdkits_on_the_simulated_benchmark(crowdkit):
    ours, theirs = bench_crowd(crowdkit)(DawidSkene(), crowdkit.DawidSkene(n_iter=100))
    assert ours >= theirs


@pytest.mark.xfail(
    strict=True,
    reason="fed sorted rows, crowd-kit's MACE is right on 0.9240 of these 4,000 items, ours on 0.92075 "
    "(its strategy prior 10 suits honest workers whose errors are uniform; ours is 1, for skewed "
    "binary crowds). Over 21 seeds of this generator ours is 0.00032 behind on average (SE 0.00030, "
    "`python -m bench mace_seeds`), within noise; no variant tried is ahead robustly "
    "(docs/benchmarks.md, bench aggregation); on the bench's 100k labels ours is ahead, "
    "0.9379 against 0.9334",
)
def test_mace_is_never_worse_than_crowdkits_on_the_simulated_benchmark(crowdkit):
    ours, theirs = bench_crowd(crowdkit)(MACE(), crowdkit.MACE(random_state=0))
    assert ours >= theirs


def test_mace_says_honestly_whether_it_converged(anaesthesia):
    cut_short = MACE(max_iter=3, burn_in=3).fit(anaesthesia)
    assert (cut_short.iterations, cut_short.converged) == (3, False)
    full = MACE().fit(anaesthesia)
    assert full.converged and full.iterations < MACE().max_iter


def test_more_starts_never_lower_the_likelihood_mace_keeps(anaesthesia):
    one = MACE(restarts=1).fit(anaesthesia).log_likelihood
    assert MACE(restarts=8).fit(anaesthesia).log_likelihood >= one - 1e-9
