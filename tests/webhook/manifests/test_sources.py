"""webhook.manifests.sources: files, directories, glob patterns and stdin, and one problem per bad input."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from webhook.manifests import Problem, ignored, read_sources
from webhook.manifests.sources import MAX_INPUT_BYTES, NotText, read_text

LIMIT = 2**20 + 5  # a limit past the first chunk, so the count spans chunks


def texts(paths: list[str], stdin: str = "") -> tuple[list[tuple[str, str]], list[str]]:
    problems: list[Problem] = []
    found = list(read_sources(paths, problems, io.StringIO(stdin)))
    return found, [str(p) for p in problems]


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / ".hidden").mkdir()
    for name in ("a/one.yaml", "a/b/two.yml", "a/b/three.json", "a/notes.txt", "a/.hidden/four.yaml"):
        (tmp_path / name).write_text(f"# {name}\n", encoding="utf-8")
    return tmp_path


def test_a_directory_is_searched_recursively_for_manifests_only(tree: Path) -> None:
    found, problems = texts(["a"])
    assert [s for s, _t in found] == ["a/b/three.json", "a/b/two.yml", "a/one.yaml"]
    assert problems == []


def test_a_named_file_is_read_whatever_its_suffix(tree: Path) -> None:
    assert texts(["a/notes.txt"]) == ([("a/notes.txt", "# a/notes.txt\n")], [])


def test_a_glob_pattern_expands_like_a_shell(tree: Path) -> None:
    found, problems = texts(["a/**/*.y*ml"])
    assert [s for s, _t in found] == ["a/b/two.yml", "a/one.yaml"]
    assert problems == []


def test_a_pattern_matching_a_directory_reads_that_directory(tree: Path) -> None:
    assert [s for s, _t in texts(["a/[b]"])[0]] == ["a/b/three.json", "a/b/two.yml"]


def test_a_pattern_matching_nothing_is_a_problem(tree: Path) -> None:
    assert texts(["a/*.jsonl", "a/one.yaml"]) == ([("a/one.yaml", "# a/one.yaml\n")],
                                                  ["a/*.jsonl: no file matches this pattern"])


def test_a_file_whose_name_looks_like_a_pattern_is_read_as_named(tree: Path) -> None:
    (tree / "x[1].yaml").write_text("k: v\n", encoding="utf-8")
    assert texts(["x[1].yaml"]) == ([("x[1].yaml", "k: v\n")], [])


def test_missing_empty_and_unreadable_inputs_are_one_problem_each(tree: Path) -> None:
    (tree / "empty").mkdir()
    (tree / "latin1.yaml").write_bytes(b"name: caf\xe9\n")
    found, problems = texts(["nope.yaml", "empty", "latin1.yaml", "a/one.yaml"])
    assert [s for s, _t in found] == ["a/one.yaml"]
    assert problems == ["nope.yaml: no such file or directory",
                        "empty: no .yaml, .yml or .json files in this directory",
                        "latin1.yaml:1:10: not UTF-8 text"]  # where the byte is, as go-yaml refuses it


def test_a_broken_or_looping_symbolic_link_says_so(tree: Path) -> None:
    (tree / "dangling.yaml").symlink_to(tree / "gone.yaml")
    (tree / "loop1.yaml").symlink_to(tree / "loop2.yaml")
    (tree / "loop2.yaml").symlink_to(tree / "loop1.yaml")
    found, problems = texts(["dangling.yaml", "loop1.yaml", "a/one.yaml"])
    assert [s for s, _t in found] == ["a/one.yaml"]
    assert problems == ["dangling.yaml: cannot read: a symbolic link to a missing file",
                        "loop1.yaml: cannot read: Too many levels of symbolic links"]


def test_dash_reads_stdin_as_one_source(tree: Path) -> None:
    assert texts(["-"], stdin="kind: X\n") == ([("<stdin>", "kind: X\n")], [])


def test_ignore_globs_match_the_source_name() -> None:
    assert ignored("deploy/helm/x.yaml", ["deploy/helm/*"])
    assert not ignored("deploy/x.yaml", ["deploy/helm/*"])
    assert not ignored("deploy/x.yaml", [])


def test_standard_input_not_in_utf_8_is_the_same_problem_as_such_a_file() -> None:
    problems: list[Problem] = []
    latin1 = io.TextIOWrapper(io.BytesIO(b"name: caf\xe9\n"), encoding="utf-8", errors="surrogateescape")
    assert list(read_sources(["-"], problems, latin1)) == []
    assert [str(p) for p in problems] == ["<stdin>:1:10: not UTF-8 text"]
    utf8 = io.TextIOWrapper(io.BytesIO("name: café\n".encode()), encoding="utf-8")
    assert list(read_sources(["-"], problems, utf8)) == [("<stdin>", "name: café\n")]


# -- inputs that cannot be YAML or JSON text are refused while they are read ---------------------------------------


def test_a_nul_character_ends_the_read_with_its_line_and_column_in_characters(tree: Path) -> None:
    (tree / "nul.yaml").write_bytes("kind: X\nname: é\x00b\n".encode())
    assert texts(["nul.yaml", "a/one.yaml"]) == (
        [("a/one.yaml", "# a/one.yaml\n")],
        ["nul.yaml:2:8: invalid YAML: unacceptable character #x0000: special characters are not allowed"])


NUL_AT = "invalid YAML: unacceptable character #x0000: special characters are not allowed"


class Counted(io.BufferedReader):
    """A device opened as `read_sources` opens it, counting the bytes `read_text` takes from it."""

    taken = 0

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self.taken += len(chunk)
        return chunk


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_dev_zero_and_dev_urandom_are_refused_at_their_first_chunk(device: str) -> None:
    with Counted(io.FileIO(device)) as stream, pytest.raises(NotText):
        read_text(stream)
    assert stream.taken == 2**20
    found, problems = texts([device])
    assert found == []
    if device == "/dev/zero":
        assert problems == [f"/dev/zero:1:1: {NUL_AT}"]
    else:  # random bytes: almost always a byte that is not UTF-8 first, but in about 1 run in 120 a NUL comes first
        assert re.fullmatch(rf"/dev/urandom:\d+:\d+: (not UTF-8 text|{re.escape(NUL_AT)})", problems[0])
        assert len(problems) == 1


@pytest.mark.parametrize(("data", "problem"), [
    (b"a: 1\n\xff\0", ":2:1: not UTF-8 text"),
    (b"a: 1\n\xc3\0", ":2:1: not UTF-8 text"),  # a NUL cutting a character short: the character is the first fault
    (b"a: 1\n\0\xff", f":2:1: {NUL_AT}"),
    (b"a: \xc3\xa9\0\xff", f":1:5: {NUL_AT}"),
])
def test_the_first_fault_in_the_text_is_the_problem_whichever_it_is(tree: Path, data: bytes, problem: str) -> None:
    (tree / "bad.yaml").write_bytes(data)
    assert texts(["bad.yaml"]) == ([], [f"bad.yaml{problem}"])


@pytest.mark.parametrize(("size", "refused"), [(LIMIT - 1, False), (LIMIT, False), (LIMIT + 1, True)])
def test_an_input_is_refused_past_the_size_limit(size: int, refused: bool) -> None:
    text = "#" * (size - 1) + "\n"
    if refused:
        with pytest.raises(NotText, match=f"more than {LIMIT // 2**20} MiB, draguard's limit for one input"):
            read_text(io.BytesIO(text.encode()), LIMIT)
    else:
        assert read_text(io.BytesIO(text.encode()), LIMIT) == text


def test_a_character_cut_by_a_chunk_boundary_or_by_the_end_of_the_input(tree: Path) -> None:
    text = "x" * (2**20 - 1) + "é\n"  # the two bytes of é either side of the first chunk's end
    assert read_text(io.BytesIO(text.encode())) == text
    with pytest.raises(NotText, match="not UTF-8 text"):
        read_text(io.BytesIO("é".encode()[:1]))


def test_the_limit_stands_for_an_endless_standard_input_too() -> None:
    problems: list[Problem] = []

    class Endless(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
            buffer[:] = b"a" * len(buffer)
            return len(buffer)

    stdin = io.TextIOWrapper(io.BufferedReader(Endless()), encoding="utf-8")
    assert list(read_sources(["-"], problems, stdin)) == []
    assert [str(p) for p in problems] == [f"<stdin>: more than {MAX_INPUT_BYTES // 2**20} MiB, draguard's limit for "
                                          "one input"]


def test_line_breaks_read_as_newlines_and_a_leading_byte_order_mark_is_dropped() -> None:
    crlf_at_the_chunk_edge = b"x" * (2**20 - 1) + b"\r\n" + b"a\rb\r\n"
    assert read_text(io.BytesIO(crlf_at_the_chunk_edge)) == "x" * (2**20 - 1) + "\na\nb\n"
    assert read_text(io.BytesIO(b"\xef\xbb\xbfkind: X\r\n")) == "kind: X\n"
    assert read_text(io.BytesIO("a: \ufeff\n".encode())) == "a: \ufeff\n"  # only a leading one is a mark


def test_a_file_named_twice_is_read_once_under_its_first_name(tree: Path) -> None:
    (tree / "link.yaml").symlink_to(tree / "a" / "one.yaml")
    found, problems = texts(["a/one.yaml", "./a/one.yaml", "a", "link.yaml"])
    assert [s for s, _t in found] == ["a/one.yaml", "a/b/three.json", "a/b/two.yml"]
    assert problems == []
