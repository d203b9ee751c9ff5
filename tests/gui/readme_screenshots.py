"""Regenerate the docs' screenshots (docs/screenshots.md) from the ones the GUI suite saves (issue 15, "Done when").

The suite's pytest-qt tests save ``<name>.png`` (the ``screenshot`` fixture in tests/gui/conftest.py) after driving
the window as a user would, in a temporary folder of the test run unless ``ANONSTUDIO_SCREENSHOTS`` names one; the
docs pages show copies of some of them under ``docs/screenshots/``. :data:`SOURCES` says which suite screenshot
each docs image is::

    ANONSTUDIO_SCREENSHOTS=artifacts/screenshots python -m pytest tests/gui
    ANONSTUDIO_SCREENSHOTS=artifacts/screenshots python tests/gui/readme_screenshots.py  # copies each over its image
    python tests/gui/readme_screenshots.py --check  # exit 1 if a source is missing (the suite did not save it)
    ANONSTUDIO_SCREENSHOTS=artifacts/screenshots python tests/gui/readme_screenshots.py --sizes  # only the guide's

The guide's window-size pictures (issue 40 item 3) are every ``layout_<kind>_<w>x<h>_<view>.png`` that
tests/gui/test_layout_sizes.py saves, copied as ``docs/screenshots/sizes-<kind>-<w>x<h>-<view>.png`` with a
32-colour palette (a tenth of the size; the workbench's flat colours survive it).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: where the suite saved its screenshots (``$ANONSTUDIO_SCREENSHOTS``; default ``artifacts/screenshots``)
SUITE = Path(os.environ.get("ANONSTUDIO_SCREENSHOTS") or ROOT / "artifacts" / "screenshots").resolve()
README_DIR = ROOT / "docs" / "screenshots"

#: docs image (docs/screenshots/…) → suite screenshot (artifacts/screenshots/…), and the test that saves it
SOURCES: dict[str, tuple[str, str]] = {
    "workbench-table-mst.png": ("window_1920x1080_mst.png", "tests/gui/test_window_sizes.py"),
    "workbench-1280x720-compare.png": ("window_1280x720_compare.png", "tests/gui/test_window_sizes.py"),
    "compare-table.png": ("e2e_table_compare.png", "tests/gui/test_end_to_end.py"),
    "mst-partition.png": ("mst_partition.png", "tests/gui/test_panes_plots.py"),
    "metrics-sweep.png": ("metrics_sweep_gcp.png", "tests/gui/test_plots_readable.py"),
    "user-guide.png": ("user_guide.png", "tests/gui/test_user_guide.py"),
    "summary-card.png": ("summary_card.png", "tests/gui/test_panes_summary.py"),
    "privacy-table.png": ("privacy.png", "tests/gui/test_panes_plots.py"),
    "risk-table.png": ("risk_pane.png", "tests/gui/test_risk_pane.py"),
    "composition-proteins.png": ("composition.png", "tests/gui/test_panes_plots.py"),
    "compare-proteins-alignment.png": ("compare_strings.png", "tests/gui/test_panes_compare.py"),
    "experiments-cd.png": ("experiments_condensation_cd.png", "tests/gui/test_experiments_window.py"),
    "clusters-cbmsa.png": ("clusters_pane.png", "tests/gui/test_panes_clusters.py"),
    "data-events-overview.png": ("data_pane_events_overview.png", "tests/gui/test_panes_clusters.py"),
    "data-events-1280x720.png": ("window_1280x720_events_overview.png", "tests/gui/test_plots_readable.py"),
    "randomization-ra.png": ("randomization_pane.png", "tests/gui/test_panes_randomization.py"),
    "anatomy-groups.png": ("anatomy_pane.png", "tests/gui/test_panes_randomization.py"),
    "experiments-ra.png": ("experiments_ra_adult.png", "tests/gui/test_experiments_window.py"),
    "experiments-cbmsa.png": ("experiments_cbmsa_hhp.png", "tests/gui/test_experiments_window.py"),
    "history-compare.png": ("history_compare.png", "tests/gui/test_history.py"),
    "layout-1280x720-setup.png": ("layout_1280x720_setup.png", "tests/gui/test_layout.py"),
    "layout-1280x720-result.png": ("layout_1280x720_result.png", "tests/gui/test_layout.py"),
    "layout-1920x1080-setup.png": ("layout_1920x1080_setup.png", "tests/gui/test_layout.py"),
    "layout-1920x1080-compare.png": ("layout_1920x1080_compare.png", "tests/gui/test_layout.py"),
}


#: the window-size screenshots of tests/gui/test_layout_sizes.py (kind, window size, view)
SIZES_PATTERN = re.compile(r"layout_(table|events|fasta|ra|anatomy)_(\d+x\d+)_([a-z-]+)\.png")
#: the RA and Anatomy runs show the table's tabs again: of theirs only the window and their own view are copied
OWN_VIEWS_ONLY = {"ra": ("result", "randomization"), "anatomy": ("result", "anatomy")}
SIZES_TEST = "tests/gui/test_layout_sizes.py"


def sizes_images(suite: Path = SUITE) -> dict[str, Path]:
    """docs/screenshots name → suite screenshot, for every window-size picture the suite saved."""
    found = {}
    for path in sorted(suite.glob("layout_*.png")):
        match = SIZES_PATTERN.fullmatch(path.name)
        if match and match[3] in OWN_VIEWS_ONLY.get(match[1], (match[3],)):
            found["sizes-{}-{}-{}.png".format(*match.groups())] = path
    return found


def compressed_copy(source: Path, target: Path, colours: int = 32) -> None:
    """``source`` written to ``target`` as a palette PNG of ``colours`` colours."""
    from PIL import Image

    with Image.open(source) as image:
        small = image.convert("RGB").quantize(colors=colours, method=Image.Quantize.MEDIANCUT,
                                               dither=Image.Dither.NONE)
        small.save(target, optimize=True)


def copy_sizes() -> int:
    images = sizes_images()
    if not images:
        print(f"no window-size screenshots in {SUITE}: run {SIZES_TEST} first", file=sys.stderr)
        return 1
    README_DIR.mkdir(parents=True, exist_ok=True)
    for image, source in images.items():
        compressed_copy(source, README_DIR / image)
        print(f"{README_DIR / image} ← {source}")
    return 0


def main(argv: list[str]) -> int:
    if "--sizes" in argv:
        return copy_sizes()
    missing = [src for src, _ in SOURCES.values() if not (SUITE / src).is_file()]
    if missing:
        print(f"not saved by the suite (run it first): {', '.join(missing)}", file=sys.stderr)
        return 1
    if "--check" in argv:
        return 0
    README_DIR.mkdir(parents=True, exist_ok=True)
    for image, (src, _test) in SOURCES.items():
        shutil.copyfile(SUITE / src, README_DIR / image)
        print(f"{README_DIR / image} ← {SUITE / src}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
