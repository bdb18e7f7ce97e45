"""Wording shared by draguard's own messages. Texts that mirror the API server or cel-go keep their own words."""

from __future__ import annotations

_VOWELS = frozenset("aeiou")


def with_article(word: str) -> str:
    """`word` after its indefinite article, by its first letter: `an int`, `an empty`, `a bool`."""
    return ("an " if word[:1].lower() in _VOWELS else "a ") + word
