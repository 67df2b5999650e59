"""Settings of the Daphne server that the browser tests start: the tests' servers' settings
(tests/live_settings.py), with static files always served straight from the apps' folders (a
`staticfiles/` left over from an earlier `make run` must not serve stale scripts to the tests)."""

from tests.live_settings import *  # noqa: F403

WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = False
