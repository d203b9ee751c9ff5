"""Figures of the experiments, drawn with matplotlib's object API (``matplotlib.figure.Figure``) and saved
atomically as PNG.

No ``pyplot``: it keeps global figure state and selects a GUI backend, neither of which is safe when the
workbench runs an experiment on a worker thread. A bare ``Figure`` renders through Agg when saved.
"""

from __future__ import annotations

from pathlib import Path


def subplots(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float], **kwargs):
    """``(figure, axes)`` like ``pyplot.subplots``, without pyplot."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    return fig, fig.subplots(nrows, ncols, **kwargs)


def save_png(fig, path: Path, dpi: int = 110) -> Path:
    """Lay out ``fig`` and write it to ``path`` atomically (a reader never sees half a PNG)."""
    from anonstudio.core.io._atomic import atomic_write

    fig.tight_layout()
    with atomic_write(Path(path), "wb") as fh:
        fig.savefig(fh, format="png", dpi=dpi)
    return Path(path)
