"""A game's spectators across processes: two Daphne processes on one database and one Redis (the
deployed shape), the player's actions served by A, spectators held by A and by B. Each frame
reaches both through the Redis channel layer, and "N watching" counts both."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import websocket

from tests.games.helpers import WORKED_EXAMPLE
from tests.games.test_game_socket import new_game, sign_up
from tests.support import Daphne, Deployment, RedisServer, django_env, migrate, post_json


def spectator(daphne: Daphne, game_id: int) -> websocket.WebSocket:
    return websocket.create_connection(
        f"ws://127.0.0.1:{daphne.port}/ws/games/{game_id}/watch/", origin=daphne.url, timeout=10
    )


def next_of(socket: websocket.WebSocket, kind: str) -> Any:
    """The socket's next frame of type ``kind`` (the site's pings answered on the way; other
    frames skipped), within the socket's timeout for each."""
    while True:
        frame = json.loads(socket.recv())
        if frame["type"] == "ping":
            socket.send(json.dumps({"type": "pong", "n": frame["n"]}))
        elif frame["type"] == kind:
            return frame


def test_a_player_on_one_process_is_watched_from_both(tmp_path: Path) -> None:
    with RedisServer() as redis:
        env = django_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", redis.url)
        migrate(env)
        with Deployment(env, tmp_path / "site", proxy=False) as site:
            a, b = site.daphnes
            token, _ = sign_up(a)
            game = new_game(a, token)
            here, there = spectator(a, game["id"]), spectator(b, game["id"])
            try:
                snapshots = [next_of(here, "snapshot"), next_of(there, "snapshot")]
                # (the snapshot's number, then each one sent, until B's spectator counts too)
                counts = [snapshots[0]["watching"]]
                while counts[-1] != 2:
                    counts.append(next_of(here, "watching")["watching"])
                answers, seen = [], []
                for ply, token_ in enumerate(WORKED_EXAMPLE):
                    status, played = post_json(
                        f"{a.url}/api/games/{game['id']}/actions/",
                        {"ply": ply, "action": token_},
                        token,
                    )
                    assert status == 200, played
                    answers.append({k: v for k, v in played.items() if k != "applied"})
                    seen.append([next_of(socket, "update") for socket in (here, there)])
            finally:
                here.close()
                there.close()

    assert [snapshot["ply"] for snapshot in snapshots] == [0, 0]
    assert counts[-1] == 2
    for (on_a, on_b), answer in zip(seen, answers, strict=True):
        assert on_a["game"] == on_b["game"] == answer
        assert on_a["ply"] == on_b["ply"] == answer["ply"]
