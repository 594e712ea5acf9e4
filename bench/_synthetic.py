"""A synthetic corpus N claims large, made only of PERSPECTRUM's real texts (bench.scale).

Synthetic claim k takes the text and topics of real claim k mod C and the perspective clusters of
another real claim (a new combination for each k < C²), with fresh perspective ids whose texts are
the donor's. Everything it makes says it is synthetic: source "synthetic", claim ids from 1,000,000
and perspective ids from 10,000,000, above any real one. Pure: no Django.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from corpus.perspectrum import CLAIMS, POOL, SPLIT, TOPIC, file_names

CLAIM_BASE, PERSPECTIVE_BASE = 1_000_000, 10_000_000
SOURCE = "synthetic"
VERSION = "1.0"


def write_synthetic_release(release: Path, claims: int, out: Path) -> dict[str, int]:
    """Write the release files of a `claims`-claim synthetic corpus into `out`; its sizes."""
    names = file_names(VERSION)
    real = sorted(json.loads((release / names[CLAIMS]).read_text()), key=lambda claim: claim["cId"])
    texts = {row["pId"]: row["text"] for row in json.loads((release / names[POOL]).read_text())}
    split = json.loads((release / names[SPLIT]).read_text())
    made: list[dict[str, Any]] = []
    pool: list[dict[str, Any]] = []
    for k in range(claims):
        base, donor = real[k % len(real)], real[(k // len(real) + 1 + k) % len(real)]
        clusters = []
        for cluster in donor["perspectives"]:
            pids = []
            for pid in cluster["pids"]:
                pool.append({"pId": PERSPECTIVE_BASE + len(pool), "text": texts[pid], "source": SOURCE})
                pids.append(pool[-1]["pId"])
            clusters.append({**cluster, "pids": pids})
        made.append(
            {
                "cId": CLAIM_BASE + k,
                "text": base["text"],
                "source": SOURCE,
                "perspectives": clusters,
                "topics": base["topics"],
            }
        )
    out.mkdir(parents=True, exist_ok=True)
    (out / names[CLAIMS]).write_text(json.dumps(made))
    (out / names[POOL]).write_text(json.dumps(pool))
    splits = {
        str(claim["cId"]): split.get(str(real[i % len(real)]["cId"]), "train") for i, claim in enumerate(made)
    }
    (out / names[SPLIT]).write_text(json.dumps(splits))
    (out / names[TOPIC]).write_text(json.dumps([{"claim_id": c["cId"], "topics": c["topics"]} for c in made]))
    return {
        "claims": len(made),
        "perspectives": len(pool),
        "clusters": sum(len(c["perspectives"]) for c in made),
    }
