"""draguard's policy layer: the rule catalogue, admission, the CLI and its reporters."""
