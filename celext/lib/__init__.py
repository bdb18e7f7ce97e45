"""Function libraries of the DRA CEL environment, one module per upstream library (includes, semver, quantity,
lists, strings, format, regex, sets, optional), the operators, and `library`: how they are declared and bound."""

from celext.lib.library import Library, Overload, bind, no_such_overload, overload

__all__ = ["Library", "Overload", "bind", "no_such_overload", "overload"]
