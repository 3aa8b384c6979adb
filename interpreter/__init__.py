"""The interpreter: the rules engine (engine/) and what plays, checks and serves games with it.

The engine's rules modules run compiled where ``lastbreath native build`` has built them for this
very source (native.py); otherwise, and with ``LASTBREATH_NATIVE=off``, as plain Python.
"""

from . import native

native.install()
