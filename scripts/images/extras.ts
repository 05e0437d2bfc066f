/**
 * Stand-ins of `npm run registry:local` beyond the e2e tests' set: small shell programs
 * on the busybox image (test/e2e/containerd-images.ts pushBusyboxPlus) that do what the
 * example manifests ask of the real image, and nothing more:
 *
 * - `registry.k8s.io/e2e-test-images/agnhost:2.40` (entrypoint /agnhost): only the
 *   `liveness` subcommand, as agnhost's: GET /healthz on :8080 answers 200 `ok` for the
 *   first 10 s, then 500 `error: <n>s` (busybox `nc -ll -e`, one connection at a time).
 * - `perl`: only `print bpi(N)` (Math::BigFloat's pi to N significant digits, rounded),
 *   computed with busybox `bc -l`; anything else exits 2.
 * - `vish/stress` (entrypoint /stress): only `-cpus N`: N busy loops until SIGTERM.
 */
import { pushBusyboxPlus } from '../../test/e2e/containerd-images.js';
import { setEntrypoint } from './copy.js';

type Files = Record<string, [number, string]>;

const AGNHOST = `#!/bin/sh
# k8ts stand-in for agnhost: only "liveness" (GET /healthz on :8080: 200 for 10 s, then 500)
case "$1" in
  liveness)
    date +%s > /tmp/.agnhost-started
    trap 'exit 0' TERM INT
    echo "Started HTTP server on port 8080"
    nc -ll -p 8080 -e /usr/local/lib/agnhost/healthz &
    wait
    ;;
  *)
    echo "agnhost stand-in (k8ts): only the liveness subcommand exists" >&2
    exit 2
    ;;
esac
`;

/** One HTTP request on stdin/stdout (run by `nc -ll -e` per connection). */
const AGNHOST_HEALTHZ = `#!/bin/sh
read -r method path _
while read -r h; do [ -z "$(printf %s "$h" | tr -d '\\r')" ] && break; done
up=$(( $(date +%s) - $(cat /tmp/.agnhost-started) ))
reply() { printf 'HTTP/1.1 %s\\r\\nContent-Type: text/plain; charset=utf-8\\r\\nContent-Length: %s\\r\\nConnection: close\\r\\n\\r\\n%s' "$1" "\${#2}" "$2"; }
case "$path" in
  /healthz) if [ "$up" -lt 10 ]; then reply '200 OK' 'ok'; else reply '500 Internal Server Error' "error: \${up}s"; fi ;;
  *) reply '404 Not Found' '404 page not found' ;;
esac
`;

const PERL = `#!/bin/sh
# k8ts stand-in for perl: only "print bpi(N)" (pi to N significant digits), with busybox bc
n=
for a in "$@"; do
  case "$a" in *bpi\\(*\\)*) n=\${a#*bpi(}; n=\${n%%)*} ;; esac
done
case "$n" in ''|*[!0-9]*|0) echo "perl stand-in (k8ts): only 'print bpi(N)' is supported" >&2; exit 2 ;; esac
echo "scale=$((n + 5)); p = 4 * a(1) + 5 / 10^$n; scale=$((n - 1)); p / 1" | BC_LINE_LENGTH=0 bc -l | tr -d '\\\\\\n'
echo
`;

const VISH_STRESS = `#!/bin/sh
# k8ts stand-in for vish/stress: only -cpus N (N busy loops until SIGTERM)
n=1
while [ $# -gt 0 ]; do
  case "$1" in -cpus) n=$2; shift ;; esac
  shift
done
trap 'exit 0' TERM INT
echo "stress stand-in: $n busy loops"
i=0
while [ "$i" -lt "$n" ]; do (while :; do :; done) & i=$((i + 1)); done
wait
`;

/** Mirror paths (`repo:tag`) this module pushes. */
export const EXTRA_PATHS = ['e2e-test-images/agnhost:2.40', 'library/perl:latest', 'vish/stress:latest'] as const;

/** Pushes the three extra stand-ins to `registry` (`host:port`). @throws PushError */
export async function publishExtras(registry: string): Promise<void> {
  const agnhost: Files = { agnhost: [0o755, AGNHOST], 'usr/local/lib/agnhost/healthz': [0o755, AGNHOST_HEALTHZ] };
  await pushBusyboxPlus(registry, EXTRA_PATHS[0], agnhost, []);
  await setEntrypoint(registry, EXTRA_PATHS[0], ['/agnhost'], []);
  await pushBusyboxPlus(registry, EXTRA_PATHS[1], { 'usr/bin/perl': [0o755, PERL] }, ['perl', '-de0']);
  await pushBusyboxPlus(registry, EXTRA_PATHS[2], { stress: [0o755, VISH_STRESS] }, []);
  await setEntrypoint(registry, EXTRA_PATHS[2], ['/stress'], []);
}
