from ledgerly.cli import main

raise SystemExit(main())
