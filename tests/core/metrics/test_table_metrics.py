"""NCP (Eqs 5-6), GCP (Eq. 7), DM (Eq. 8) and CAVG (Eq. 9) of paper 002, from an output table alone."""

from __future__ import annotations

import pandas as pd
import pytest

from anonstudio.core.errors import HierarchyError
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.metrics import equivalence_classes, ncp_cells, table_metrics
from tests.core import _paper002 as P

QIS = ["Gender", "Age", "Zip-code"]


def test_table_1c_by_hand():
    out = pd.DataFrame(P.TABLE_1C, dtype=object)
    m = table_metrics(out, QIS, P.hierarchies(), k=3)
    # Age (numeric, domain 21..38 = 17): [20-25] covers 21..25 -> 4/17, [20-40] -> 1, [36-40] covers 36..38 -> 2/17
    # Zip (all leaves are numbers, domain 535280..535296 = 16): 535280 -> 0, 5352** -> 1, 53529* -> 4/16
    ncp = [4 / 17, 2.0, 2 / 17 + 4 / 16]
    total = 3 * ncp[0] + 4 * ncp[1] + 3 * ncp[2]
    assert m["NCP_total"] == pytest.approx(total)  # a sum over the cells: GCP is its share of d · N (below)
    assert m["NCP"] == m["NCP_total"]  # the old name, kept through 0.3 (cli-contract changelog)
    assert m["GCP"] == pytest.approx(total / (3 * 10))
    assert m["DM"] == 3**2 + 4**2 + 3**2
    assert m["CAVG"] == pytest.approx(10 / (3 * 3))
    assert m["DM_paper"] == m["DM"] and m["CAVG_paper"] == m["CAVG"]  # nothing suppressed: one definition
    assert m["classes"] == 3 and m["suppressed"] == 0 and m["min_class_size"] == 3
    assert m["NCP_by_attribute"]["Gender"] == 0


def test_categorical_ncp_is_leaves_over_domain_and_global_recoding_is_worse():
    # Table 1(b), global recoding: everything in one class, Age [20-40] and Zip 5352**
    out = pd.DataFrame({"Gender": P.TABLE_1A["Gender"], "Age": ["[20-40]"] * 10, "Zip-code": ["5352**"] * 10})
    m = table_metrics(out, QIS, P.hierarchies(), k=3)
    assert m["GCP"] == pytest.approx(2 / 3)  # gender kept, age and zip fully generalized
    assert m["DM"] == 6**2 + 4**2
    cells = ncp_cells(pd.DataFrame({"Gender": ["Person", "Male"]}), ["Gender"], P.hierarchies())
    assert cells[:, 0].tolist() == [1.0, 0.0]  # Eq. 6: 2 leaves / 2 values; a leaf costs 0
    h = {"w": Hierarchy("w", [["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"], ["d", "d", "*"]])}
    assert ncp_cells(pd.DataFrame({"w": ["ab", "c", "*"]}), ["w"], h)[:, 0].tolist() == [0.5, 0.0, 1.0]


def test_suppressed_records_cost_one_per_attribute_and_n_in_dm():
    out = pd.DataFrame(P.TABLE_1C, dtype=object)
    out.loc[9, QIS] = "*"
    classes, suppressed = equivalence_classes(out, QIS)
    assert suppressed.tolist() == [False] * 9 + [True] and classes[9] == -1
    m = table_metrics(out, QIS, P.hierarchies(), k=2)
    assert m["suppressed"] == 1 and m["DM"] == 9 + 16 + 4 + 10
    assert m["CAVG"] == pytest.approx(9 / (3 * 2))
    # the paper's Eqs. 8-9 as printed: the one suppressed record is a class of its own
    assert m["DM_paper"] == 9 + 16 + 4 + 1 and m["CAVG_paper"] == pytest.approx(10 / (4 * 2))


def test_unknown_label_names_record_and_column():
    out = pd.DataFrame(P.TABLE_1C, dtype=object)
    out.loc[4, "Age"] = "[0-99]"
    with pytest.raises(HierarchyError) as exc:
        table_metrics(out, QIS, P.hierarchies(), k=3)
    assert "record 5" in str(exc.value) and "Age" in str(exc.value)


def test_records_generalized_to_every_root_count_as_suppressed():
    out = pd.DataFrame(P.TABLE_1C, dtype=object)
    out.loc[[7, 8, 9], QIS] = ["Person", "[20-40]", "5352**"]  # the three roots
    m = table_metrics(out, QIS, P.hierarchies(), k=3)
    assert m["suppressed"] == 3 and m["classes"] == 2
    assert m["DM"] == 9 + 16 + 3 * 10
    assert m["DM_paper"] == 9 + 16 + 9 and m["CAVG_paper"] == pytest.approx(10 / (3 * 3))  # = Table 1(c)'s
    assert equivalence_classes(out, QIS)[1].sum() == 0  # without hierarchies only '*' cells count
