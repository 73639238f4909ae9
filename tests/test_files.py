"""dominoai._files: the one atomic write (text, bytes or a writer; a failure
leaves the earlier file and no temporary one) and the user data folder."""

from __future__ import annotations

import os

import pytest

from dominoai._files import ENV_DATA_DIR, atomic_write, user_data_path


@pytest.mark.parametrize("sync", [False, True])
def test_text_bytes_and_a_writer_are_written_whole(tmp_path, sync):
    p = tmp_path / "a.txt"
    assert atomic_write(p, "héllo\n", sync=sync) == p
    assert p.read_text(encoding="utf-8") == "héllo\n"
    atomic_write(str(p), b"\x00\x01", sync=sync)
    assert p.read_bytes() == b"\x00\x01"
    atomic_write(p, lambda tmp: tmp.write_text("by the writer", encoding="utf-8"), sync=sync)
    assert p.read_text(encoding="utf-8") == "by the writer"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["a.txt"]


def test_a_failing_writer_keeps_the_earlier_file_and_leaves_no_temporary(tmp_path):
    p = tmp_path / "a.txt"
    atomic_write(p, "before")

    def half(tmp):
        tmp.write_text("hal", encoding="utf-8")
        raise OSError("disk full")
    with pytest.raises(OSError, match="disk full"):
        atomic_write(p, half)
    assert p.read_text(encoding="utf-8") == "before"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["a.txt"]


def test_a_missing_folder_and_a_wrong_content_are_refused(tmp_path):
    with pytest.raises(OSError):
        atomic_write(tmp_path / "no" / "a.txt", "x")
    with pytest.raises(TypeError, match="content must be text, bytes or a writer, not int"):
        atomic_write(tmp_path / "a.txt", 3)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's")
def test_the_written_file_has_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    try:
        p = atomic_write(tmp_path / "a.txt", "x")
    finally:
        os.umask(umask)
    assert p.stat().st_mode & 0o777 == 0o644


def test_user_data_path_takes_the_override_then_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_DATA_DIR, str(tmp_path / "env"))
    assert user_data_path(tmp_path / "given") == tmp_path / "given"
    assert user_data_path() == tmp_path / "env"
    monkeypatch.delenv(ENV_DATA_DIR)
    assert user_data_path().name.lower() == "dominoai"
