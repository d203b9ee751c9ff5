"""A view whose model the cyclic collector already cleared draws an empty table instead of raising inside
Qt's event loop (a fresh-clone CI run failed on ``'EventsModel' object has no attribute '_frame'`` while a
dead pane's view was still asked for its headers)."""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QTableView

from anonstudio.core.data import Role
from anonstudio.gui.models import EventsModel, FrameModel, SequenceListModel, SequenceRecordsModel


def test_models_with_cleared_state_answer_as_empty(qtbot):
    frame = pd.DataFrame({"zip": ["1300", "1400"], "diagnosis": ["flu", "cold"]})
    models = [FrameModel(frame, role_of=lambda c: Role.QUASI), EventsModel(role_of=lambda c: Role.QUASI),
              SequenceListModel(), SequenceRecordsModel()]
    models[1].set_frame(frame)
    assert models[0].headerData(0, Qt.Orientation.Horizontal) == "zip [QI]"
    views = []
    for m in models:
        view = QTableView()
        view.setModel(m)
        qtbot.addWidget(view)
        views.append(view)
        m.__dict__.clear()  # what the collector's tp_clear leaves behind
        assert m.rowCount(QModelIndex()) == 0
        m.headerData(0, Qt.Orientation.Horizontal)  # no AttributeError
        if isinstance(m, FrameModel):
            assert m.columnCount(QModelIndex()) == 0 and m.headerData(0, Qt.Orientation.Horizontal) is None
        view.show()
        view.viewport().update()
    qtbot.wait(20)  # a paint with the cleared models: any exception in the event loop fails the test
