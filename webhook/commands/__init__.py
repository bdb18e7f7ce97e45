"""One module per `draguard` subcommand; `webhook.cli` discovers them. Keep imports light here."""
