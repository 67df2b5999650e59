"""Canfield games: the rules engine (``games.engine``), the stored games and their move logs,
the services that change them, and the REST API that exposes them."""
