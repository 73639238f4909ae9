"""Settings shared by the whole suite.

Hypothesis runs derandomized (its examples follow from the test's code, not
from a clock or a saved database), so a failure shows up on every run and
every machine alike; a test may still ask for more examples in its own
``@settings``. ``HYPOTHESIS_PROFILE=explore`` draws fresh examples instead.
"""

from __future__ import annotations

import os

try:
    from hypothesis import settings
except ImportError:  # pragma: no cover - hypothesis comes with the test extra
    settings = None

if settings is not None:
    settings.register_profile("dominoai", derandomize=True, database=None, deadline=None)
    settings.register_profile("explore", derandomize=False, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dominoai"))
