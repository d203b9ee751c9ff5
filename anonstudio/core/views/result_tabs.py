"""Which result tabs apply to a run: one rule per tab, decided from the data kind and the method (issue 40 item 3).

A tab that cannot show anything for a run is hidden rather than left to say so ("builds no spanning tree"). The
rule follows from what each tab shows:

=================  =====================================================================  =======================
tab                what it shows                                                          applies to
=================  =====================================================================  =======================
Summary            the run's verdict and headline figures                                 every run
Compare            the input beside the release, changed cells marked                     every run
Metrics            the report's loss and utility figures, a sweep's curves                every run
Privacy            the verifier's verdict, the equivalence classes a reader sees          every run
History            the runs of this session                                               every run
Risk               re-identification risk of the table before and after                   tables
Composition        symbol composition of the original and the pseudo-strings              FASTA sequences
MST partition      the spanning tree the method cut into classes                          methods declaring it
Clusters           CBMSA's clusters of event sequences                                    methods declaring it
Randomization      random anonymization's attributes, marginals and bias                  methods declaring it
Anatomy            Anatomy's two linked tables                                            methods declaring it
Lattice            global's transformations, pass/fail and loss, the optimum              ``global``
Utility            each attribute's distribution before and after                         tables
=================  =====================================================================  =======================

"methods declaring it": the method's own ``result_view`` names the tab (``mst`` → MST partition, ``cbmsa`` and
``cbmsa-baseline`` → Clusters, ``ra`` and ``ra-enhanced`` → Randomization, ``anatomy`` → Anatomy). A tab not in
:data:`TAB_RULES` applies to every run; a new view adds its rule here (as Lattice and Utility do).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

#: ``applies(data_kind, method)``; either may be ``None`` (no data open, no method chosen)
Rule = Callable[[str | None, str | None], bool]


def every_run(kind: str | None, method: str | None) -> bool:
    """A tab every run fills."""
    return True


def for_kinds(*kinds: str) -> Rule:
    """A tab for data of these kinds (``table``, ``events``, ``fasta``)."""

    def applies(kind: str | None, method: str | None) -> bool:
        return kind in kinds

    return applies


def for_methods(*names: str) -> Rule:
    """A tab for these methods only."""

    def applies(kind: str | None, method: str | None) -> bool:
        return method in names

    return applies


def declared_view(tab: str) -> Rule:
    """A tab for the methods whose ``result_view`` is ``tab`` (the engine's registry says which)."""

    def applies(kind: str | None, method: str | None) -> bool:
        return method is not None and result_view_of(method) == tab

    return applies


def result_view_of(method: str) -> str | None:
    """The result view ``method`` declares (``None``: none, or no such method)."""
    from anonstudio.core import algorithms
    from anonstudio.core.errors import AnonStudioError

    try:
        return getattr(algorithms.get(method), "result_view", None) or None
    except AnonStudioError:
        return None


#: tab title → its rule (see the module's table)
TAB_RULES: dict[str, Rule] = {
    "Summary": every_run,
    "Compare": every_run,
    "Metrics": every_run,
    "Privacy": every_run,
    "History": every_run,
    "Risk": for_kinds("table"),
    "Composition": for_kinds("fasta"),
    "MST partition": declared_view("MST partition"),
    "Clusters": declared_view("Clusters"),
    "Randomization": declared_view("Randomization"),
    "Anatomy": declared_view("Anatomy"),
    "Lattice": for_methods("global"),
    "Utility": for_kinds("table"),
}


def tab_applies(tab: str, kind: str | None, method: str | None) -> bool:
    """Whether result tab ``tab`` shows something for a run of ``method`` on data of ``kind``."""
    return TAB_RULES.get(tab, every_run)(kind, method)


def applicable_tabs(tabs: Iterable[str], kind: str | None, method: str | None) -> list[str]:
    """The tabs of ``tabs`` that apply, in their order."""
    return [t for t in tabs if tab_applies(t, kind, method)]
