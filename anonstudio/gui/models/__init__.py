"""Qt item models over the engine's containers: tables, FASTA records, event sequences, hierarchies.

The models read from the containers lazily (only the cells a view asks for), so a million-row table
scrolls without first being copied into Qt.
"""

from anonstudio.gui.models.hierarchy import HierarchyItemModel
from anonstudio.gui.models.sequences import EventsModel, SequenceListModel, SequenceRecordsModel
from anonstudio.gui.models.table import FrameModel

__all__ = ["EventsModel", "FrameModel", "HierarchyItemModel", "SequenceListModel", "SequenceRecordsModel"]
