"""Settings of the servers, workers and commands that the tests start in processes of their own
(``tests.support.django_env``): the site's own settings, with the fast password hasher that the
tests' own process uses too (tests/conftest.py). The site's PBKDF2 costs about half a second of a
server's CPU for each player a test signs up or logs in, hundreds of times a run. A test of the
real hasher (tests/site/test_login_flood.py) starts its server on ``canfield_site.settings``."""

from canfield_site.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
