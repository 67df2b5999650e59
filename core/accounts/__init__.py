"""Accounts: sign-up, log-in, log-out and "who am I" over the REST API, on Django's User."""
