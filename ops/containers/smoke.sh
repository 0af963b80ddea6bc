#!/usr/bin/env bash
# The container test: the images built (ops/containers/base-images.sh, then ops/Dockerfile with
# the arcade binary handed in), the whole docker-compose.yml brought up with podman-compose and
# driven, a container killed and restarted (ops/containers/smoke.py). docs/deploy.md explains.
#
#   ops/containers/smoke.sh [ARCADE_BINARY]     (default: $CARGO_TARGET_DIR/debug/arcade, else
#                                                target/debug/arcade, as `cargo build` leaves it)
#
# Skips, saying why, where podman cannot run; fails instead when ARCADE_REQUIRE_CONTAINERS=1
# (.ci/run sets it). Needs root (debootstrap, podman's networks), podman, runc, podman-compose.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$SECONDS

skip() {
    if [ "${ARCADE_REQUIRE_CONTAINERS:-}" = 1 ]; then
        echo "container test: FAILED: $1 (ARCADE_REQUIRE_CONTAINERS=1)" >&2
        exit 1
    fi
    echo "container test: skipped: $1"
    exit 0
}

binary="${1:-${CARGO_TARGET_DIR:-target}/debug/arcade}"
[ -x "$binary" ] || skip "no arcade binary at $binary (cargo build -p arcade)"
for tool in podman runc podman-compose debootstrap; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed"
done
[ "$(id -u)" = 0 ] || skip "not root (debootstrap and podman's networks need it)"
export CONTAINERS_CONF="$PWD/ops/containers/containers.conf"
podman info >/dev/null 2>&1 || skip "podman cannot run here: $(podman info 2>&1 | tail -n 1)"

echo "--- base images (reused when present)"
ops/containers/base-images.sh
podman run --rm localhost/debian:bookworm-slim true \
    || skip "podman cannot run a container here (see above)"

echo "--- the arcade image (ops/Dockerfile, with $binary)"
# The binary goes into the build context (target-image/ is git-ignored, not docker-ignored).
mkdir -p target-image
ln -f "$binary" target-image/arcade 2>/dev/null || cp "$binary" target-image/arcade
previous="$(podman image inspect --format '{{.Id}}' localhost/arcade:latest 2>/dev/null || true)"
# --layers=false: no intermediate images left behind by each run (the base image is cached).
podman build --format docker --layers=false -q -f ops/Dockerfile \
    --build-arg ARCADE_BINARY=target-image/arcade \
    --build-arg BUILD_IMAGE=localhost/debian:bookworm-slim \
    --build-arg BASE_IMAGE=localhost/debian:bookworm-slim \
    -t localhost/arcade:latest . >/dev/null
rm -f target-image/arcade
current="$(podman image inspect --format '{{.Id}}' localhost/arcade:latest)"
if [ -n "$previous" ] && [ "$previous" != "$current" ]; then
    podman rmi "$previous" >/dev/null 2>&1 || true
fi
echo "image localhost/arcade:latest built ($((SECONDS - started)) s so far)"

echo "--- compose up, drive, SIGKILL, restart"
python3 ops/containers/smoke.py --binary "$binary" --rabbitmq-image localhost/arcade-rabbitmq:bookworm
echo "container test: passed in $((SECONDS - started)) s"
