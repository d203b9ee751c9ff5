"""`warm_up` (``anonstudio warmup``, the workbench at start) runs the methods' kernels (issue 17 item 4)."""


def test_warm_up_runs_the_demo_job_of_a_method():
    from anonstudio.core.warmup import warm_up

    ran = warm_up(methods={"mondrian"})
    assert [m.method for m in ran] == ["mondrian"]
    assert ran[0].skipped is None and ran[0].seconds > 0


def test_kernel_cache_is_cold_until_a_kernel_index_exists(tmp_path):
    from anonstudio.core.warmup import kernel_cache_is_cold

    assert kernel_cache_is_cold(str(tmp_path / "missing"))
    assert kernel_cache_is_cold(str(tmp_path))
    (tmp_path / "kernels_0123abcd").mkdir()
    (tmp_path / "kernels_0123abcd" / "_mst.merge_pass-300.py311.nbi").write_bytes(b"")
    assert not kernel_cache_is_cold(str(tmp_path))
