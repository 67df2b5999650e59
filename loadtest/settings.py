"""Settings of the load test's deployment (``loadtest/run.py``): the site's own, with a cheap
password hasher. Sign-up hashes the password with PBKDF2 (1,000,000 iterations, about half a
second of CPU): the crowd's 150 sign-ups at once would take the whole run's CPU on this machine
(measured: sign-up p50 11 s, a quarter failed), and the load test measures the game."""

from canfield_site.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
