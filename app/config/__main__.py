"""`python -m app.config`: check the settings before the server starts (scripts/run)."""

import sys

from app.config.settings import main

sys.exit(main())
