"""The worked example of Ramana & Kumari (paper 002): Table 1(a) and the Figure 2 hierarchies — the engine's
copy (:mod:`anonstudio.core.experiments._paper_examples`), under the names the tests use."""

from __future__ import annotations

from anonstudio.core.experiments._paper_examples import (
    P002_AGE_ROWS as AGE_ROWS,
)
from anonstudio.core.experiments._paper_examples import (
    P002_FIGURE_4 as FIGURE_4,
)
from anonstudio.core.experiments._paper_examples import (
    P002_GENDER_ROWS as GENDER_ROWS,
)
from anonstudio.core.experiments._paper_examples import (
    P002_TABLE_1A as TABLE_1A,
)
from anonstudio.core.experiments._paper_examples import P002_TABLE_1C as _TABLE_1C
from anonstudio.core.experiments._paper_examples import (
    P002_TABLE_2 as TABLE_2,
)
from anonstudio.core.experiments._paper_examples import (
    P002_ZIP_ROWS as ZIP_ROWS,
)
from anonstudio.core.experiments._paper_examples import (
    p002_hierarchies as hierarchies,
)
from anonstudio.core.experiments._paper_examples import (
    p002_table as table,
)

#: Table 1(c): the 3-anonymous view by local recoding (quasi-identifiers)
TABLE_1C = {c: _TABLE_1C[c].tolist() for c in ("Gender", "Age", "Zip-code")}

__all__ = ["AGE_ROWS", "FIGURE_4", "GENDER_ROWS", "TABLE_1A", "TABLE_1C", "TABLE_2", "ZIP_ROWS", "hierarchies",
           "table"]
