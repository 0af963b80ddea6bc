#!/usr/bin/env bash
# Makes the images Arcade's containers start from where no registry can be reached, once per
# machine (kept in podman's store and reused when present):
#   localhost/debian:bookworm-slim   debootstrap --variant=minbase bookworm, from the Debian
#                                    mirror apt already uses (/etc/apt/sources.list*)
#   localhost/arcade-rabbitmq:bookworm  Debian's rabbitmq-server on it (ops/containers/rabbitmq.Containerfile)
# Needs root, debootstrap and podman; CONTAINERS_CONF=ops/containers/containers.conf on hosts
# like the development machine (ops/containers/smoke.sh sets it). PODMAN: another podman command.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
podman_cmd=(${PODMAN:-podman})

base=localhost/debian:bookworm-slim
rabbit=localhost/arcade-rabbitmq:bookworm

# The first Debian mirror apt is configured with (deb822 or one-line format).
mirror() {
    local uri
    uri="$(grep -hE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | awk '{print $2}' | grep -v security | head -n 1 || true)"
    if [ -z "$uri" ]; then
        uri="$(grep -hE '^\s*deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
            | awk '{for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}' \
            | grep -v security | head -n 1 || true)"
    fi
    echo "${uri:-http://deb.debian.org/debian}"
}

if "${podman_cmd[@]}" image exists "$base"; then
    echo "$base: present, reused"
else
    root="$(mktemp -d)"
    trap 'rm -rf "$root"' EXIT
    url="$(mirror)"
    echo "$base: debootstrap --variant=minbase bookworm from $url"
    debootstrap --variant=minbase bookworm "$root" "$url" >/dev/null
    # As debian:bookworm-slim: no apt lists, no docs, no caches.
    rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc/* \
        "$root"/usr/share/man/* "$root"/usr/share/locale/*
    printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$url" "$url" \
        >"$root/etc/apt/sources.list"
    tar -C "$root" -c . | "${podman_cmd[@]}" import \
        --change 'CMD ["bash"]' --change 'ENV LANG=C.UTF-8' - "$base" >/dev/null
    rm -rf "$root"
    trap - EXIT
fi

if "${podman_cmd[@]}" image exists "$rabbit"; then
    echo "$rabbit: present, reused"
else
    echo "$rabbit: Debian's rabbitmq-server"
    "${podman_cmd[@]}" build --network host -q -f "$here/rabbitmq.Containerfile" -t "$rabbit" "$here" >/dev/null
fi
