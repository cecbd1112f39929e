from verify.commands import main

raise SystemExit(main())
