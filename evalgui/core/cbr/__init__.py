"""Case-based retrieval: similarity models, the linear and MAC/FAC retrievers, and ProCAKE's quality metrics.

- :mod:`catalogue`: the metrics and local similarity measures described for people (no numpy).
- :mod:`model`: the similarity model (local-global), its JSON file, and :class:`~model.Scorer`, the model
  compiled for a pair of case bases; :mod:`local`: the vectorised local similarities.
- :mod:`retrieval`: the linear retriever (the ground truth) and MAC/FAC, in blocks of queries, timed.
- :mod:`lists`: result lists (ordered, ties by case id); :mod:`metrics`: one kernel per metric.
- :mod:`evaluate`: evaluation runs (retrievers x ks x metrics -> tidy table) and their jobs.

The case-base and similarity-results readers are input kinds (:mod:`evalgui.core.inputs.case_base`,
:mod:`evalgui.core.inputs.similarity`).
"""
