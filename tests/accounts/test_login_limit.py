import pytest

pytestmark = pytest.mark.django_db


def test_login_is_refused_after_five_wrong_passwords_even_with_the_right_one(client, analyst_a):
    for _ in range(5):
        assert client.post("/login/", {"username": "alice", "password": "wrong"}).status_code == 200
    blocked = client.post("/login/", {"username": "alice", "password": "pw-alice"})
    assert blocked.status_code == 429
    assert "Too many failed" in blocked.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_correct_login_resets_the_count(client, analyst_a):
    for _ in range(4):
        client.post("/login/", {"username": "alice", "password": "wrong"})
    ok = client.post("/login/", {"username": "alice", "password": "pw-alice"})
    assert ok.status_code == 302
    client.logout()
    for _ in range(4):
        assert client.post("/login/", {"username": "alice", "password": "wrong"}).status_code == 200


# --- One limit per normalised name and address, on every password path ---

WRONG = "wrong-password"


def _logged_in(client) -> bool:  # type: ignore[no-untyped-def]
    return "_auth_user_id" in client.session


@pytest.fixture
def a_admin(make_user, team_a):  # type: ignore[no-untyped-def]
    return make_user("a_admin", team_a)  # password "pw-a_admin"


def test_the_limit_is_pinned_to_the_text_that_announces_it(settings):
    assert settings.AXES_FAILURE_LIMIT == 5
    cooloff = settings.AXES_COOLOFF_TIME
    assert cooloff.total_seconds() == 15 * 60  # "Wait 15 minutes" in the text


def test_a_locked_name_cannot_log_in_in_its_full_width_spelling(client, a_admin):
    for _ in range(5):
        assert client.post("/login/", {"username": "a_admin", "password": WRONG}).status_code == 200
    blocked = client.post("/login/", {"username": "a_ａdmin", "password": "pw-a_admin"})
    assert blocked.status_code == 429
    assert "Too many failed" in blocked.content.decode()
    assert not _logged_in(client)


@pytest.mark.parametrize("spelling", ["a_ａdmin", "A_ADMIN", "Ａ_ＡＤＭＩＮ", " a_admin "])
def test_failures_in_other_spellings_count_against_the_same_name(client, a_admin, spelling):
    for name in ["a_admin", spelling, "a_admin", spelling, spelling]:
        assert client.post("/login/", {"username": name, "password": WRONG}).status_code == 200
    blocked = client.post("/login/", {"username": "a_admin", "password": "pw-a_admin"})
    assert blocked.status_code == 429
    assert not _logged_in(client)


def test_a_user_logs_in_with_any_spelling_of_their_name(client, a_admin):
    ok = client.post("/login/", {"username": "Ａ_ADMIN", "password": "pw-a_admin"})
    assert ok.status_code == 302
    assert client.session["_auth_user_id"] == str(a_admin.pk)


def test_the_admin_login_is_limited_and_answers_with_a_page(client, make_user):
    root = make_user("root", None, is_staff=True, is_superuser=True)
    for _ in range(5):
        r = client.post("/admin/login/", {"username": "root", "password": WRONG})
        assert r.status_code == 200
    blocked = client.post("/admin/login/", {"username": "ROOT", "password": "pw-root"})
    assert blocked.status_code == 429
    page = blocked.content.decode()
    assert "Too many failed" in page and "<form" in page  # the log-in page, not a bare text
    assert not _logged_in(client)
    assert client.get("/admin/").status_code == 302  # still sent to the log-in
    # The same count: the portal's page refuses the right password as well.
    r = client.post("/login/", {"username": "root", "password": "pw-root"})
    assert r.status_code == 429 and not _logged_in(client)
    assert root.pk


def test_failures_on_both_pages_add_up(client, a_admin):
    for path in ["/admin/login/", "/login/", "/admin/login/", "/login/", "/login/"]:
        assert client.post(path, {"username": "a_ａdmin", "password": WRONG}).status_code == 200
    blocked = client.post("/admin/login/", {"username": "a_admin", "password": "pw-a_admin"})
    assert blocked.status_code == 429


def test_the_lock_is_per_address_so_others_are_not_locked_out(client, a_admin):
    for _ in range(5):
        client.post("/login/", {"username": "a_admin", "password": WRONG})
    other = client.__class__(REMOTE_ADDR="10.1.2.3")
    ok = other.post("/login/", {"username": "a_admin", "password": "pw-a_admin"})
    assert ok.status_code == 302


def test_the_lock_ends_after_fifteen_minutes(client, a_admin):
    from datetime import timedelta

    from axes.models import AccessAttempt
    from django.utils import timezone

    right = {"username": "a_admin", "password": "pw-a_admin"}
    for _ in range(5):
        client.post("/login/", {"username": "a_admin", "password": WRONG})
    assert client.post("/login/", right).status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=15, seconds=1))
    assert client.post("/login/", right).status_code == 302


def test_the_lockout_page_is_in_the_readers_language(client, a_admin):
    for _ in range(5):
        client.post("/login/", {"username": "a_admin", "password": WRONG})
    blocked = client.post(
        "/login/", {"username": "a_admin", "password": WRONG}, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert blocked.status_code == 429
    assert "登录失败次数过多" in blocked.content.decode()


def test_an_unknown_name_is_limited_like_a_known_one(client):
    for _ in range(5):
        assert client.post("/login/", {"username": "nobody", "password": WRONG}).status_code == 200
    r = client.post("/login/", {"username": "ＮＯＢＯＤＹ", "password": WRONG})
    assert r.status_code == 429
