"""`python -m inspector.cli`: the console script without installing the package."""

import sys

from inspector.cli import main

sys.exit(main())
