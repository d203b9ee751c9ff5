"""A kernel cache built at packaging time is found by an install in another folder (issue 41 item 3)."""

from __future__ import annotations

from pathlib import Path

from anonstudio.core import kernels


def test_a_kernel_files_cache_folder_is_named_by_its_content_not_its_path(tmp_path):
    here = Path(kernels.__file__).with_name("_mondrian.py")
    copy = tmp_path / "elsewhere" / "kernels" / "_mondrian.py"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(here.read_bytes())
    assert kernels.cache_subpath(str(copy)) == kernels.cache_subpath(str(here))
    copy.write_bytes(here.read_bytes() + b"\n# changed\n")
    assert kernels.cache_subpath(str(copy)) != kernels.cache_subpath(str(here))
    assert kernels.cache_subpath(str(here)).startswith("kernels_")  # what kernel_cache_is_cold looks for


def test_the_shipped_cache_fills_what_the_users_cache_lacks_and_never_overwrites(tmp_path, monkeypatch):
    shipped = tmp_path / "shipped"
    sub = shipped / "kernels_0123"
    sub.mkdir(parents=True)
    (sub / "_mst.merge-3.py311.nbi").write_bytes(b"index")
    (sub / "_mst.merge-3.py311.1.nbc").write_bytes(b"code")
    (sub / "notes.txt").write_text("not a cache file")
    monkeypatch.setattr(kernels, "shipped_cache_folder", lambda: str(shipped))
    user = tmp_path / "user" / "kernels_0123"
    user.mkdir(parents=True)
    (user / "_mst.merge-3.py311.nbi").write_bytes(b"the user's own")
    kernels.seed_from_shipped(str(user))
    assert sorted(p.name for p in user.iterdir()) == ["_mst.merge-3.py311.1.nbc", "_mst.merge-3.py311.nbi"]
    assert (user / "_mst.merge-3.py311.nbi").read_bytes() == b"the user's own"
    assert (user / "_mst.merge-3.py311.1.nbc").read_bytes() == b"code"
    other = tmp_path / "user" / "kernels_none"
    other.mkdir()
    kernels.seed_from_shipped(str(other))  # nothing shipped for it: nothing copied
    assert not list(other.iterdir())
