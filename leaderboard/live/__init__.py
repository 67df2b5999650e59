"""The live board of a day (``/ws/daily/<date>/``): its frames, their broadcast, their fan-out
to every process's sockets, and the consumer of each socket.

- ``frames`` — a snapshot of the top of a day's board, and the update from one ``seq`` to the
  next, by player (what changed or entered, who left the top);
- ``model`` — what a watcher holds after each frame: the browser's ``live.js`` in Python;
- ``snapshots`` — each day's latest snapshot in the shared cache;
- ``broadcast`` — coalesced broadcasts: one update per window and day, for every process;
- ``fanout`` — one listener per process hands each update to its sockets;
- ``consumers`` — one websocket: its snapshot, its updates, resync, ping, the 4503 pause.

docs/architecture.md draws the path of a move from the action to a watcher's screen.
"""
