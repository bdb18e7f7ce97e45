"""certs.files: atomic replacement, private modes, and failures that leave no stray files."""

from __future__ import annotations

from pathlib import Path

import pytest

from certs import CertsError
from certs.files import DirectoryStore, write_atomic


def test_a_replaced_file_is_never_seen_half_written(tmp_path: Path) -> None:
    target = tmp_path / "tls.key"
    target.write_bytes(b"old")
    inode = target.stat().st_ino
    write_atomic(target, b"new", private=True)
    assert target.read_bytes() == b"new"
    assert target.stat().st_ino != inode  # a rename, not an in-place rewrite
    assert target.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["tls.key"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    (tmp_path / "tls.crt").mkdir()  # os.replace cannot put a file over a directory
    with pytest.raises(CertsError) as err:
        write_atomic(tmp_path / "tls.crt", b"data", private=False)
    assert err.value.message == f"{tmp_path}/tls.crt: cannot write: Is a directory"
    assert [p.name for p in tmp_path.iterdir()] == ["tls.crt"]


def test_save_writes_keys_first_and_deletes_what_is_set_to_none(tmp_path: Path) -> None:
    store = DirectoryStore(tmp_path / "certs")
    store.save({"tls.crt": b"c", "tls.key": b"k", "ca-next.key": b"n"})
    store.save({"ca-next.key": None})
    assert store.load() == {"tls.crt": b"c", "tls.key": b"k"}
    assert (tmp_path / "certs" / "tls.key").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "certs" / "tls.crt").stat().st_mode & 0o777 == 0o644


def test_a_directory_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "certs").write_text("")
    with pytest.raises(CertsError, match=f"^{tmp_path}/certs: not a directory$"):
        DirectoryStore(tmp_path / "certs").load()
    with pytest.raises(CertsError, match=f"^{tmp_path}/certs: cannot create: File exists$"):
        DirectoryStore(tmp_path / "certs").save({"tls.crt": b"c"})
