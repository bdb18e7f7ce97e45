"""`draguard review FILE`: answer an AdmissionReview file exactly as `draguard serve` would, without a server.

For debugging a webhook decision: save the review the API server sent (or write one), replay it here with the
same policy file, and read the AdmissionReview answer on stdout. Exit 0 when allowed, 1 when denied, 2 when
the file is not a usable review (the message the webhook would send with its 4xx).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from webhook.commands.common import add_budget_arguments, budget_of

HELP = "answer an AdmissionReview file as the webhook would (prints the response review)"
PATHS = {"resourceslices": "/validate/resourceslices", "selectors": "/validate/selectors"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="AdmissionReview JSON file, or - for stdin")
    parser.add_argument("--policy", type=Path, metavar="FILE", help="policy file (default: the built-in policy)")
    parser.add_argument("--webhook", choices=("auto", *PATHS), default="auto",
                        help="which webhook path answers: auto picks by request.kind (default: %(default)s)")
    add_budget_arguments(parser)  # the same limits, flags and defaults as `serve`


def run(args: argparse.Namespace) -> int:
    import json

    from webhook.admission import handlers, review, routing
    from webhook.errors import DraguardError
    from webhook.manifests.sources import STDIN_CLOSED, broken_link
    from webhook.policy import Policy
    from webhook.rules import BOOK

    source = "<stdin>" if args.file == "-" else args.file
    if args.file == "-" and sys.stdin is None:
        raise DraguardError(f"{source}: {STDIN_CLOSED}")
    try:  # one byte past the webhook's limit at most: over it, the review is refused as the webhook refuses it
        if args.file == "-":
            body = sys.stdin.buffer.read(review.MAX_BODY + 1)
        else:
            with Path(args.file).open("rb") as stream:
                body = stream.read(review.MAX_BODY + 1)
    except OSError as err:
        reason = broken_link(Path(args.file)) or f"cannot read: {err.strerror or err}"
        raise DraguardError(f"{source}: {reason}") from None
    policy = Policy.load(args.policy, rules=BOOK) if args.policy else Policy.default(rules=BOOK)
    try:
        request = review.parse(body)
    except review.BadReview as err:
        raise DraguardError(f"{source}: HTTP {err.code}: {err.message}") from None
    which = args.webhook
    if which == "auto":
        which = "resourceslices" if request.kind.kind in routing.SLICE_KINDS else "selectors"
    handler = handlers.resourceslices if which == "resourceslices" else handlers.selectors
    answer = handler(request, policy, budget=budget_of(args))
    print(json.dumps(review.answer(request.uid, answer, request.api_version), indent=2))
    if answer.note:
        print(f"draguard: note: {answer.note}", file=sys.stderr)
    return 0 if answer.allowed else 1
