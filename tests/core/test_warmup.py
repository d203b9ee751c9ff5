"""`warm_up` (``anonstudio warmup``, the workbench at start) runs the methods' kernels (issue 17 item 4)."""


def test_warm_up_runs_the_demo_job_of_a_method():
    from anonstudio.core.warmup import warm_up

    ran = warm_up(methods={"mondrian"})
    assert [m.method for m in ran] == ["mondrian"]
    assert ran[0].skipped is None and ran[0].seconds > 0
