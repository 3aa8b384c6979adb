"""``python -m lastbreath.interpreter``: the same as the ``lastbreath`` command."""

import sys

from .cli import main

sys.exit(main())
