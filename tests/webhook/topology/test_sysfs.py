"""Reading a sysfs root: what is not one, and files that cannot be sysfs attributes, are one-line errors."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import traversable_tree
from webhook.topology.sysfs import Sysfs, SysfsAccessError, SysfsError


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "devices/system/node/node0").mkdir(parents=True)
    (tmp_path / "devices/system/node/node0/distance").write_text("10\n")
    return tmp_path


def error(callable_: object, *args: str) -> str:
    assert callable(callable_)
    with pytest.raises(SysfsError) as err:
        callable_(*args)
    return err.value.message


def test_missing_root(tmp_path: Path) -> None:
    assert error(Sysfs.open, str(tmp_path / "nope")) == f"sysfs root {tmp_path}/nope: no such directory"


def test_root_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    assert error(Sysfs.open, str(tmp_path / "file")) == f"sysfs root {tmp_path}/file: not a directory"


def test_directory_that_is_not_sysfs(tmp_path: Path) -> None:
    (tmp_path / "etc").mkdir()
    assert error(Sysfs.open, str(tmp_path)) == (
        f"{tmp_path} is not a sysfs root: it has none of bus/pci/devices, devices/system/node, devices/system/cpu "
        "(pass --sysfs-root DIR, the directory where sysfs is mounted, usually /sys)"
    )


def test_reads_text_and_reports_absence(root: Path) -> None:
    sysfs = Sysfs.open(root)
    assert sysfs.read("devices/system/node/node0/distance") == "10\n"
    assert sysfs.read("devices/system/node/node1/distance") is None
    assert sysfs.read("devices/system/node/node0/distance/x") is None  # a parent is a file
    assert sysfs.listdir("devices/system/node") == ["node0"]
    assert sysfs.listdir("bus/pci/devices") is None


def test_a_directory_where_a_file_belongs(root: Path) -> None:
    (root / "devices/system/node/node0/cpulist").mkdir()
    path = root / "devices/system/node/node0/cpulist"
    assert error(Sysfs.open(root).read, "devices/system/node/node0/cpulist") == (
        f"{path}: is a directory, expected a sysfs attribute file"
    )


def test_a_fifo_is_not_opened(root: Path) -> None:
    path = root / "devices/system/node/node0/cpulist"
    os.mkfifo(path)  # opening it would block forever
    assert error(Sysfs.open(root).read, "devices/system/node/node0/cpulist") == (
        f"{path}: not a regular file, so not a sysfs attribute"
    )


def test_an_oversized_file(root: Path) -> None:
    path = root / "devices/system/node/node0/cpulist"
    path.write_text("0," * 40_000)
    assert error(Sysfs.open(root).read, "devices/system/node/node0/cpulist") == (
        f"{path}: larger than 64 KiB, so not a sysfs attribute"
    )


def test_binary_content(root: Path) -> None:
    path = root / "devices/system/node/node0/cpulist"
    path.write_bytes(b"\xff\xfe0")
    assert (
        error(Sysfs.open(root).read, "devices/system/node/node0/cpulist") == f"{path}: malformed value: not UTF-8 text"
    )


def test_utf8_text_is_read_as_go_reads_it(root: Path) -> None:
    """Go's strings.TrimSpace and strings.Fields decode UTF-8: a no-break space (U+00A0) is a space there."""
    path = root / "devices/system/node/node0/cpulist"
    path.write_bytes("0-1\u00a0\n".encode())
    assert Sysfs.open(root).read("devices/system/node/node0/cpulist") == "0-1\u00a0\n"


def test_a_symlink_loop_cannot_be_read(root: Path) -> None:
    """A fact about the tree, as a malformed value is (it was a SysfsAccessError, which stops the run)."""
    path = root / "devices/system/node/node0/cpulist"
    path.symlink_to(path)
    sysfs = Sysfs.open(root)
    assert error(sysfs.read, "devices/system/node/node0/cpulist") == (
        f"{path}: cannot read: Too many levels of symbolic links"
    )
    with pytest.raises(SysfsError) as err:
        sysfs.read("devices/system/node/node0/cpulist")
    assert not isinstance(err.value, SysfsAccessError)
    assert sysfs.listdir("devices/system/node/node0/cpulist") is None  # no directory either


def test_a_symlink_to_nothing_is_there_but_cannot_be_read(root: Path) -> None:
    path = root / "devices/system/node/node0/cpulist"
    path.symlink_to("../node9/cpulist")
    sysfs = Sysfs.open(root)
    assert error(sysfs.read, "devices/system/node/node0/cpulist") == (
        f"{path}: a symbolic link to ../node9/cpulist, which does not exist"
    )
    assert sysfs.read("devices/system/node/node0/has_cpu") is None  # absent is still absent


# ---- permissions: root reads whatever the mode, so these run as an unprivileged user ----
def unprivileged(action: Callable[[], object]) -> str:
    """The SysfsError message `action` raises, run as nobody in a forked child when we are root (the
    euid is process-wide: changing it here would touch every thread of the test worker)."""
    if os.geteuid() != 0:
        return error(action)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges, report the message or what went wrong, never return
        code = 1
        try:
            os.close(read_end)
            os.setgid(65534)
            os.setuid(65534)
            try:
                action()
                message = "no SysfsError raised"
            except SysfsError as err:
                message, code = err.message, 0
            except BaseException as err:  # any other outcome is the test's failure: reported
                message = f"{type(err).__name__}: {err}"
            os.write(write_end, message.encode())
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        message = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, message
    return message


@pytest.fixture
def open_tree() -> Iterator[Path]:
    """A sysfs tree any user may traverse (pytest's tmp_path sits under a 0700 directory)."""
    with traversable_tree("draguard-sysfs-") as top:
        (top / "devices/system/node/node0").mkdir(parents=True)
        (top / "devices/system/node/node0/distance").write_text("10\n")
        yield top


def test_an_unreadable_file(open_tree: Path) -> None:
    path = open_tree / "devices/system/node/node0/distance"
    path.chmod(0)
    message = unprivileged(lambda: Sysfs.open(open_tree).read("devices/system/node/node0/distance"))
    assert message == f"{path}: cannot read: Permission denied"


def test_an_unlistable_directory(open_tree: Path) -> None:
    (open_tree / "devices/system/node").chmod(0o311)  # enter but not list
    message = unprivileged(lambda: Sysfs.open(open_tree).listdir("devices/system/node"))
    assert message == f"{open_tree}/devices/system/node: cannot list: Permission denied"


def test_an_unreadable_root(open_tree: Path) -> None:
    open_tree.chmod(0)
    assert unprivileged(lambda: Sysfs.open(open_tree)) == f"sysfs root {open_tree}: cannot read: Permission denied"
    inner = open_tree / "devices"
    assert unprivileged(lambda: Sysfs.open(inner)) == f"sysfs root {inner}: cannot read: Permission denied"


def test_paths_never_climb_out_of_the_root(root: Path) -> None:
    with pytest.raises(ValueError, match="not a plain relative sysfs path"):
        Sysfs.open(root).read("bus/pci/devices/../../../etc/passwd")
