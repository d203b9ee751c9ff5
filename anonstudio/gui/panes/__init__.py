"""The workbench panes, each a ``QWidget`` shown in a dock of the main window.

Every pane is constructible as ``Cls(parent=None)``. The result panes (``parameters.ParametersPane``,
``run.RunPane``, ``compare.ComparePane``, ``composition.CompositionPane``, ``mst_partition.MstPartitionPane``,
``metrics.MetricsPane``, ``privacy.PrivacyPane``) have ``set_state(state)``, ``show_outcome(outcome)`` and
``clear()``; ``data.DataPane`` and ``hierarchy_editor.HierarchyEditor`` edit the
:class:`anonstudio.core.workspace.Workspace` directly.
"""
