"""The workbench's Help menu and the paper experiments window. A mixin of
:class:`~anonstudio.gui.main_window.MainWindow`."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QMessageBox, QTextBrowser, QVBoxLayout

from anonstudio import __version__

class HelpActions:
    """Help ▸ User guide, Papers, About, and Run ▸ Paper experiments."""

    # -- help ------------------------------------------------------------------------------------------------
    def papers_html(self) -> str:
        """The methods this build provides, each with the paper it implements (``Algorithm.reference``)."""
        from anonstudio.core import algorithms

        items = []
        for cls in algorithms.available():
            items.append(f"<li><b>{cls.title or cls.name}</b> (<code>{cls.name}</code>, {cls.data_kind}):<br>{cls.reference}</li>")
        if not items:
            return "<p>No methods are available in this build.</p>"
        return "<h3>The papers behind each method</h3><ul>" + "".join(items) + "</ul>"

    def experiments_open(self):
        """Open (or raise) the paper experiments window; a FASTA open here is its default input."""
        from anonstudio.gui.experiments import ExperimentsWindow

        fasta = self.state.data_path if self.state.kind == "fasta" else None
        if self.experiments_window is None:
            self.experiments_window = ExperimentsWindow(self, fasta=fasta)
        else:
            self.experiments_window.set_fasta(fasta)
        self.experiments_window.show()
        self.experiments_window.raise_()
        return self.experiments_window

    def show_guide(self) -> QDialog:
        """Help ▸ User guide (F1): the guide built from the docs pages (``resources/guide/guide.md``), with its
        contents and a search bar, in a window that stays open beside the workbench."""
        from anonstudio.gui.guide_window import GuideWindow
        from anonstudio.resources import guide_text

        dialog = getattr(self, "guide_window", None)
        if dialog is None:
            dialog = GuideWindow(guide_text(), self)  # type: ignore[arg-type]  # a mixin of MainWindow
            self.guide_window = dialog
        dialog.show()
        dialog.raise_()
        return dialog

    def show_papers(self) -> None:
        dialog = QDialog(self)
        dialog.setWindowTitle("Papers behind the methods")
        view = QTextBrowser()
        view.setOpenExternalLinks(True)
        view.setHtml(self.papers_html())
        layout = QVBoxLayout(dialog)
        layout.addWidget(view)
        dialog.resize(640, 480)
        dialog.show()

    def about_html(self) -> str:
        """The About box's text: the version, what anonstudio is, and where unexpected errors are logged."""
        from html import escape

        from anonstudio.core.error_log import error_log_path

        return (f"<b>anonstudio {__version__}</b><br>A workbench for anonymizing tables, event sequences and "
                "protein/DNA strings before sharing. Every output is re-checked by an independent verifier."
                f"<p>Errors inside anonstudio are logged to <code>{escape(str(error_log_path()))}</code>: send that "
                "file with a bug report.</p>")

    def show_about(self) -> None:
        QMessageBox.about(self, "About anonstudio", self.about_html())
