"""The docs show screenshots the suite takes, not hand-made pictures (issue 15, "Done when"): every image the
docs pages name (docs/screenshots.md and the others under docs/) is listed in tests/gui/readme_screenshots.py with the suite screenshot it copies, and that name is
saved by the test the list names."""

from __future__ import annotations

import re
from pathlib import Path

from tests.gui.readme_screenshots import README_DIR, ROOT, SIZES_TEST, SOURCES

#: a window-size picture's docs name (kind, window size, view), as readme_screenshots.sizes_images writes it
SIZES_NAME = re.compile(r"sizes-(table|events|fasta|ra|anatomy)-\d+x\d+-[a-z-]+\.png")


def test_every_readme_image_is_a_copy_of_a_suite_screenshot():
    pages = [page.read_text(encoding="utf-8") for page in sorted((ROOT / "docs").glob("*.md"))]
    shown = [name for text in pages for name in re.findall(r"!\[[^\]]*\]\(screenshots/([^)]+)\)", text)]
    # the window-size pictures (docs/screenshots/sizes-*.png) are copied by readme_screenshots.py --sizes
    sizes = {name for name in shown if SIZES_NAME.fullmatch(name)}
    assert shown and sorted(set(shown) - sizes) == sorted(SOURCES), "docs images and readme_screenshots.SOURCES differ"
    for image in sizes:
        assert (README_DIR / image).is_file(), f"docs/screenshots/{image} missing: run readme_screenshots.py --sizes"
    sizes_test = (ROOT / SIZES_TEST).read_text(encoding="utf-8")
    assert not sizes or 'f"layout_{name}_{w}x{h}_' in sizes_test, f"{SIZES_TEST} no longer saves the window sizes"
    for image, (source, test) in SOURCES.items():
        assert (README_DIR / image).is_file(), f"docs/screenshots/{image} missing: run tests/gui/readme_screenshots.py"
        text = (ROOT / test).read_text(encoding="utf-8")
        stem = Path(source).stem
        # saved literally, or by an f-string such as f"window_{w}x{h}_mst" / f"e2e_{kind}_{title}"
        literal = f'"{stem}"' in text or f"'{stem}'" in text
        saved = [a or b for a, b in re.findall(r"screenshot\([^,]+,\s*(?:f\"([^\"]+)\"|f'([^']+)')", text)]
        pattern = any(re.fullmatch(re.sub(r"\\\{.*?\\\}", ".+", re.escape(f)), stem) for f in saved)
        assert literal or pattern, f"{test} does not save the screenshot {stem}"
