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


def test_a_run_waits_while_the_first_start_compiles_kernels_and_a_file_opens_meanwhile(
        window, adult_csv, sex_hierarchy_csv, qtbot, monkeypatch, tmp_path):
    """numba adding code on one thread while another runs a kernel can crash the process (numba issues 10563,
    10614): a run started while the first-start preload compiles waits for it — saying so, and Cancel still
    works — while opening a file (no kernels) goes ahead at once."""
    import threading
    import time

    from anonstudio.core import workspace as proj
    from tests.gui.test_main_window import _open_adult_with_roles

    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)
    workers.preload_engine().join(60)  # the window's own preload (imports only here) must not set "done" later
    compiled = threading.Event()
    preload = threading.Thread(target=compiled.wait, args=(30,), daemon=True)  # stands for warm_up()
    preload.start()
    monkeypatch.setattr(workers, "_preload_thread", preload)
    monkeypatch.setattr(workers, "preload_state", "compiling")
    started = []
    real = proj.run_request
    monkeypatch.setattr(proj, "run_request", lambda *a, **k: started.append(time.perf_counter()) or real(*a, **k))

    # Cancel during the wait: the run never starts
    with qtbot.waitSignal(window.runFinished, timeout=10_000):
        window.start_run("mondrian", {"k": 2})
        qtbot.waitUntil(lambda: "preparing kernels" in window.statusBar().currentMessage()
                        or "preparing kernels" in window.panes["Run"].message.text(), timeout=5_000)
        window.cancel_run()
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=5_000)
    assert started == []

    # a file opens while the kernels compile
    other = tmp_path / "other.csv"
    other.write_text("a;b\n1;2\n3;4\n", encoding="utf-8")
    with qtbot.waitSignal(window.dataOpened, timeout=5_000):
        window.open_data_async(other, "table")
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=5_000)
    _open_adult_with_roles(window, adult_csv, sex_hierarchy_csv)

    # a run waits for the compile, then runs
    with qtbot.waitSignal(window.runFinished, timeout=20_000) as finished:
        window.start_run("mondrian", {"k": 2})
        qtbot.wait(300)
        assert started == []
        released = time.perf_counter()
        monkeypatch.setattr(workers, "preload_state", "done")
        compiled.set()
    assert len(started) == 1 and started[0] >= released
    outcome = finished.args[0]
    assert getattr(outcome, "report", None) is not None, outcome
    assert outcome.report["verification"]["passed"]
