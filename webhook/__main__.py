from webhook.cli import main

raise SystemExit(main())
