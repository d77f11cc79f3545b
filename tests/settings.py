"""The site's settings, for a test run.

The settings refuse to start without a SECRET_KEY, and no key is committed: each test run makes
its own here, before the settings are read. The processes a test starts (Daphne for browser
tests, the Celery worker) inherit it through the environment.
"""

import os
import secrets

os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))

from setback_site.settings import *  # noqa: E402, F403
