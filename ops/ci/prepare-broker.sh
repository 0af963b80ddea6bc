#!/usr/bin/env bash
# What the broker tests need from the local RabbitMQ before they run (called by .ci/run once the
# node answers a ping). Idempotent, and leaves guest's access to the default vhost alone:
#  - enables the management API (the security test loads ops/rabbitmq/definitions.json through
#    it; the runbook's rabbitmqadmin uses it), the shovel (the runbook's dead-letter replay) and
#    the consistent-hash exchange (partitioned services: `arcade run bingo --partition K/N`);
#  - waits until the management API answers;
#  - removes what an interrupted security test left behind (vhosts and users named arcade-sec-*);
#  - makes sure python3 with PyYAML is there: the security test renders the definitions with
#    ops/rabbitmq/render-definitions.py, a test checks docker-compose.yml with
#    ops/ci/check-compose.py (CI fails those tests rather than skipping them).
set -euo pipefail

if ! command -v python3 >/dev/null 2>&1; then
    echo "installing python3 and PyYAML"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-yaml >/dev/null \
        || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-yaml >/dev/null; }
fi
if ! python3 -c 'import yaml' >/dev/null 2>&1; then
    echo "installing PyYAML for $(command -v python3)"
    python3 -m pip install -q pyyaml \
        || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-yaml >/dev/null
fi

MANAGEMENT_URL="${ARCADE_RABBITMQ_MANAGEMENT_URL:-http://127.0.0.1:15672}"
MANAGEMENT_USER="${ARCADE_RABBITMQ_MANAGEMENT_USER:-guest}"
MANAGEMENT_PASSWORD="${ARCADE_RABBITMQ_MANAGEMENT_PASSWORD:-guest}"

wanted=(rabbitmq_management rabbitmq_shovel rabbitmq_shovel_management rabbitmq_consistent_hash_exchange)
missing=()
enabled="$(rabbitmq-plugins list -e -m 2>/dev/null || true)"
for plugin in "${wanted[@]}"; do
    grep -qx "$plugin" <<<"$enabled" || missing+=("$plugin")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "enabling RabbitMQ plugins: ${missing[*]}"
    rabbitmq-plugins enable "${missing[@]}" >/dev/null
fi

for _ in $(seq 1 30); do
    if curl -fsS -u "$MANAGEMENT_USER:$MANAGEMENT_PASSWORD" "$MANAGEMENT_URL/api/overview" >/dev/null 2>&1; then
        break
    fi
    sleep 1
done
curl -fsS -u "$MANAGEMENT_USER:$MANAGEMENT_PASSWORD" "$MANAGEMENT_URL/api/overview" >/dev/null \
    || { echo "the RabbitMQ management API does not answer at $MANAGEMENT_URL" >&2; exit 1; }

# Leftovers of an interrupted security test (it names everything arcade-sec-<random>).
for vhost in $(rabbitmqctl -q list_vhosts name 2>/dev/null | grep '^arcade-sec-' || true); do
    echo "removing stale test vhost $vhost"
    rabbitmqctl -q delete_vhost "$vhost" >/dev/null
done
for user in $(rabbitmqctl -q list_users 2>/dev/null | awk '$1 ~ /^arcade-sec-/ {print $1}'); do
    echo "removing stale test user $user"
    rabbitmqctl -q delete_user "$user" >/dev/null
done

echo "broker ready: management API at $MANAGEMENT_URL"
