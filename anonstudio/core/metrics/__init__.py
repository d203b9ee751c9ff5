"""metrics."""

from anonstudio.core.metrics._strings import (
    blosum62,
    composition,
    compositional_difference,
    distance_block,
    distance_order_preserved,
    exact_copies,
    fragment_leak,
    group_distance,
    knn_accuracy,
    knn_original_vs_pseudo,
    longest_shared_substring,
    needleman_wunsch,
)

__all__ = [
    "blosum62",
    "composition",
    "compositional_difference",
    "distance_block",
    "distance_order_preserved",
    "exact_copies",
    "fragment_leak",
    "group_distance",
    "knn_accuracy",
    "knn_original_vs_pseudo",
    "longest_shared_substring",
    "needleman_wunsch",
]
