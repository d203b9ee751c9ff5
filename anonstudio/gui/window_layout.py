"""The workbench window's layout and remembered settings (a mixin of :class:`~anonstudio.gui.main_window.MainWindow`):
the saved or default dock layout and sizes, Reset layout, recent files and the last folder used."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt, QTimer

MAX_RECENT = 8
#: shares of the window's height for the top docks (Data above Attributes) and the result tabs, before a run (setup:
#: the data and its roles get the room, the empty result tabs a strip) and after one (results: about half the height
#: for the result views — at 1280 × 720 the setup docks' readable minimum leaves them about 40 %)
SETUP_SHARES = {"top": 0.72, "results": 0.13}
RESULT_SHARES = {"top": 0.37, "results": 0.47}
#: the Attributes dock's share of the height, the same before and after a run (issue 40: a run never shrinks the
#: roles to 3 rows) — as tall as its rows need, up to this share; the Data dock takes what the run moves
ATTRIBUTES_SHARE = 0.3
COLUMN_SHARES = {"Data": 0.5, "Hierarchies": 0.22, "Method": 0.28}
#: the smallest readable dock sizes (pixels): a few table rows, a form, an empty result's message; the Run dock
#: its button, progress and a two-line verdict
MINIMUM_SIZES = {"Data": QSize(360, 115), "Attributes": QSize(360, 130), "Hierarchies": QSize(240, 160),
                 "Method": QSize(300, 150), "Run": QSize(300, 130)}
RESULT_MINIMUM = QSize(300, 90)
#: the Attributes dock's height besides its rows (title, note, header, scroll bar) and per row (pixels)
ATTRIBUTES_FRAME, ATTRIBUTES_ROW = 100, 25
#: a dock's title bar and the separator below it (pixels)
DOCK_TITLE = 26
#: a window resized by more than this share in width or height gets its docks' shares back
RESHARE_BELOW = 0.1


class LayoutActions:
    """Layout, sizes and remembered files; expects ``settings``, ``docks`` and ``recent_menu`` on the window."""

    # -- layout and settings -----------------------------------------------------------------------------
    def _restore_layout(self) -> None:
        self._set_minimum_sizes()
        self._default_layout = self.saveState()
        self._shared_at: QSize | None = None  # the window size the dock shares were last applied at
        self._reshare_timer = QTimer(self)
        self._reshare_timer.setSingleShot(True)
        self._reshare_timer.setInterval(80)
        self._reshare_timer.timeout.connect(self._reshare_if_resized)
        geometry = self.settings.value("window/geometry")
        layout = self.settings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if layout is not None:
            self.restoreState(layout)
        saved = self.settings.value("window/size")
        # a saved layout keeps its sizes — when shown at the size it was saved at; a layout saved on another
        # (smaller) screen gets this window's shares instead of its squeezed pixels
        self._saved_size = QSize(*[int(v) for v in saved]) if isinstance(saved, (list, tuple)) and len(saved) == 2 \
            else None
        self._sized = layout is not None

    def _set_minimum_sizes(self) -> None:
        """No dock shrinks below a readable size (:data:`MINIMUM_SIZES`; result docks :data:`RESULT_MINIMUM`)."""
        for title, dock in self.docks.items():
            size = MINIMUM_SIZES.get(title, RESULT_MINIMUM)
            dock.widget().setMinimumSize(size)

    def save_layout(self) -> None:
        """Keep the window's geometry and dock layout, with the size it was saved at."""
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.setValue("window/size", [self.width(), self.height()])

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if getattr(self, "_reshare_timer", None) is not None and self.isVisible():
            self._reshare_timer.start()  # once the resizing stops

    def _reshare_if_resized(self) -> None:
        """After a resize by more than :data:`RESHARE_BELOW` (1920 → 1280 → 1920, a maximized window): the docks
        get their shares of the new size back — setup shares before a run, result shares after — instead of Qt's
        leftovers (the Data dock at 3 columns, Attributes at 1 row)."""
        before = self._shared_at
        if before is None:
            return
        if abs(self.width() - before.width()) <= RESHARE_BELOW * before.width() and \
                abs(self.height() - before.height()) <= RESHARE_BELOW * before.height():
            return
        self.apply_shares()

    def apply_shares(self, results: bool | None = None) -> None:
        """Give the docks their shares of the window (:data:`SETUP_SHARES` before a run, :data:`RESULT_SHARES`
        once results are shown; :data:`COLUMN_SHARES` across)."""
        from anonstudio.gui.main_window import PANES

        results = self._results_shown if results is None else results
        shares = RESULT_SHARES if results else SETUP_SHARES
        h, w = self.height(), self.width()
        bottom = [d for t, d in self.docks.items() if PANES[t][2] == Qt.DockWidgetArea.BottomDockWidgetArea
                  and d.isVisible() and not d.isFloating()]
        bottom.sort(key=lambda d: d.visibleRegion().isEmpty())  # the raised tab first
        # one call for every dock of the top area and the raised bottom one: Qt moves the split between the areas
        # only as far as the top docks' own sizes let it
        # the Attributes dock as tall as its rows need (one per column), within its share, before and after a run
        # alike; the data takes the rest of the top, at least its readable minimum
        attributes = self._attributes_height(h)
        roles = self.docks.get("Attributes")
        kept = getattr(self, "_attributes_kept", None) if results else None
        if kept and roles is not None and roles.isVisible():
            # the run's results take their room from the data, not the roles: the Attributes dock keeps its height
            # to the pixel (held while Qt lays the column out, then free to be dragged again)
            attributes = kept
            roles.setFixedHeight(kept)
            QTimer.singleShot(150, self._release_attributes)
        top = max(h * shares["top"], attributes + MINIMUM_SIZES["Data"].height() + DOCK_TITLE) if attributes else \
            h * shares["top"]
        wanted = {"Data": top - attributes, "Attributes": attributes, "Hierarchies": top,
                  "Method": 0.68 * top, "Run": 0.32 * top}
        docks = [self.docks[t] for t in wanted if t in self.docks and self.docks[t].isVisible()
                 and not self.docks[t].isFloating()]
        sizes = [int(wanted[t]) for t in wanted if t in self.docks and self.docks[t].isVisible()
                 and not self.docks[t].isFloating()]
        if bottom:
            docks.append(bottom[0])
            sizes.append(int(min(h * shares["results"], h - top - 4 * DOCK_TITLE)))
        if docks:
            self.resizeDocks(docks, sizes, Qt.Orientation.Vertical)
        across = [t for t in COLUMN_SHARES if t in self.docks and self.docks[t].isVisible()]
        if across:
            self.resizeDocks([self.docks[t] for t in across], [int(w * COLUMN_SHARES[t]) for t in across],
                             Qt.Orientation.Horizontal)
        self._shared_at = QSize(w, h)

    def _release_attributes(self) -> None:
        dock = self.docks.get("Attributes")
        if dock is not None:
            dock.setMinimumHeight(0)
            dock.setMaximumHeight(16777215)  # QWIDGETSIZE_MAX

    def _attributes_height(self, h: int) -> float:
        """The Attributes dock's height at window height ``h``: whole rows (one per column) up to
        :data:`ATTRIBUTES_SHARE` of the height, plus half a row — Qt spreads a few pixels of the column differently
        before and after a run, and the same rows must show in both."""
        rows = len(self.state.columns()) if self.state.data is not None else 0
        pane = self.panes.get("Attributes")
        dock = self.docks.get("Attributes")
        table = getattr(pane, "table", None)
        if dock is None or (self.state.kind is not None and dock.isHidden()):
            return 0.0  # sequences: no Attributes dock, the data takes the top
        if not rows or table is None:
            return h * ATTRIBUTES_SHARE
        row = table.verticalHeader().defaultSectionSize() or ATTRIBUTES_ROW
        measured = dock.height() - table.viewport().height() if dock.isVisible() and table.isVisible() else 0
        frame = measured if ATTRIBUTES_FRAME // 2 <= measured <= 2 * ATTRIBUTES_FRAME else ATTRIBUTES_FRAME
        shown = max(1, min(rows, int((h * ATTRIBUTES_SHARE - frame) // row)))
        return frame + row * shown + row // 2

    def reset_layout(self) -> None:
        self.restoreState(self._default_layout)
        for dock in self.docks.values():
            dock.show()
        self.show_result_tabs(self._tabs_for, force=True)

    def show_result_tabs(self, method: str | None, *, force: bool = False) -> None:
        """Show the result tabs that apply to ``method`` on the data open, hide the others
        (:func:`~anonstudio.core.views.result_tabs.tab_applies`: the one rule). A tab whose applicability did not
        change keeps what the user made of it (closed stays closed, unless ``force``); a hidden tab's View-menu
        entry is off, saying why."""
        from anonstudio.core.views.result_tabs import tab_applies
        from anonstudio.gui.main_window import PANES

        self._tabs_for = method
        applied = getattr(self, "_tab_applies", {})
        for title, dock in self.docks.items():
            if PANES[title][2] != Qt.DockWidgetArea.BottomDockWidgetArea:
                continue
            applies = tab_applies(title, self.state.kind, method)
            action = dock.toggleViewAction()
            action.setEnabled(applies)
            action.setToolTip("" if applies else "This view does not apply to the data open and the method chosen")
            if force or applied.get(title) != applies:
                dock.setVisible(applies)
            applied[title] = applies
        self._tab_applies = applied

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
        """Shares of the window, whatever its size (:meth:`apply_shares`)."""
        self.apply_shares()

    # -- helpers ---------------------------------------------------------------------------------------------
    def _last_dir(self) -> str:
        return str(self.settings.value("lastDir", str(Path.home())))

    def _remember_dir(self, path: str) -> None:
        self.settings.setValue("lastDir", str(Path(path).parent))

