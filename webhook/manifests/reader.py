"""The one way in: paths -> placed objects and problems, through the fastest backend that reads a text
exactly as the reference (ruamel) would.

    read(paths) -> sources (files, dirs, globs, `-`) -> parse each text:
        JSON object text (places looked up when asked)  -> webhook.manifests.jsontext
        YAML 1.2 without merge keys, tags or errors     -> webhook.manifests.libyaml
        a stream of JSON documents (`jq -c`)            -> each document read alone, as above
        anything else, and every problem's wording      -> webhook.manifests.roundtrip
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TextIO

from webhook.manifests import aliases, libyaml
from webhook.manifests.objects import Locator
from webhook.manifests.problems import Problem
from webhook.manifests.sources import ignored, read_sources
from webhook.wire import Obj, go_json, kind_of

if TYPE_CHECKING:
    from webhook.manifests import roundtrip


def parse(text: str, source: str, problems: list[Problem]) -> list[Locator]:
    """The objects of one text (problems appended)."""
    try:
        return _parse(text, source, problems)
    except aliases.Refused as refused:
        problems.append(Problem(source, f"invalid YAML: {refused.message}", refused.line, refused.column))
    except RecursionError as err:  # libyaml's nesting limit, or Python's recursion in the readers after it
        mark = err.args[1] if len(err.args) > 1 else None  # libyaml's: (its message, its mark)
        problems.append(Problem(source, "invalid YAML: nested too deeply for draguard's reader",
                                mark.line + 1 if mark else None, mark.column + 1 if mark else None))
    return []


def _parse(text: str, source: str, problems: list[Problem]) -> list[Locator]:
    json_text = libyaml.JSON_START.match(text) is not None
    if json_text:  # read as kubectl reads it: JSON, a lone surrogate's escape as U+FFFD (so by every reader below)
        from webhook.manifests import jsontext  # imported where a JSON text needs it

        text = go_json(text)

        try:
            docs = jsontext.load(text, source, _reread)
        except jsontext.NotJSON as err:
            problems.append(Problem(source, f"invalid JSON: {err}"))
            return []
        if docs is not None:
            return list(docs)
    fast = libyaml.load(text, source)
    if fast is not None:
        return list(fast)
    if json_text:  # maybe a stream of JSON documents (`jq -c`), which no YAML reader takes
        streamed = _stream(text, source, problems)
        if streamed is not None:
            return streamed
    from webhook.manifests import roundtrip  # the fallback: imported only for a text the fast paths decline

    loaded = roundtrip.load_text(text, source)
    problems.extend(loaded.problems)
    return list(loaded.manifests)


def _stream(text: str, source: str, problems: list[Problem]) -> list[Locator] | None:
    """The objects of a stream of JSON documents, each document read as a text of its own by `parse` and
    placed back where it starts; None when `text` is not a JSON stream. A document that is not a JSON object
    makes the whole text one problem, as a YAML syntax error does."""
    from webhook.manifests import jsontext

    pieces = jsontext.stream(text)
    if pieces is None:
        return None
    if isinstance(pieces, jsontext.StreamError):
        problems.append(Problem(source, pieces.message, pieces.line, pieces.column))
        return []
    docs: list[Locator] = []
    for index, piece in enumerate(pieces):
        found: list[Problem] = []
        docs += [jsontext.StreamDoc(doc, index, piece) for doc in parse(piece.text, source, found)]
        for problem in found:
            problems.append(problem if problem.line is None else problem._replace(
                line=problem.line + piece.line,
                column=(problem.column or 1) + piece.column if problem.line == 1 else problem.column))
    return docs


def _reread(text: str, source: str) -> list[Locator]:
    """A JSON text read by the YAML backends (for its places)."""
    fast = libyaml.load(text, source)
    if fast is not None:
        return list(fast)
    from webhook.manifests import roundtrip

    return list(roundtrip.load_text(text, source).manifests)


def read(paths: Iterable[str], *, kinds: frozenset[str] | None = None, ignore: Sequence[str] = (),
         stdin: TextIO | None = None) -> tuple[list[Locator], list[Problem]]:
    """Every object in `paths` (of `kinds`, when given), skipping sources that match an `ignore` glob.

    Problems (unreadable files, invalid YAML, documents that are not objects) come back in input order;
    reading carries on past each."""
    objects, problems = read_texts(paths, kinds=kinds, ignore=ignore, stdin=stdin)
    return [doc for doc, _text in objects], problems


def read_texts(paths: Iterable[str], *, kinds: frozenset[str] | None = None, ignore: Sequence[str] = (),
               stdin: TextIO | None = None) -> tuple[list[tuple[Locator, str]], list[Problem]]:
    """`read`, each object with the text it was read from (to look at how a value is written)."""
    problems: list[Problem] = []
    objects: list[tuple[Locator, str]] = []
    for source, text in read_sources(paths, problems, stdin):
        if ignore and ignored(source, ignore):
            continue
        for doc in parse(text, source, problems):
            if kinds is None or kind_of(doc.obj) in kinds:
                objects.append((doc, text))
    return objects, problems


def read_values(paths: Iterable[str], kinds: frozenset[str], *, stdin: TextIO | None = None
                ) -> tuple[list[Obj], list[Problem]]:
    """The objects of `kinds`: an inventory (--slices, --classes)."""
    objects, problems = read(paths, kinds=kinds, stdin=stdin)
    return [o.obj for o in objects], problems


def load_paths(paths: Iterable[str], *, stdin: TextIO | None = None) -> roundtrip.Loaded:
    """Every object through the reference backend alone (ruamel nodes kept): for tests that compare backends."""
    from webhook.manifests import roundtrip

    loaded = roundtrip.Loaded()
    for source, text in read_sources(paths, loaded.problems, stdin):
        parsed = roundtrip.load_text(text, source)
        loaded.manifests += parsed.manifests
        loaded.problems += parsed.problems
    return loaded
