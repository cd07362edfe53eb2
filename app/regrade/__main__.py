"""`python -m app.regrade`: see app/regrade/__init__.py."""

import sys

from app.regrade import main

sys.exit(main())
