#!/usr/bin/env bash
# Starts the local PostgreSQL and Redis that the store tests use, if they are down and
# this machine has them. Does nothing when they already answer.
set -u
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if ! port_open 5432 && [ -d /etc/postgresql ] && command -v pg_ctlcluster >/dev/null; then
  echo "services: starting PostgreSQL" >&2
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
fi
if ! port_open 6379 && command -v redis-server >/dev/null; then
  echo "services: starting Redis" >&2
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no || true
fi
for _ in $(seq 1 50); do
  port_open 5432 && port_open 6379 && exit 0
  sleep 0.2
done
echo "services: PostgreSQL (5432) or Redis (6379) is not answering; the store tests will say so" >&2
