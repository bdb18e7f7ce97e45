"""webhook.exits: one exit-code rule for every command."""

from __future__ import annotations

import pytest

from webhook.exits import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, exit_code


@pytest.mark.parametrize(("problems", "failing", "code"), [
    (False, False, 0), (False, True, 1), (True, False, 2), (True, True, 2),
])
def test_a_problem_outranks_findings(problems: bool, failing: bool, code: int) -> None:
    assert exit_code(problems=problems, failing=failing) == code


def test_the_codes_are_those_the_readme_documents() -> None:
    assert (EXIT_OK, EXIT_FINDINGS, EXIT_USAGE) == (0, 1, 2)
