#!/usr/bin/env bash
# Container health check: GET /health on the admin endpoint `arcade run` serves on loopback
# (ARCADE_ADMIN_ADDR), with bash's /dev/tcp so the runtime image needs no HTTP client.
# Healthy when the answer is HTTP 200 with "status":"ok".
set -euo pipefail
addr="${ARCADE_ADMIN_ADDR:-127.0.0.1:7878}"
host="${addr%:*}"
port="${addr##*:}"
exec 3<>"/dev/tcp/$host/$port"
printf 'GET /health HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n' "$host" >&3
response="$(timeout 2 cat <&3)"
exec 3<&-
head -n 1 <<<"$response" | grep -q ' 200 ' || { echo "unhealthy: $(head -n 1 <<<"$response")" >&2; exit 1; }
grep -q '"status":"ok"' <<<"$response" || { echo "unhealthy: ${response##*$'\r\n\r\n'}" >&2; exit 1; }
