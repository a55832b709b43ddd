"""Ranked retrieval: trec_eval-exact measures over TREC qrels and runs."""
