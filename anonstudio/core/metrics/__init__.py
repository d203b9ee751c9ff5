"""Information-loss and utility metrics computed from outputs (never from an algorithm's bookkeeping)."""

from anonstudio.core.metrics._table_metrics import (
    cavg,
    class_sizes,
    discernibility,
    equivalence_classes,
    gcp,
    ncp_cells,
    table_metrics,
)

__all__ = ["cavg", "class_sizes", "discernibility", "equivalence_classes", "gcp", "ncp_cells", "table_metrics"]
