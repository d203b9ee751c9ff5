"""The workbench window's layout and remembered settings (a mixin of :class:`~anonstudio.gui.main_window.MainWindow`):
the saved or default dock layout and sizes, Reset layout, recent files and the last folder used."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

MAX_RECENT = 8


class LayoutActions:
    """Layout, sizes and remembered files; expects ``settings``, ``docks`` and ``recent_menu`` on the window."""

    # -- layout and settings -----------------------------------------------------------------------------
    def _restore_layout(self) -> None:
        self._default_layout = self.saveState()
        geometry = self.settings.value("window/geometry")
        layout = self.settings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if layout is not None:
            self.restoreState(layout)
        self._sized = layout is not None  # a saved layout keeps its sizes; else they are set when first shown

    def reset_layout(self) -> None:
        self.restoreState(self._default_layout)
        for dock in self.docks.values():
            dock.show()

    def recent_files(self) -> list[str]:
        value = self.settings.value("recentFiles", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def add_recent(self, path: str | Path) -> None:
        p = str(Path(path).resolve())
        files = [p] + [f for f in self.recent_files() if f != p]
        self.settings.setValue("recentFiles", files[:MAX_RECENT])
        self._fill_recent_menu()

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        for i, f in enumerate(files):
            act = self.recent_menu.addAction(f"&{i + 1} {Path(f).name}")
            act.setToolTip(f)
            act.triggered.connect(lambda _=False, f=f: self.open_path(f, wait=False))
        self.recent_menu.setEnabled(bool(files))

    def _default_sizes(self) -> None:
        """Shares of the window, whatever its size: the data widest and tallest, results below."""
        for titles, shares, along in ((("Data", "Compare"), (0.58, 0.36), Qt.Orientation.Vertical),
                                      (("Data", "Attributes"), (0.34, 0.24), Qt.Orientation.Vertical),
                                      (("Data", "Hierarchies", "Method"), (0.44, 0.26, 0.30), Qt.Orientation.Horizontal)):
            if all(t in self.docks for t in titles):
                total = self.height() if along == Qt.Orientation.Vertical else self.width()
                self.resizeDocks([self.docks[t] for t in titles], [int(total * f) for f in shares], along)

    # -- helpers ---------------------------------------------------------------------------------------------
    def _last_dir(self) -> str:
        return str(self.settings.value("lastDir", str(Path.home())))

    def _remember_dir(self, path: str) -> None:
        self.settings.setValue("lastDir", str(Path(path).parent))

