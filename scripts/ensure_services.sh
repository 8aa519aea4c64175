#!/usr/bin/env bash
# Make sure the local PostgreSQL and Redis are up and reachable, starting them if needed; fail
# loudly if either stays unreachable. Creates the `portal` database when missing.
set -uo pipefail
pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if ! pg_up; then
  echo "PostgreSQL is not answering; starting it"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
fi
if ! redis_up; then
  echo "Redis is not answering; starting it"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  for _ in $(seq 1 30); do redis_up && break; sleep 1; done
fi
pg_up || { echo "ERROR: PostgreSQL at 127.0.0.1:5432 is unreachable" >&2; exit 1; }
redis_up || { echo "ERROR: Redis at 127.0.0.1:6379 is unreachable" >&2; exit 1; }
if ! psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='portal'" | grep -q 1; then
  createdb -h 127.0.0.1 -U postgres portal
fi
echo "PostgreSQL and Redis are up"
