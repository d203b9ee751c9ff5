"""Issue 32, "every model checked on Adult in ≤ 0.1 s": the models a job names are judged over one release's classes
found once (:class:`PublishedClasses`). Sharing them changes no verdict, no count and no message — and classes found
for another table are never used."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from anonstudio.core import privacy
from anonstudio.core.hierarchy import Hierarchy
from anonstudio.core.privacy._judge import PublishedClasses, verify_class_model

QI_H = Hierarchy("q", [["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]])
S_H = Hierarchy("s", [["1", "low", "*"], ["2", "low", "*"], ["3", "high", "*"], ["4", "high", "*"]])
MODELS = [("t-closeness", {"t": 0.3, "distance": "hierarchical"}), ("t-closeness", {"t": 0.2, "distance": "equal"}),
          ("recursive-cl-diversity", {"c": 2.0, "l": 2}), ("beta-likeness", {"beta": 1.0}),
          ("delta-disclosure", {"delta": 1.0}), ("alpha-k-anonymity", {"alpha": 0.6, "k": 2}),
          ("average-risk", {"threshold": 0.4}), ("sample-uniqueness", {"threshold": 0.1}),
          ("k-map", {"k": 4, "estimator": "poisson", "sampling_fraction": 0.5}),
          ("k-map", {"k": 2, "population": "unused.csv"})]

rows = st.lists(st.tuples(st.sampled_from(["a", "b", "c", "ab", "cd", "*"]), st.sampled_from(["x", "y", "*"]),
                          st.one_of(st.sampled_from(["1", "2", "3", "4"]), st.none())), min_size=1, max_size=30)


def _frame(table):
    return pd.DataFrame({"q": [r[0] for r in table], "r": [r[1] for r in table], "s": [r[2] for r in table]},
                        dtype=object)


@settings(max_examples=120, deadline=None)
@given(rows, st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=20))
def test_shared_classes_give_the_verdicts_each_check_finds_alone(table, people):
    frame = _frame(table)
    population = pd.DataFrame({"q": people, "r": ["x"] * len(people)}, dtype=object)
    hs = {"q": QI_H, "s": S_H}
    shared = PublishedClasses(frame, ["q", "r"], hs)
    for name, params in MODELS:  # one shared object across every model, in turn
        model = privacy.MODELS[name](**params)
        alone = verify_class_model(model, frame, ["q", "r"], sensitive="s", hierarchies=hs, population=population)
        with_shared = verify_class_model(model, frame, ["q", "r"], sensitive="s", hierarchies=hs,
                                         population=population, shared=shared)
        assert (alone.passed, alone.details, alone.problems) == \
            (with_shared.passed, with_shared.details, with_shared.problems), name


def test_classes_of_another_table_are_not_used():
    one = _frame([("a", "x", "1"), ("a", "x", "2"), ("b", "x", "1")])
    other = _frame([("a", "x", "1"), ("b", "x", "2"), ("c", "x", "1")])  # every record alone in its class
    shared = PublishedClasses(one, ["q", "r"])
    model = privacy.MODELS["sample-uniqueness"](threshold=0.0)
    assert not verify_class_model(model, other, ["q", "r"], shared=shared).passed
    assert not verify_class_model(model, one, ["q", "r"], shared=shared).passed  # b alone
    assert verify_class_model(model, one, ["q"], shared=shared).details["classes"] == 2


def test_verify_output_judges_every_model_over_one_grouping(monkeypatch):
    """verify_output finds the release's classes once for all the models its spec lists."""
    from anonstudio.core.data import Table
    from anonstudio.core.privacy import _judge

    made = []
    real = _judge.PublishedClasses.grouping

    def counting(self, exempt):
        made.append((id(self), exempt, exempt in self._groupings))
        return real(self, exempt)

    monkeypatch.setattr(_judge.PublishedClasses, "grouping", counting)
    frame = pd.DataFrame({"q": ["ab"] * 4 + ["cd"] * 4, "s": ["1", "2", "3", "4"] * 2}, dtype=object)
    original = Table(pd.DataFrame({"q": ["a", "b"] * 2 + ["c", "d"] * 2, "s": ["1", "2", "3", "4"] * 2},
                                  dtype=object)).with_roles(["q"], sensitive=["s"])
    spec = {"model": "k-anonymity", "k": 2, "models": [{"name": "t-closeness", "t": 0.5},
                                                        {"name": "average-risk", "threshold": 0.5},
                                                        {"name": "beta-likeness", "beta": 2.0}]}
    v = privacy.verify_output(spec, original, frame, {"q": QI_H, "s": S_H})
    assert v.passed, v.problems
    assert len({obj for obj, _, _ in made}) == 1  # one shared object
    # each kind of grouping (suppressed rows exempt or not) computed once, then reused
    assert sorted(exempt for _, exempt, done in made if not done) == [False, True]
