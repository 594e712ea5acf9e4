"""Index sync with the corpus, `rebuild_index`, and the candidate services over the database."""

from __future__ import annotations

import logging
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from corpus.models import Claim, ClusterMember, Evidence, Perspective, PerspectiveCluster, Status
from search import dense, finetune, services
from search.base import Kind
from search.websources import FileWebSource
from tests.search.conftest import FIXTURES, WordEncoder

pytestmark = pytest.mark.django_db


def make_claim(cid: int, text: str, perspectives: list[tuple[int, str]], status: str = Status.KEPT) -> Claim:
    claim = Claim.objects.create(cid=cid, text=text)
    for position, (pid, ptext) in enumerate(perspectives):
        perspective = Perspective.objects.create(pid=pid, text=ptext, source="idebate")
        cluster = PerspectiveCluster.objects.create(claim=claim, position=position, status=status)
        ClusterMember.objects.create(cluster=cluster, perspective=perspective, position=0)
    return claim


@pytest.fixture
def corpus(search_settings: Path) -> None:
    make_claim(
        499,
        "Vaccination must be made compulsory",
        [
            (3695, "Vaccination protects children from deadly diseases"),
            (3698, "Parents should decide on vaccines"),
        ],
    )
    make_claim(
        500, "Zoos should be banned", [(3700, "Keeping animals in zoos is cruel")], status=Status.CANDIDATE
    )
    Evidence.objects.create(
        eid=1,
        text="Vaccines saved millions of children from deadly diseases; animals in zoos were not asked.",
    )
    Evidence.objects.create(eid=2, text="", text_missing=True)


def test_rebuild_index_command_indexes_every_kind_into_the_configured_directory(
    corpus: None, search_settings: Path
) -> None:
    out, err = StringIO(), StringIO()
    call_command("rebuild_index", stdout=out, stderr=err)
    assert [line.split(" in ")[0] for line in err.getvalue().splitlines()] == [
        "index perspective: 3 documents", "index evidence: 1 documents", "index claim: 2 documents",
    ]  # fmt: skip
    assert out.getvalue().splitlines() == [
        "perspective: 3 documents indexed",
        "evidence: 1 documents indexed",
        "claim: 2 documents indexed",
    ]
    assert (search_settings / "perspective").is_dir()
    assert services.get_backend().search(Kind.CLAIM, "zoos", 5)[0].id == 500


def test_rebuild_index_can_rebuild_one_kind(corpus: None) -> None:
    out = StringIO()
    call_command("rebuild_index", "--kind", "claim", stdout=out)
    assert out.getvalue().strip() == "claim: 2 documents indexed"
    assert services.get_backend().count(Kind.PERSPECTIVE) == 0


def test_saving_a_perspective_syncs_the_index_after_commit(
    search_settings: Path,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        Perspective.objects.create(pid=1, text="Zoos protect endangered species", source="idebate")
        Perspective.objects.create(pid=2, text="Zoos are cruel", source="idebate")
    assert {h.id for h in services.get_backend().search(Kind.PERSPECTIVE, "zoos", 5)} == {1, 2}


def test_editing_and_deleting_are_synced_too(
    search_settings: Path,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        claim = Claim.objects.create(cid=7, text="Zoos should be banned")
    with django_capture_on_commit_callbacks(execute=True):
        claim.text = "Museums should be free"
        claim.save()
    backend = services.get_backend()
    assert backend.search(Kind.CLAIM, "zoos", 5) == []
    assert [h.id for h in backend.search(Kind.CLAIM, "museums", 5)] == [7]
    with django_capture_on_commit_callbacks(execute=True):
        claim.delete()
    assert backend.count(Kind.CLAIM) == 0


def test_nothing_is_synced_when_sync_is_off(
    search_settings: Path,
    settings,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> None:
    settings.SEARCH_SYNC = False
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        Perspective.objects.create(pid=1, text="Zoos are cruel", source="idebate")
    assert callbacks == []


def test_evidence_candidates_come_from_retained_perspectives_only(corpus: None) -> None:
    services.rebuild_index()
    items = services.evidence_verification_candidates(k=8)
    assert [i.evidence_id for i in items] == [1]
    ids = [p.id for p in items[0].perspectives]
    assert ids[0] == 3695
    assert 3700 not in ids  # its cluster is still a candidate, not retained


def test_paraphrase_hints_leave_out_the_perspective_itself(corpus: None) -> None:
    services.rebuild_index()
    items = services.paraphrase_hint_candidates([3695], k=15)
    assert [i.perspective_id for i in items] == [3695]
    assert 3695 not in {h.id for h in items[0].hints}


def test_web_candidates_use_the_claims_retained_perspectives(corpus: None) -> None:
    items = services.web_perspective_candidates(499, k=1, source=FileWebSource(FIXTURES / "web_pages.jsonl"))
    assert {i.perspective_id for i in items} == {3695, 3698}
    assert all(i.claim_id == 499 for i in items)


def test_web_source_comes_from_settings(settings) -> None:  # type: ignore[no-untyped-def]
    settings.WEB_SEARCH_SOURCE = str(FIXTURES / "web_pages.jsonl")
    assert isinstance(services.get_web_source(), FileWebSource)
    settings.WEB_SEARCH_SOURCE = ""
    with pytest.raises(services.SearchConfigError):
        services.get_web_source()


def test_similar_claim_pairs_read_the_corpus_claims(corpus: None) -> None:
    Claim.objects.create(cid=501, text="Zoos must be banned")
    services.rebuild_index([Kind.CLAIM])
    pairs = services.similar_claim_pair_candidates(n=350)
    assert (pairs[0].first_id, pairs[0].second_id) == (500, 501)


def test_an_unknown_backend_name_is_a_config_error(settings) -> None:  # type: ignore[no-untyped-def]
    settings.SEARCH_BACKEND = "solr"
    services.get_backend.cache_clear()
    with pytest.raises(services.SearchConfigError):
        services.get_backend()
    services.get_backend.cache_clear()


@pytest.fixture
def hybrid_ranking(settings, monkeypatch: pytest.MonkeyPatch) -> WordEncoder:  # type: ignore[no-untyped-def]
    """SEARCH_RANKING=hybrid with the fake word encoder standing in for MiniLM."""
    encoder = WordEncoder()
    settings.SEARCH_RANKING = "hybrid"
    monkeypatch.setattr(dense, "load_encoder", lambda: encoder)
    services.get_encoder.cache_clear()
    return encoder


def test_bm25_ranking_is_the_index_backend_itself(corpus: None) -> None:
    assert services.ranking_backend(services.EVIDENCE_RANKING) is services.get_backend()


def test_hybrid_ranking_encodes_the_pool_and_the_claims_for_evidence_candidates(
    corpus: None, hybrid_ranking: WordEncoder
) -> None:
    services.rebuild_index()
    items = services.evidence_verification_candidates(k=8)
    assert items[0].perspectives[0].id == 3695
    assert 3700 not in {p.id for p in items[0].perspectives}
    assert "Vaccination protects children from deadly diseases" in hybrid_ranking.encoded
    assert "Zoos should be banned" in hybrid_ranking.encoded  # a hub reference query


def test_hybrid_paraphrase_hints_still_leave_out_the_perspective_and_its_cluster(
    corpus: None, hybrid_ranking: WordEncoder
) -> None:
    services.rebuild_index()
    items = services.paraphrase_hint_candidates([3695], k=15)
    hints = {h.id for h in items[0].hints}
    assert 3695 not in hints
    assert hints == {3698, 3700}  # dense ranking reaches perspectives sharing no word


def test_hybrid_claim_pairs_find_the_near_duplicate_claims(corpus: None, hybrid_ranking: WordEncoder) -> None:
    Claim.objects.create(cid=501, text="Zoos must be banned")
    services.rebuild_index([Kind.CLAIM])
    pairs = services.similar_claim_pair_candidates(n=350)
    assert (pairs[0].first_id, pairs[0].second_id) == (500, 501)
    assert 0 < pairs[0].score <= 1.0 + 1e-6


def test_hybrid_without_the_dense_extra_falls_back_to_bm25_with_a_warning(
    corpus: None, settings, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:  # type: ignore[no-untyped-def]
    def missing() -> WordEncoder:
        raise dense.DenseUnavailableError("torch missing")

    settings.SEARCH_RANKING = "hybrid"
    monkeypatch.setattr(dense, "load_encoder", missing)
    with caplog.at_level(logging.WARNING, logger="search.services"):
        backend = services.ranking_backend(services.EVIDENCE_RANKING)
    assert backend is services.get_backend()
    assert "ranking by BM25 instead: torch missing" in caplog.text


def test_an_unknown_ranking_name_is_a_config_error(corpus: None, settings) -> None:  # type: ignore[no-untyped-def]
    settings.SEARCH_RANKING = "neural"
    with pytest.raises(services.SearchConfigError):
        services.paraphrase_hint_candidates([3695])


@pytest.fixture
def fake_models(settings, monkeypatch: pytest.MonkeyPatch) -> dict[Path | None, WordEncoder]:  # type: ignore[no-untyped-def]
    """SEARCH_RANKING=best with fake encoders standing in for the packaged and the fine-tuned MiniLM."""
    loaded: dict[Path | None, WordEncoder] = {}
    settings.SEARCH_RANKING = "best"
    monkeypatch.setattr(dense, "load_encoder", lambda folder=None: loaded.setdefault(folder, WordEncoder()))
    services.get_encoder.cache_clear()
    return loaded


def train_fake_model() -> None:
    """What `fine_tune` leaves behind, as far as the ranking can tell: a folder with its training.json."""
    folder = services.tuned_model_dir()
    folder.mkdir(parents=True)
    (folder / finetune.TRAINING_FILE).write_text("{}")


def test_best_ranking_uses_the_packaged_model_until_one_is_trained_here(
    corpus: None, fake_models: dict[Path | None, WordEncoder]
) -> None:
    services.rebuild_index()
    assert services.ranking_name() == "hybrid:all-MiniLM-L6-v2"
    services.evidence_verification_candidates(k=8)
    assert list(fake_models) == [None]

    train_fake_model()
    services.get_encoder.cache_clear()

    assert services.ranking_name() == "hybrid:minilm-perspectrum"
    items = services.evidence_verification_candidates(k=8)
    assert fake_models[services.tuned_model_dir()].encoded  # the fine-tuned model ranked them
    assert items[0].perspectives[0].id == 3695


def test_best_ranking_without_the_dense_extra_is_bm25_without_a_warning(
    corpus: None, settings, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:  # type: ignore[no-untyped-def]
    def missing(folder: Path | None = None) -> WordEncoder:
        raise dense.DenseUnavailableError("torch missing")

    settings.SEARCH_RANKING = "best"
    monkeypatch.setattr(dense, "load_encoder", missing)
    with caplog.at_level(logging.WARNING, logger="search.services"):
        backend = services.ranking_backend(services.EVIDENCE_RANKING)
    assert backend is services.get_backend()
    assert services.ranking_name() == "bm25"
    assert caplog.text == ""


def test_the_ranker_trains_on_train_split_claims_only(search_settings: Path) -> None:
    make_claim(1, "Homework should be banned", [(10, "Children need time to play"), (11, "Practice helps")])
    make_claim(2, "Zoos should be banned", [(20, "Zoos are cruel")])
    make_claim(3, "Taxes should rise", [(30, "Public services need money")], status=Status.CANDIDATE)
    make_claim(4, "Cars should be banned", [(40, "Cars pollute")])
    Claim.objects.filter(cid__in=[1, 3]).update(split="train")
    Claim.objects.filter(cid=2).update(split="test")

    assert services.ranker_training_claims() == [
        ("Homework should be banned", ["Children need time to play", "Practice helps"])
    ]


def test_train_ranker_command_trains_then_best_ranking_uses_the_model(
    corpus: None, fake_models: dict[Path | None, WordEncoder], monkeypatch: pytest.MonkeyPatch
) -> None:
    Claim.objects.filter(cid=499).update(split="train")
    seen: list[object] = []

    def fake_fine_tune(claims: object, out: Path, **options: object) -> finetune.Training:
        seen.append(claims)
        train_fake_model()
        return finetune.Training("fake", 1, 2, 1, 64, 0)

    monkeypatch.setattr(finetune, "fine_tune", fake_fine_tune)
    out = StringIO()
    call_command("train_ranker", stdout=out)

    assert seen == [
        [
            (
                "Vaccination must be made compulsory",
                ["Vaccination protects children from deadly diseases", "Parents should decide on vaccines"],
            )
        ]
    ]
    assert "trained on 1 train claims (2 pairs" in out.getvalue()
    assert services.ranking_name() == "hybrid:minilm-perspectrum"


def test_train_ranker_refuses_clearly_without_train_claims_or_the_extra(
    corpus: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(CommandError, match="no train-split claim"):
        call_command("train_ranker")
    Claim.objects.filter(cid=499).update(split="train")

    def missing(*args: object, **kwargs: object) -> finetune.Training:
        raise dense.DenseUnavailableError("fine-tuning needs `pip install -r requirements-dense.txt`")

    monkeypatch.setattr(finetune, "fine_tune", missing)
    with pytest.raises(CommandError, match="requirements-dense"):
        call_command("train_ranker")
    with pytest.raises(CommandError, match="at least 1"):
        call_command("train_ranker", "--epochs", "0")
