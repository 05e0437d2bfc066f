#!/usr/bin/env bash
# Installs the Debian packages the real-container tests need (Debian 12 bookworm and
# 13 trixie; same package names on both). Idempotent and quick when everything is
# already installed: it only calls apt-get when a package is missing.
#
#   containerd runc containernetworking-plugins   the CRI runtime, OCI runtime, CNI plugins
#   busybox-static umoci gcc libc6-dev             offline test images and the pause binary
#   docker-registry                                a local OCI registry on 127.0.0.1
#   etcd-server etcd-client                        the etcd storage backend tests (etcd, etcdctl)
#   iproute2 iptables                              netns/bridge inspection, CNI portmap
#   mount                                          losetup: csi-hostpath raw block volumes on loop devices
#
# Daemons these packages ship are never started here (policy-rc.d exit 101 while
# installing): tests start private instances themselves.
set -euo pipefail

PKGS=(containerd runc containernetworking-plugins busybox-static umoci gcc libc6-dev
      docker-registry etcd-server etcd-client iproute2 iptables chromium mount)

missing=()
for p in "${PKGS[@]}"; do
  if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" != "installed" ]; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

# Keep package scripts from starting containerd/registry/etcd services.
made_policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod 755 /usr/sbin/policy-rc.d
  made_policy=1
fi
cleanup() { if [ -n "$made_policy" ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi; }
trap cleanup EXIT

echo "install-deps: installing ${missing[*]}"
# Refresh the package lists when they are absent or older than a day.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
  $SUDO apt-get update -qq
fi
$SUDO apt-get install -y -qq --no-install-recommends \
  -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}" >/dev/null
for p in "${missing[@]}"; do
  if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" != "installed" ]; then
    echo "install-deps: $p failed to install" >&2
    exit 1
  fi
done
echo "install-deps: done"
