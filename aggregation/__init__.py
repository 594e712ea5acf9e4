"""Agreement, label models and keep/reject rules over crowd responses.

Pure core (no Django): ``labels`` (label sets, 5 → 3 collapse), ``responses`` (validated long-format
(item, worker, label) data), ``agreement`` (ρ, majority, Fleiss' κ, Krippendorff's α, worker agreement),
``label_models`` / ``dawid_skene`` / ``mace`` (``model.fit(responses) → Aggregate``), ``rules`` (per-task
rules as data and their per-item outcomes), ``topics`` (multi-label topic majority).
"""
