"""GET /api/games/<id>/record/ — a game's record: its move log as JSON and as text."""

import gzip

import pytest

from games import pool, pool_jobs, services
from games.engine import GameRecord, verify_record
from games.models import StoredRecord
from tests.conftest import token_client
from tests.games.helpers import (
    CODE,
    WORKED_EXAMPLE,
    engine_after,
    not_authenticated,
    not_found,
    play_tokens,
    utc_today,
    winning_line,
)
from tests.games.test_concurrency import at_once


def test_it_gives_the_record_of_my_game(owner_api, game):
    play_tokens(game, [*WORKED_EXAMPLE, "D", "U"])

    response = owner_api.get(f"/api/games/{game.pk}/record/")

    assert response.status_code == 200
    today = utc_today().isoformat()
    assert response.json() == {
        "id": game.pk,
        "code": CODE,
        "draw": 3,
        "variant": "app",
        "player": "owner",
        "kind": "practice",
        "daily_date": None,
        "status": "in_progress",
        "result": "in_progress",
        "score": 5,
        "moves": [
            {"ply": 0, "token": "R-T2", "score": 0},
            {"ply": 1, "token": "R-F1", "score": 5},
            {"ply": 2, "token": "T2:2-T4", "score": 5},
            {"ply": 3, "token": "D", "score": 5},
            {"ply": 4, "token": "U", "score": 5},
        ],
        "text": (
            '[Code "CF1-D3-AAAAACL"]\n[Variant "app"]\n[Draw "3"]\n[Player "owner"]\n'
            f'[Date "{today}"]\n[Result "in_progress"]\n[Score "5"]\n\n'
            "R-T2 R-F1 T2:2-T4 D U\n"
        ),
    }


def test_its_text_replays_to_the_won_game(owner_api, game):
    line = winning_line()
    play_tokens(game, line)

    text = owner_api.get(f"/api/games/{game.pk}/record/").json()["text"]

    record = GameRecord.parse(text)
    assert (record.result, record.score, record.tokens) == ("won", 255, line)
    assert verify_record(record).ok


def test_it_gives_the_view_at_every_ply_on_request(owner_api, game):
    tokens = [*WORKED_EXAMPLE, "D", "U"]
    play_tokens(game, tokens)

    body = owner_api.get(f"/api/games/{game.pk}/record/?states=1").json()

    assert body["states"] == [engine_after(CODE, tokens[:n]).player_view() for n in range(6)]


def test_it_leaves_the_code_out_of_todays_daily_record(owner_api, daily_game):
    play_tokens(daily_game, ["D"])
    services.resign(daily_game, daily_game.owner)

    body = owner_api.get(f"/api/games/{daily_game.pk}/record/").json()

    assert body["code"] is None
    assert "CF1-" not in body["text"]
    assert body["text"].startswith('[Variant "app"]\n[Draw "3"]\n[Player "owner"]\n')
    assert body["text"].endswith('[Result "resigned"]\n[Score "0"]\n\nD\n')


def test_it_hides_another_players_record(other_api, game):
    response = other_api.get(f"/api/games/{game.pk}/record/")

    assert response.status_code == 404
    assert response.json() == not_found()


def test_it_refuses_anonymous(api, game):
    response = api.get(f"/api/games/{game.pk}/record/")

    assert response.status_code == 401
    assert response.json() == not_authenticated()


def test_it_answers_404_for_a_game_that_does_not_exist(owner_api, api, game):
    assert owner_api.get(f"/api/games/{game.pk + 1}/record/").status_code == 404
    response = api.get(f"/api/games/{game.pk + 1}/record/")  # a visitor: not "log in" either
    assert (response.status_code, response.json()) == (404, not_found())


def test_it_asks_can_view_record_who_may_read_it(api, other_api, game, monkeypatch):
    """The leaderboard widens can_view_record for replays; the view follows it, anonymous too."""
    services.resign(game, game.owner)
    monkeypatch.setattr(services, "can_view_record", lambda user, game: True)

    assert other_api.get(f"/api/games/{game.pk}/record/").status_code == 200
    assert api.get(f"/api/games/{game.pk}/record/").json()["player"] == "owner"


@pytest.mark.parametrize("query", ["?states=maybe"])
def test_it_refuses_a_bad_query(owner_api, game, query):
    response = owner_api.get(f"/api/games/{game.pk}/record/{query}")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"


def test_it_limits_records_with_every_state(owner_api, api, game, throttle_rates):
    throttle_rates(states="2/min")
    services.resign(game, game.owner)  # (anyone may read a finished practice game)
    url = f"/api/games/{game.pk}/record/"
    for _ in range(2):
        assert owner_api.get(url, {"states": "1"}).status_code == 200

    refused = owner_api.get(url, {"states": "true"})

    assert (refused.status_code, refused.json()["code"]) == (429, "throttled")
    assert 59 <= int(refused["Retry-After"]) <= 60
    assert owner_api.get(url).status_code == 200  # a record without the states is not limited
    assert owner_api.get(url, {"states": "0"}).status_code == 200
    assert api.get(url, {"states": "1"}).status_code == 200  # anonymous: counted by address


# --- built once, in the solver pool, served with an ETag and compressed --------------------------


def searches() -> int:
    return pool.stats()["submitted"]


def test_a_finished_games_record_is_built_once_and_kept(other_api, game):
    play_tokens(game, WORKED_EXAMPLE)
    services.resign(game, game.owner)
    url = f"/api/games/{game.pk}/record/?states=1"
    before = searches()

    first = other_api.get(url)
    again = other_api.get(url)

    assert first.status_code == again.status_code == 200
    assert searches() == before + 1  # built once, in the pool; then read as kept
    assert first.content == again.content
    assert first["ETag"] == again["ETag"] and first["ETag"].startswith('W/"')
    kept = StoredRecord.objects.get(game=game, states=True)
    assert gzip.decompress(bytes(kept.body)) == first.content
    body = first.json()
    assert len(body["states"]) == len(WORKED_EXAMPLE) + 1
    assert body["states"][-1] == engine_after(CODE, WORKED_EXAMPLE).player_view()
    assert (body["result"], [m["token"] for m in body["moves"]]) == ("resigned", WORKED_EXAMPLE)


def test_it_answers_a_known_etag_with_304_and_a_gzip_client_with_gzip(other_api, game):
    services.resign(game, game.owner)
    url = f"/api/games/{game.pk}/record/"
    plain = other_api.get(url)

    unchanged = other_api.get(url, HTTP_IF_NONE_MATCH=plain["ETag"])
    compressed = other_api.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    other_tag = other_api.get(url, HTTP_IF_NONE_MATCH='W/"not-this-one"')

    assert (unchanged.status_code, unchanged.content, unchanged["ETag"]) == (
        304,
        b"",
        plain["ETag"],
    )
    assert compressed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in compressed["Vary"]
    assert gzip.decompress(compressed.content) == plain.content
    assert compressed["ETag"] == plain["ETag"]  # one record, two encodings: a weak validator
    assert (other_tag.status_code, other_tag.content) == (200, plain.content)


def test_a_game_in_progress_is_built_each_time_and_never_kept(owner_api, game):
    play_tokens(game, ["D"])
    url = f"/api/games/{game.pk}/record/?states=1"
    before = searches()

    first = owner_api.get(url).json()
    play_tokens(game, ["D"])
    second = owner_api.get(url).json()

    assert searches() == before + 2
    assert (len(first["moves"]), len(second["moves"])) == (1, 2)
    assert not StoredRecord.objects.filter(game=game).exists()


def test_todays_finished_attempt_is_not_kept_until_its_code_is_public(owner_api, daily_game):
    services.resign(daily_game, daily_game.owner)

    response = owner_api.get(f"/api/games/{daily_game.pk}/record/")

    assert response.json()["code"] is None
    assert not StoredRecord.objects.filter(game=daily_game).exists()  # its code shows tomorrow


@pytest.mark.django_db(transaction=True)
def test_readers_of_a_record_at_once_share_one_build(owner, other):
    game = services.new_game(owner, code=CODE)
    play_tokens(game, winning_line())
    clients = [token_client(other) for _ in range(8)]
    before = searches()

    answers = at_once(
        *[lambda c=c: c.get(f"/api/games/{game.pk}/record/?states=1") for c in clients]
    )

    assert [a.status_code for a in answers] == [200] * 8
    assert len({a.content for a in answers}) == 1
    assert searches() == before + 1  # one build for all eight
    assert StoredRecord.objects.filter(game=game).count() == 1


def test_a_kept_record_of_another_version_is_built_again_and_replaced(other_api, game):
    play_tokens(game, WORKED_EXAMPLE)
    services.resign(game, game.owner)
    old_body = b'{"an":"older shape"}'
    old = StoredRecord.objects.create(
        game=game,
        states=False,
        body=gzip.compress(old_body),
        etag="an-older-etag",
        size=len(old_body),
        version=pool_jobs.RECORD_VERSION - 1,
    )
    before = searches()

    response = other_api.get(f"/api/games/{game.pk}/record/")

    assert response.status_code == 200
    assert searches() == before + 1  # built again, in the pool
    body = response.json()
    assert [m["token"] for m in body["moves"]] == WORKED_EXAMPLE
    assert response["ETag"] != 'W/"an-older-etag"'
    kept = StoredRecord.objects.get(game=game, states=False)
    assert kept.pk == old.pk  # the row replaced, not a second one beside it
    assert (kept.version, gzip.decompress(bytes(kept.body))) == (
        pool_jobs.RECORD_VERSION,
        response.content,
    )
    assert other_api.get(f"/api/games/{game.pk}/record/").content == response.content
    assert searches() == before + 1  # and from now on read as kept


def test_a_records_json_is_pinned_to_its_version():
    """The bytes of one record, known: a change to a record's JSON (its fields, the player's
    view, the text notation) fails here — then raise ``games.pool_jobs.RECORD_VERSION``, so that
    the records kept in the older shape are built again, and pin the new bytes."""
    head = {
        "id": 1,
        "kind": "practice",
        "code": CODE,
        "draw": 3,
        "variant": "app",
        "status": "resigned",
        "result": "resigned",
        "player": "owner",
        "daily_date": None,
        "score": 5,
    }
    log = [(0, "R-T2", 0), (1, "R-F1", 5), (2, "T2:2-T4", 5)]
    fields = {"code": CODE, "player": "owner", "date": "2030-06-15", "result": "resigned"}

    built = pool_jobs.build_record(head, log, {**fields, "score": 5}, states=True, sees_hidden=True)

    assert (pool_jobs.RECORD_VERSION, built.etag) == (2, "786bbbf2ab49c8676cfe60b78741c51b")
