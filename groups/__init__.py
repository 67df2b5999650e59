"""Groups of friends: a few players who play the daily deal together, with a board among them
(today's, live), the week's table and their streaks (docs/api.md, "Groups")."""
