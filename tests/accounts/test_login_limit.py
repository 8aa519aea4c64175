import pytest
from django.core.cache import cache

pytestmark = pytest.mark.django_db


def test_login_is_refused_after_five_wrong_passwords_even_with_the_right_one(client, analyst_a):
    cache.clear()
    for _ in range(5):
        assert client.post("/login/", {"username": "alice", "password": "wrong"}).status_code == 200
    blocked = client.post("/login/", {"username": "alice", "password": "pw-alice"})
    assert blocked.status_code == 429
    assert "Too many failed" in blocked.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_correct_login_resets_the_count(client, analyst_a):
    cache.clear()
    for _ in range(4):
        client.post("/login/", {"username": "alice", "password": "wrong"})
    ok = client.post("/login/", {"username": "alice", "password": "pw-alice"})
    assert ok.status_code == 302
    client.logout()
    for _ in range(4):
        assert client.post("/login/", {"username": "alice", "password": "wrong"}).status_code == 200
