"""Paths as a user gives them -> `(source, text)` pairs: files, directories, glob patterns and `-` (stdin).

A directory is searched recursively for *.yaml, *.yml and *.json, skipping hidden files and folders and
following links to folders (each folder once); a pattern (`slices/*.yaml`, `deploy/**/*.json`) that names no
existing file is expanded like a shell would, for CI configurations that pass patterns quoted. Every unreadable
input (a link to nothing, a folder without permission) is one `Problem`; reading goes on.

Inputs are read in chunks and refused as soon as they cannot be YAML or JSON text: bytes that are not UTF-8, a
NUL character (neither format allows one), or more than MAX_INPUT_BYTES (draguard's own limit). So
`draguard validate /dev/zero`, `/dev/urandom` or an endless pipe ends with one problem, not with all memory.
"""

from __future__ import annotations

import codecs
import fnmatch
import io
import os
import stat
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, TextIO

from webhook.manifests.problems import Problem

SUFFIXES = (".yaml", ".yml", ".json")
STDIN = "-"
STDIN_SOURCE = "<stdin>"
_GLOB_CHARS = frozenset("*?[")
MAX_INPUT_BYTES = 256 * 2**20  # per input: a cluster-wide `kubectl get -o yaml` dump is tens of MB
_CHUNK = 2**20
NOT_UTF8 = "not UTF-8 text"


class NotText(Exception):
    """An input refused while it was read (`read_text`): the message, and where in the text when that is known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.problem = (message, line, column)


def read_text(stream: BinaryIO, limit: int = MAX_INPUT_BYTES) -> str:
    """A binary stream's UTF-8 text, read in chunks, with universal newlines (`\r\n` and `\r` read as `\n`, as
    Python's text files read them) and without a leading byte order mark (libyaml's marks do not count it, so every
    offset after it would be one off; `--fix` writes it back: webhook.fix.write_file). Raises NotText at the first
    byte that is not UTF-8, at a NUL character (with its line and column; the words are the YAML reader's) or past
    `limit` bytes. Of a bad byte and a NUL, the first in the text is the one reported (random bytes, /dev/urandom,
    are almost always refused as not UTF-8, but now and then for a NUL that comes before any bad byte).

    A JSON text (`JSON_START`: kubectl reads it with Go's JSON decoder) is read as that decoder reads it: a byte that
    is not UTF-8 inside a string is U+FFFD (`webhook.wire.go_strings`); only one outside every string is refused.
    Bytes are decoded strictly until the first bad one, so a UTF-8 text costs what it did; a text that is no JSON
    is refused at once there, as before."""
    utf8 = codecs.getincrementaldecoder("utf-8")()
    decoder = io.IncrementalNewlineDecoder(utf8, translate=True)
    parts: list[str] = []
    size = 0
    lenient = False  # a bad byte met in a JSON text: from then on each is decoded as a lone surrogate

    def decode(data: bytes, final: bool) -> str:
        nonlocal lenient
        state = decoder.getstate()
        try:
            return decoder.decode(data, final=final)
        except UnicodeDecodeError:  # decoded again from where it was, each bad byte kept as a lone surrogate
            decoder.setstate(state)
            utf8.errors, lenient = "surrogateescape", True
            text = decoder.decode(data, final=final)
            _json_or_refused("".join(parts) + text)
            return text

    while chunk := stream.read(_CHUNK):
        nul = chunk.find(b"\0")
        text = decode(chunk if nul < 0 else chunk[:nul], nul >= 0)
        if nul >= 0:
            before = "".join(parts) + text
            if lenient:
                _go_text(before)  # a bad byte outside a string before the NUL is the first fault
            line = before.count("\n") + 1
            raise NotText("invalid YAML: unacceptable character #x0000: special characters are not allowed",
                          line, len(before) - before.rfind("\n"))
        size += len(chunk)
        if size > limit:
            raise NotText(f"more than {limit // 2**20} MiB, draguard's limit for one input")
        parts.append(text)
    parts.append(decode(b"", True))  # a text that ends inside a character: that character is not UTF-8
    text = "".join(parts)
    text = text[1:] if text.startswith("\ufeff") else text
    return _json_read(text) if lenient else text


def _json_or_refused(text: str) -> None:
    """Nothing for the start of a JSON text decoded with errors="surrogateescape" whose bad bytes so far are inside
    strings (`_go_text` reads all of it at the end); NotText at the first byte that is not UTF-8 outside a string,
    or at the first of any other text (YAML: go-yaml, kubectl's reader, refuses it)."""
    from webhook.manifests.libyaml import JSON_START
    from webhook.wire import first_bad_byte

    text = text[1:] if text.startswith("\ufeff") else text  # as the reader reads it: its columns too
    if JSON_START.match(text):
        _go_text(text)
        return
    bad = first_bad_byte(text)
    raise NotText(NOT_UTF8, *((bad.line, bad.column) if bad else ()))


def _go_text(text: str) -> str:
    """A JSON text decoded with errors="surrogateescape" as Go's decoder reads it (`go_strings`), or NotText at its
    first byte that is not UTF-8 outside a string."""
    from webhook.wire import BadByte, go_strings

    try:
        return go_strings(text)
    except BadByte as bad:
        raise NotText(NOT_UTF8, bad.line, bad.column) from None


def _json_read(text: str) -> str:
    """A whole text holding bytes that are not UTF-8 (decoded with errors="surrogateescape") that starts as JSON:
    as Go's JSON decoder reads it (`_go_text`) when the reader (`webhook.manifests.reader`) reads it as JSON, a
    JSON text or a stream of them; NotText at its first bad byte when the reader takes it as YAML after all (a
    flow mapping, `{a: 1}`, or JSON followed by YAML documents), as go-yaml refuses any such byte."""
    from webhook.manifests import jsontext
    from webhook.wire import first_bad_byte

    read = _go_text(text)
    try:
        as_json = jsontext.load(read, "", lambda _text, _source: ()) is not None
    except jsontext.NotJSON:  # the reader refuses it as JSON: that refusal, not this one
        as_json = True
    if as_json or isinstance(jsontext.stream(read), list):
        return read
    bad = first_bad_byte(text)
    raise NotText(NOT_UTF8, *((bad.line, bad.column) if bad else ()))


def cannot_read(err: NotText | OSError) -> str:
    """Why an input could not be read, in one line (`cannot read: ...`): a refused text or an OS error."""
    return f"cannot read: {err}" if isinstance(err, NotText) else f"cannot read: {err.strerror or err}"


def read_file(path: str | Path, limit: int = MAX_INPUT_BYTES) -> str:
    """A file's text as `read_text` reads it (raises NotText or OSError: `cannot_read` words either)."""
    with Path(path).open("rb") as stream:
        return read_text(stream, limit)


def read_sources(paths: Iterable[str], problems: list[Problem], stdin: TextIO | None = None
                 ) -> Iterator[tuple[str, str]]:
    """Every input text in order, each file once however many paths name it (`lint a.yaml .` reads a.yaml once,
    under its first name); problems are appended to `problems` as they are met."""
    seen: set[tuple[int, int]] = set()
    for raw in paths:
        if raw == STDIN:
            text = read_stdin(stdin or sys.stdin, problems)
            if text is not None:
                yield STDIN_SOURCE, text
            continue
        for file in _files(raw, problems):
            try:
                with file.open("rb") as stream:
                    info = os.fstat(stream.fileno())
                    where = (info.st_dev, info.st_ino)  # the file, by any name (a link, `./`, a directory walk)
                    if where in seen:
                        continue
                    seen.add(where)
                    text = read_text(stream)
            except NotText as err:
                problems.append(Problem(str(file), *err.problem))
            except OSError as err:
                problems.append(Problem(str(file), cannot_read(err)))
            else:
                yield str(file), text


STDIN_CLOSED = "cannot read: standard input is closed"


def read_stdin(stream: TextIO | None, problems: list[Problem]) -> str | None:
    """Standard input as UTF-8 text, as a file is read (None, and a problem, when it is not): Python's own stdin
    decoding would pass the bad bytes on as lone surrogates for the YAML reader to trip over. A closed standard
    input (`<&-`: Python's `sys.stdin` is None) is a problem too, not an empty input."""
    if stream is None:
        problems.append(Problem(STDIN_SOURCE, STDIN_CLOSED))
        return None
    raw = getattr(stream, "buffer", None)
    if raw is None:  # a text stream a caller handed in
        return stream.read()
    try:
        return read_text(raw)
    except NotText as err:
        problems.append(Problem(STDIN_SOURCE, *err.problem))
        return None
    except OSError as err:  # standard input a directory (`< /tmp`), or a device that fails
        problems.append(Problem(STDIN_SOURCE, cannot_read(err)))
        return None


def ignored(source: str, globs: Sequence[str]) -> bool:
    """Whether a source matches one of `ignore`'s globs (fnmatch, as a policy's `ignore` list says)."""
    return any(fnmatch.fnmatch(source, pattern) for pattern in globs)


def _files(raw: str, problems: list[Problem]) -> list[Path]:
    path = Path(raw)
    if path.is_dir():
        before = len(problems)
        files = _directory(path, problems)
        if not files and len(problems) == before:  # an unreadable directory says so instead
            problems.append(Problem(raw, "no .yaml, .yml or .json files in this directory"))
        return files
    if path.exists():
        return [path]
    broken = broken_link(path)
    if broken is not None:
        problems.append(Problem(raw, broken))
        return []
    if _GLOB_CHARS & set(raw):
        import glob  # only for a pattern passed quoted

        matches = sorted(glob.glob(raw, recursive=True))
        if not matches:
            problems.append(Problem(raw, "no file matches this pattern"))
        found: list[Path] = []
        for match in map(Path, matches):
            found += _directory(match, problems) if match.is_dir() else [match]
        return found
    problems.append(Problem(raw, "no such file or directory"))
    return []


def broken_link(path: Path) -> str | None:
    """Why a symbolic link cannot be read (a link to nothing, or a loop of links), not "no such file"; None for
    anything else."""
    if not path.is_symlink():
        return None
    try:
        path.stat()
    except OSError as err:
        reason = "a symbolic link to a missing file" if isinstance(err, FileNotFoundError) else err.strerror
        return f"cannot read: {reason or err}"
    return None


def _directory(path: Path, problems: list[Problem]) -> list[Path]:
    """The *.yaml, *.yml and *.json files below `path`, hidden files and folders left out. What cannot be read
    (a folder without permission, a link to nothing, a loop of links) is a problem, as when named directly. Links
    to folders are followed, each folder walked once: a link back up the tree (a loop) is not walked again."""
    found: list[Path] = []
    walked: set[tuple[int, int]] = set()
    _first_visit(path, walked)

    def unreadable(err: OSError) -> None:
        problems.append(Problem(err.filename or str(path), f"cannot read: {err.strerror or err}"))

    for root, folders, names in os.walk(path, onerror=unreadable, followlinks=True):
        # sorted, so that of two names for one folder the first in order is walked, on every run
        folders[:] = [name for name in sorted(folders)
                      if not name.startswith(".") and _first_visit(Path(root, name), walked)]
        for name in names:
            file = Path(root, name)
            if name.startswith(".") or file.suffix not in SUFFIXES:
                continue
            if file.is_file():
                found.append(file)
                continue
            unread = broken_link(file) or _not_regular(file)
            if unread is not None:
                problems.append(Problem(str(file), unread))
    return sorted(found)


def _not_regular(file: Path) -> str | None:
    """Why a walk does not read a named pipe, socket or device that has a manifest's name (reading a pipe would wait
    for a writer, forever in CI); None for a folder. Named on the command line, such a file is read."""
    try:
        mode = file.stat().st_mode
    except OSError as err:
        return f"cannot read: {err.strerror or err}"
    if stat.S_ISDIR(mode):
        return None
    kind = "a named pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
    return f"cannot read: {kind}, not a regular file (name it on the command line to read it)"


def _first_visit(folder: Path, walked: set[tuple[int, int]]) -> bool:
    """Whether the walk has not been in `folder` yet, by any name (and notes that it has now)."""
    try:
        info = folder.stat()
    except OSError:
        return True  # the walk says why it cannot be read
    key = (info.st_dev, info.st_ino)
    if key in walked:
        return False
    walked.add(key)
    return True
