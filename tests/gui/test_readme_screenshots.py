"""The docs show screenshots the suite takes, not hand-made pictures (issue 15, "Done when"): every image the
docs pages name (docs/screenshots.md and the others under docs/) is listed in tests/gui/readme_screenshots.py with the suite screenshot it copies, and that name is
saved by the test the list names."""

from __future__ import annotations

import re
from pathlib import Path

from tests.gui.readme_screenshots import README_DIR, ROOT, SOURCES


def test_every_readme_image_is_a_copy_of_a_suite_screenshot():
    pages = [page.read_text(encoding="utf-8") for page in sorted((ROOT / "docs").glob("*.md"))]
    shown = [name for text in pages for name in re.findall(r"!\[[^\]]*\]\(screenshots/([^)]+)\)", text)]
    assert shown and sorted(set(shown)) == sorted(SOURCES), "docs images and readme_screenshots.SOURCES differ"
    for image, (source, test) in SOURCES.items():
        assert (README_DIR / image).is_file(), f"docs/screenshots/{image} missing: run tests/gui/readme_screenshots.py"
        text = (ROOT / test).read_text(encoding="utf-8")
        stem = Path(source).stem
        # saved literally, or by an f-string such as f"window_{w}x{h}_mst" / f"e2e_{kind}_{title}"
        literal = f'"{stem}"' in text or f"'{stem}'" in text
        saved = [a or b for a, b in re.findall(r"screenshot\([^,]+,\s*(?:f\"([^\"]+)\"|f'([^']+)')", text)]
        pattern = any(re.fullmatch(re.sub(r"\\\{.*?\\\}", ".+", re.escape(f)), stem) for f in saved)
        assert literal or pattern, f"{test} does not save the screenshot {stem}"
