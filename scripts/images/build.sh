#!/usr/bin/env bash
# Builds the test/pause images offline as OCI image layouts (one layout per image,
# so `ctr images import --base-name NAME` imports every tag of a layout as NAME:tag):
#
#   OUT/pause     tag 3.10   static pause binary from pause.c (entrypoint /pause)
#   OUT/busybox   tag 1.36   busybox-static with every applet linked, /bin/sh; cmd ["sh"]
#   OUT/httpd     tag 1.36   the busybox image serving /www on :80 (busybox httpd -f)
#
# Needs: gcc + libc6-dev (static link), busybox-static, umoci (scripts/install-deps.sh).
# Usage: scripts/images/build.sh OUT   (skips the build when OUT/.stamp matches the inputs)
# The tags are only the layouts' refs: the real names come at import/push time
# (scripts/images/import.sh, scripts/images/push.ts), e.g. registry.k8s.io/pause:3.10.
set -euo pipefail

OUT=${1:?usage: build.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
BUSYBOX=$(command -v busybox || true)
for tool in gcc umoci; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool not installed (run scripts/install-deps.sh)" >&2; exit 1; }
done
[ -n "$BUSYBOX" ] || { echo "build.sh: busybox not installed (run scripts/install-deps.sh)" >&2; exit 1; }
if ! file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' && ldd "$BUSYBOX" >/dev/null 2>&1; then
  echo "build.sh: $BUSYBOX is not static (install busybox-static)" >&2; exit 1
fi

mkdir -p "$OUT"
# one build at a time per OUT (test files run in parallel)
exec 9>"$OUT/.lock"
flock 9

stamp=$( { cat "$HERE/build.sh" "$HERE/pause.c"; sha256sum "$BUSYBOX"; umoci --version; } | sha256sum | cut -c1-32)
if [ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$stamp" ]; then
  exit 0
fi

WORK=$(mktemp -d "$OUT/.work.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
PATHENV="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# new_image LAYOUT TAG SRCDIR: a new layout whose TAG has one layer holding SRCDIR's
# contents at /. (unpack + repack: umoci 0.4.7's `insert` writes tar layers without
# the end-of-archive blocks, which strict tar readers reject.)
new_image() {
  local layout=$1 tag=$2 src=$3 bundle="$WORK/bundle-$RANDOM"
  umoci init --layout "$layout"
  umoci new --image "$layout:$tag"
  umoci unpack --image "$layout:$tag" "$bundle" >/dev/null
  cp -a "$src/." "$bundle/rootfs/"
  umoci repack --image "$layout:$tag" "$bundle"
  rm -rf "$bundle"
}

# ---- pause
mkdir -p "$WORK/pause-root"
gcc -static -O2 -s -o "$WORK/pause-root/pause" "$HERE/pause.c"
L="$WORK/pause"
new_image "$L" 3.10 "$WORK/pause-root"
umoci config --image "$L:3.10" --config.entrypoint /pause --config.user 65535:65535 \
  --config.env "$PATHENV" --author k8ts --config.workingdir /

# ---- busybox
R="$WORK/busybox-root"
mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,etc,tmp,var/tmp,root,home,proc,sys,dev,www}
chmod 1777 "$R/tmp" "$R/var/tmp"
cp "$BUSYBOX" "$R/bin/busybox"
for p in $("$R/bin/busybox" --list-full); do
  [ "$p" = bin/busybox ] && continue
  mkdir -p "$R/$(dirname "$p")"
  ln -sf /bin/busybox "$R/$p"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n' > "$R/etc/passwd"
printf 'root:x:0:\nnobody:x:65534:\n' > "$R/etc/group"
printf '<html><body>k8ts busybox httpd</body></html>\n' > "$R/www/index.html"
L="$WORK/busybox"
new_image "$L" 1.36 "$R"
umoci config --image "$L:1.36" --config.cmd sh --config.env "$PATHENV" --author k8ts --config.workingdir /

# ---- httpd: the busybox layers, serving /www on :80
cp -a "$WORK/busybox" "$WORK/httpd"
umoci config --image "$WORK/httpd:1.36" --clear config.cmd --config.cmd httpd --config.cmd -f \
  --config.cmd -v --config.cmd -p --config.cmd 80 --config.cmd -h --config.cmd /www --config.exposedports 80/tcp

for img in pause busybox httpd; do
  umoci gc --layout "$WORK/$img"
  rm -rf "${OUT:?}/$img"
  mv "$WORK/$img" "$OUT/$img"
done
echo "$stamp" > "$OUT/.stamp"
echo "build.sh: built pause:3.10 busybox:1.36 httpd:1.36 in $OUT"
