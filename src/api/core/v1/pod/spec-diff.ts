/**
 * A go-cmp style diff of two pod specs, appended to the "pod updates may not change fields
 * other than …" message as upstream does with `cmp.Diff(oldPod.Spec, mungedPodSpec)`.
 *
 * Approximation (documented difference): upstream diffs the internal Go structs, so its
 * output names Go fields in struct order, shows a few identical neighbours as context and
 * formats quantities and pointers the Go way. Here fields use Go-style names derived from
 * the JSON names, in JSON key order; every run of identical fields is elided as
 * `... // N identical fields` (or `elements`), and values are printed Go-like
 * (`"s"`, `nil`, `[]string{"a"}`, `{Name: "x"}`). Changed lines start with `- `/`+ `,
 * unchanged lines with two spaces, nesting is indented with tabs, as in go-cmp.
 *
 * @see https://github.com/google/go-cmp/blob/master/cmp/report_reflect.go
 */
import { jsonEqual } from '../../../../apimachinery/validation.js';

const SPECIAL: Record<string, string> = {
  uid: 'UID',
  dnsPolicy: 'DNSPolicy',
  dnsConfig: 'DNSConfig',
  os: 'OS',
  tty: 'TTY',
  httpGet: 'HTTPGet',
  tcpSocket: 'TCPSocket',
  grpc: 'GRPC',
  iscsi: 'ISCSI',
  nfs: 'NFS',
  rbd: 'RBD',
  csi: 'CSI',
  fc: 'FC',
  apiVersion: 'APIVersion',
  fsGroup: 'FSGroup',
  fsGroupChangePolicy: 'FSGroupChangePolicy',
  seLinuxOptions: 'SELinuxOptions',
  hostIP: 'HostIP',
  cephfs: 'CephFS',
  gcePersistentDisk: 'GCEPersistentDisk',
  awsElasticBlockStore: 'AWSElasticBlockStore',
  scaleIO: 'ScaleIO',
  storageos: 'StorageOS',
  setHostnameAsFQDN: 'SetHostnameAsFQDN',
};

/** JSON field name → Go field name. */
function goFieldName(json: string): string {
  return SPECIAL[json] ?? json.charAt(0).toUpperCase() + json.slice(1);
}

/** A JSON value printed the way Go's %#v-ish cmp output shows it, on one line. */
function goValue(v: unknown): string {
  if (v === undefined || v === null) return 'nil';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return '{}';
    if (v.every((x) => typeof x === 'string')) return `[]string{${v.map((x) => JSON.stringify(x)).join(', ')}}`;
    return `{${v.map(goValue).join(', ')}}`;
  }
  const o = v as Record<string, unknown>;
  const parts = Object.keys(o)
    .filter((k) => o[k] !== undefined && o[k] !== null)
    .map((k) => `${goFieldName(k)}: ${goValue(o[k])}`);
  return `{${parts.join(', ')}}`;
}

const SLICE_TYPES: Record<string, string> = {
  Containers: '[]core.Container',
  InitContainers: '[]core.Container',
  EphemeralContainers: '[]core.EphemeralContainer',
  Volumes: '[]core.Volume',
  Tolerations: '[]core.Toleration',
  Env: '[]core.EnvVar',
  Ports: '[]core.ContainerPort',
  VolumeMounts: '[]core.VolumeMount',
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function diffValue(name: string, a: unknown, b: unknown, indent: string, out: string[]): void {
  const label = name ? `${name}: ` : '';
  if (isObject(a) && isObject(b)) {
    out.push(`  ${indent}${label}{`);
    diffObject(a, b, indent + '\t', out);
    out.push(`  ${indent}},`);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    out.push(`  ${indent}${label}${SLICE_TYPES[name] ?? ''}{`);
    let same = 0;
    const flush = (): void => {
      if (same) out.push(`  ${indent}\t... // ${same} identical element${same === 1 ? '' : 's'}`);
      same = 0;
    };
    for (let i = 0; i < a.length; i++) {
      if (jsonEqual(a[i], b[i])) same++;
      else {
        flush();
        diffValue('', a[i], b[i], indent + '\t', out);
      }
    }
    flush();
    out.push(`  ${indent}},`);
    return;
  }
  out.push(`- ${indent}${label}${goValue(a)},`);
  out.push(`+ ${indent}${label}${goValue(b)},`);
}

function diffObject(a: Record<string, unknown>, b: Record<string, unknown>, indent: string, out: string[]): void {
  const keys = [...Object.keys(a)];
  for (const k of Object.keys(b)) if (!(k in a)) keys.push(k);
  let same = 0;
  const flush = (): void => {
    if (same) out.push(`  ${indent}... // ${same} identical field${same === 1 ? '' : 's'}`);
    same = 0;
  };
  for (const k of keys) {
    if (jsonEqual(a[k], b[k])) {
      same++;
      continue;
    }
    flush();
    diffValue(goFieldName(k), a[k], b[k], indent, out);
  }
  flush();
}

/**
 * The diff of two specs as go-cmp prints it (approximately; see the module comment).
 *
 * @param typeName the Go type shown in the header, `core.PodSpec` for pods
 */
export function goSpecDiff(oldSpec: unknown, newSpec: unknown, typeName = 'core.PodSpec'): string {
  const out: string[] = [];
  if (isObject(oldSpec) && isObject(newSpec)) {
    out.push(`  ${typeName}{`);
    diffObject(oldSpec, newSpec, '\t', out);
    out.push('  }');
  } else {
    out.push(`- ${goValue(oldSpec)}`, `+ ${goValue(newSpec)}`);
  }
  return out.join('\n') + '\n';
}
