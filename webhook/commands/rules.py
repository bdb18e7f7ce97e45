"""`draguard rules`: the rule catalogue, with each rule's default action, origin and summary."""

from __future__ import annotations

import argparse

HELP = "list every rule: id, default action, origin (kubernetes or draguard), from which Kubernetes release and " \
    "under which feature gates it applies, and what it checks"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    table = parser.add_mutually_exclusive_group()  # the table goes to stdout or into a file, not both
    table.add_argument("--markdown", action="store_true", help="print the README catalogue table instead")
    table.add_argument("--readme", metavar="FILE",
                       help="rewrite the table between the rules markers of FILE (e.g. README.md) in place")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from webhook.errors import DraguardError
    from webhook.rules import CATALOGUE
    from webhook.rules.docs import BEGIN, END, applies, catalogue_markdown, replace_section

    if args.readme:
        from webhook.manifests.sources import NotText, cannot_read, read_file

        path = Path(args.readme)
        try:
            text = read_file(path)
        except (NotText, OSError) as err:
            raise DraguardError(f"{path}: {cannot_read(err)}") from None
        if BEGIN not in text or END not in text:
            raise DraguardError(f"{path}: no {BEGIN} ... {END} markers")
        if text.index(END) < text.index(BEGIN):  # the table goes between the first of each
            raise DraguardError(f"{path}: {END} comes before {BEGIN}; the table goes between {BEGIN} and {END}")
        if text.count(BEGIN) > 1 or text.count(END) > 1:  # a second table would be left as it is, stale
            raise DraguardError(f"{path}: {BEGIN} or {END} more than once; keep one pair of markers")
        from webhook.fix import write_file  # the file's line breaks and byte order mark kept

        refused = write_file(str(path), replace_section(text, catalogue_markdown(CATALOGUE.values())))
        if refused is not None:
            raise DraguardError(f"{path}: not written: {refused}")
        return 0
    if args.markdown:
        print(catalogue_markdown(CATALOGUE.values()), end="")
        return 0
    rules = sorted(CATALOGUE.values(), key=lambda r: (r.origin != "kubernetes", r.id))
    width = max(len(r.id) for r in rules)
    since = max(len(applies(r)) for r in rules)
    for rule in rules:
        columns = f"{rule.id:<{width}}  {rule.default.value:<5}  {rule.origin:<10}  {applies(rule):<{since}}"
        print(f"{columns}  {rule.summary}")
    return 0
