"""Issue 17 item 4: on a first start (empty kernel cache) the workbench compiles the kernels in the
background and says so in the status bar."""

from __future__ import annotations

from anonstudio.gui import workers


def test_status_bar_says_preparing_kernels_while_they_compile(window, monkeypatch, screenshot):
    monkeypatch.setattr(workers, "preload_state", "compiling")
    window._show_kernel_state()
    assert window.statusBar().currentMessage().startswith("preparing kernels…")
    screenshot(window, "status-preparing-kernels")
    monkeypatch.setattr(workers, "preload_state", "done")
    window._show_kernel_state()
    assert window.statusBar().currentMessage() == "kernels ready"
    assert not window._kernel_timer.isActive()
