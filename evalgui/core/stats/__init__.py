"""Statistics over per-query scores: a queries x systems matrix, whatever produced it."""
