"""Information-loss, utility and re-identification-risk metrics computed from outputs (never from an algorithm's
bookkeeping)."""

from anonstudio.core.metrics._strings import (
    blosum62,
    composition,
    compositional_difference,
    distance_block,
    distance_order_preserved,
    exact_copies,
    own_group_found,
    fragment_leak,
    group_distance,
    knn_accuracy,
    longest_shared_substring,
    needleman_wunsch,
)
from anonstudio.core.metrics._quality import MODELS as QUALITY_MODELS
from anonstudio.core.metrics._quality import release_quality
from anonstudio.core.metrics._release_risk import (
    record_risks,
    release_risk,
    risk_comparison_frame,
    risk_distribution_frame,
    risk_lines,
    table_risk,
)
from anonstudio.core.metrics._table_metrics import (
    cavg,
    class_sizes,
    discernibility,
    equivalence_classes,
    gcp,
    ncp_cells,
    table_metrics,
)

__all__ = [
    "blosum62",
    "cavg",
    "class_sizes",
    "composition",
    "compositional_difference",
    "discernibility",
    "distance_block",
    "distance_order_preserved",
    "equivalence_classes",
    "exact_copies",
    "own_group_found",
    "fragment_leak",
    "gcp",
    "group_distance",
    "knn_accuracy",
    "longest_shared_substring",
    "ncp_cells",
    "needleman_wunsch",
    "QUALITY_MODELS",
    "release_quality",
    "record_risks",
    "release_risk",
    "risk_comparison_frame",
    "risk_distribution_frame",
    "risk_lines",
    "table_metrics",
    "table_risk",
]
