"""Agreement, label models and keep/reject rules over crowd responses.

Pure core (no Django): ``labels`` (label sets and collapses), ``responses`` (validated long-format
(item, worker, label) data), ``agreement`` (ρ, majority, Fleiss' κ, Krippendorff's α, worker agreement),
``label_models`` / ``dawid_skene`` / ``mace`` (``model.fit(responses) → Aggregate``), ``rules`` (agreement
rules as data and their per-item outcomes), ``topics`` (multi-label majority), ``policy``.

Generic machinery: it names no task type. Each task type declares its rule and its write-back and
adjudication hooks (``annotation.task_types``); ``declared`` builds the rules, ``services`` and
``adjudication`` call the hooks.
"""
