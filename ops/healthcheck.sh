#!/usr/bin/env bash
# Container health check: GET /ready (readiness: logs replayed, queues consumed, broker connected,
# relay backlog under its threshold) on the observability endpoint (ARCADE_METRICS_ADDR; a
# wildcard address is asked on loopback), else on the admin endpoint `arcade run` serves on
# loopback (ARCADE_ADMIN_ADDR). Uses bash's /dev/tcp so the runtime image needs no HTTP client.
# Healthy when the answer is HTTP 200 with "status":"ready"; otherwise prints what fails.
set -euo pipefail
addr="${ARCADE_METRICS_ADDR:-${ARCADE_ADMIN_ADDR:-127.0.0.1:7878}}"
host="${addr%:*}"
port="${addr##*:}"
case "$host" in
    0.0.0.0 | "[::]" | "") host=127.0.0.1 ;;
esac
exec 3<>"/dev/tcp/$host/$port"
printf 'GET /ready HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n' "$host" >&3
response="$(timeout 2 cat <&3)"
exec 3<&-
head -n 1 <<<"$response" | grep -q ' 200 ' || { echo "not ready: ${response##*$'\r\n\r\n'}" >&2; exit 1; }
grep -q '"status":"ready"' <<<"$response" || { echo "not ready: ${response##*$'\r\n\r\n'}" >&2; exit 1; }
