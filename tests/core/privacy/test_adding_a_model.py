"""Adding a privacy model touches one module and one registration line (issue 44 item 2).

The model below is defined here, in the test module, as a developer would define it in a module of their own
(``docs/incoming/h44models.md``, "Adding a privacy model"); ``registered(...)`` is the one registration line. From
it alone every partitioning method takes it under ``models`` (their lists, parameter choices and descriptions are
read from the registry), Mondrian's split test, global recoding's lattice and local recoding's repair keep it,
and the independent verifier judges it — a release of the same method without it fails.
"""

from __future__ import annotations

import numpy as np
import pytest

from anonstudio.core import privacy
from anonstudio.core.algorithms import get
from anonstudio.core.data import Table
from anonstudio.core.generate import adult_hierarchies, adult_like_table
from anonstudio.core.models import LATTICE, REPAIR, SENSITIVE, SIZES, SPLIT, PrivacyModel, registered
from anonstudio.core.params import Param, ParamSet

QIS = ["age", "sex", "race", "marital-status"]
COLUMN = "education"


class DistinctValues(PrivacyModel):
    """A toy model: every class holds at least ``m`` distinct sensitive values (distinct l-diversity with l = m,
    Machanavajjhala et al., TKDD 2007, Def. 3.3, under a name of its own)."""

    name = "distinct-values"
    title = "at least m distinct values"
    needs = frozenset({SIZES, SENSITIVE})
    enforced_by = frozenset({SPLIT, LATTICE, REPAIR})
    parameters = ParamSet((Param("m", "int", 2, "every class holds at least m distinct sensitive values", low=1),))

    def score(self, stats):
        return stats.distinct()

    def failing(self, stats):  # the class predicate: the lattice, the repair and the verifier judge by it
        return np.flatnonzero(stats.distinct() < self.params["m"])

    def measure(self, stats, i, of=""):
        return f"{int(stats.distinct()[i])} distinct value(s){f' of {of}' if of else ''}, fewer than m = {self.params['m']}"

    def partition_limits(self):  # the split rule: Mondrian keeps every part at m distinct values
        return {"min_distinct": self.params["m"]}


@pytest.fixture
def model():
    with registered(DistinctValues):  # the one registration line
        yield {"distinct-values": {"m": 3}}


def _table():
    frame = adult_like_table(600, seed=3)
    hs = {q: h for q, h in adult_hierarchies().items() if q in QIS + [COLUMN]}
    return Table(frame).with_roles(QIS, sensitive=[COLUMN]), hs


def _spec(k: int, models: dict) -> dict:
    return {"model": "k-anonymity", "k": k, "sensitive": COLUMN,
            "models": [{"name": name, **params} for name, params in models.items()]}


def test_every_partitioning_method_offers_the_registered_model(model):
    for method in ("mondrian", "global", "kmember", "mst", "local"):
        cls = get(method)
        assert "distinct-values" in cls.enforced_models
        assert "distinct-values" in cls.parameters.get("models").choices
        assert "at least m distinct values" in cls.facts()["privacy_models"][-1]


@pytest.mark.parametrize("method", ["mondrian", "global", "local"])
def test_each_method_enforces_it_and_verify_checks_it(model, method):
    table, hs = _table()
    options = {"max_suppression": 0.5} if method == "global" else {}
    plain = get(method)(k=3, **options).run(table, hs)
    before = privacy.verify_output(_spec(3, model), table, plain.output, hs)
    assert not before.passed  # k = 3 alone leaves classes with fewer than 3 educations
    assert any("fewer than m = 3" in p for p in before.problems)
    alg = get(method)(k=3, models=model, **options)
    result = alg.run(table, hs)
    assert alg.privacy_model()["models"] == [{"name": "distinct-values", "m": 3}]
    after = privacy.verify_output({**alg.privacy_model(), **options}, table, result.output, hs)
    assert after.passed, after.problems[:3]
    assert "distinct-values" in after.model


def test_a_method_refuses_it_once_unregistered():
    from anonstudio.core.errors import ParameterError

    with pytest.raises(ParameterError, match="no privacy model is named 'distinct-values'"):
        get("mondrian")(k=3, models={"distinct-values": {"m": 3}})
