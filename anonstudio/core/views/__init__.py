"""Qt-free views of a finished run: what each result view shows, computed from an
:class:`~anonstudio.core.jobs.Outcome` with plain numpy / pandas, so it can be tested without a ``QApplication``
(Orange3's ``run(inputs, state)`` habit) and used by a report or a script as well as by the workbench's panes.

- tables and classes (:mod:`._classes`): changed cells, a record's group, equivalence classes as a reader of the
  output sees them, class sizes and their histogram, the verdict as a dict, event sequences per row;
- strings (:mod:`._strings`): pseudo-string groups, symbol compositions and CD, shared fragments;
- the report (:mod:`._report`): formatted values, rows, numeric metrics, a sweep's series (:class:`SweepState`);
- the summary card (:mod:`._summary`): the run's headline from its report; counts named by their unit
  (:mod:`._units`);
- the MST partition drawing (:mod:`._mst`);
- the re-identification risk before and after (:mod:`._risk`): the table loaded, or a release from its report;
- the lattice of a ``global`` run as a graph (:mod:`._lattice`); per attribute the distribution before and after,
  and the generalization levels chosen (:mod:`._utility`);
- :func:`prepare_views` computes the costly ones on the worker thread that ran the outcome (:mod:`._cache`).

:mod:`.samples` builds small, complete outcomes for the panes' previews and tests.
"""

from __future__ import annotations

from anonstudio.core.views._cache import cached_view, prepare_views
from anonstudio.core.views._classes import (
    SequenceRows,
    as_text,
    changed_mask,
    class_sizes,
    data_kind,
    equivalence_classes,
    frame_of,
    frame_text,
    group_members,
    model_failures,
    sequence_rows,
    size_histogram,
    verification_dict,
)
from anonstudio.core.views._mst import MST_MAX_NODES, MstView, class_packed_layout, force_layout, mst_view
from anonstudio.core.views._report import (
    REPORT_ORDER,
    SweepState,
    flatten_dict,
    format_value,
    numeric_metrics,
    report_rows,
    run_lines,
)
from anonstudio.core.views._summary import (
    CHECKED,
    MEANINGS,
    Summary,
    checked_meaning,
    summary_html,
    summary_sections,
)
from anonstudio.core.views._risk import (
    RiskBars,
    RiskView,
    records_above,
    release_risk_view,
    risk_bars,
    risk_rows,
    table_risk_view,
)
from anonstudio.core.views._lattice import MAX_DRAWN, LatticeGraph, lattice_graph, lattice_nodes_of, lattice_view
from anonstudio.core.views._utility import Bars, Distribution, distribution, generalization_levels, utility_attributes
from anonstudio.core.views._units import count_rows, counts_line, plural, units
from anonstudio.core.views._strings import (
    LEAK_MEANINGS,
    LEAK_WORDS,
    Composition,
    composition,
    fragment_lengths,
    leak_metrics,
    pseudo_groups,
    symbol_counts,
)

__all__ = [
    "MAX_DRAWN", "LatticeGraph", "lattice_graph", "lattice_nodes_of", "lattice_view", "Bars", "Distribution", "distribution",
    "generalization_levels", "utility_attributes",
    "CHECKED", "MEANINGS", "Summary", "checked_meaning", "summary_html", "summary_sections", "count_rows", "counts_line", "plural", "units",
    "Composition", "LEAK_MEANINGS", "LEAK_WORDS", "MST_MAX_NODES", "MstView", "REPORT_ORDER", "SequenceRows",
    "SweepState", "as_text", "cached_view", "changed_mask", "class_packed_layout", "class_sizes", "composition",
    "data_kind", "equivalence_classes", "flatten_dict", "force_layout", "format_value", "fragment_lengths",
    "frame_of", "frame_text", "group_members", "leak_metrics", "model_failures", "mst_view", "numeric_metrics", "prepare_views",
    "pseudo_groups", "RiskBars", "RiskView", "records_above", "release_risk_view", "risk_bars", "risk_rows",
    "table_risk_view", "report_rows", "run_lines", "sequence_rows", "size_histogram", "symbol_counts", "verification_dict",
]
