/**
 * certificates.k8s.io/v1 CertificateSigningRequest: the requestor's identity is stamped
 * into spec on create; `approval` changes only the Approved/Denied conditions, `status`
 * only the certificate and other conditions; Approved and Denied exclude each other and
 * stay once set.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/certificates/certificates/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/certificates/validation/validation.go
 */
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from 'kubernetes-types/certificates/v1.js';
import * as x509 from '@peculiar/x509';
import { type FieldError, forbidden, invalid, notSupported, Path, required } from '../../apimachinery/field-errors.js';
import { jsonEqual } from '../../apimachinery/validation.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../core/v1/shared/printing.js';
import type { KObject, Obj, ResourceDefinition } from '../resource.js';

type CSR = CertificateSigningRequest & KObject;

export const KUBE_APISERVER_CLIENT = 'kubernetes.io/kube-apiserver-client';
export const KUBE_APISERVER_CLIENT_KUBELET = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING = 'kubernetes.io/kubelet-serving';
export const LEGACY_UNKNOWN = 'kubernetes.io/legacy-unknown';

const USAGES = [
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
];

/** Parses spec.request (base64 of a PEM CERTIFICATE REQUEST). */
export function parseCSR(requestB64: string | undefined): x509.Pkcs10CertificateRequest {
  const pem = Buffer.from(requestB64 ?? '', 'base64').toString('utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE REQUEST-----')) throw new Error('PEM block type must be CERTIFICATE REQUEST');
  return new x509.Pkcs10CertificateRequest(pem);
}

function validateCSR(o: Obj<CSR>): FieldError[] {
  const errs: FieldError[] = [];
  const sp = Path.root('spec');
  const spec = o.spec;
  if (!spec?.request) errs.push(required(sp.child('request'), ''));
  else {
    try {
      parseCSR(spec.request);
    } catch (e) {
      errs.push(invalid(sp.child('request'), '<request>', (e as Error).message));
    }
  }
  if (!spec?.signerName) errs.push(required(sp.child('signerName'), ''));
  else if (!/^[a-z0-9.-]+\/[^/]+$/.test(spec.signerName))
    errs.push(invalid(sp.child('signerName'), spec.signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
  if (!spec?.usages?.length) errs.push(required(sp.child('usages'), ''));
  (spec?.usages ?? []).forEach((u, i) => {
    if (!USAGES.includes(u)) errs.push(notSupported(sp.child('usages').index(i), u, USAGES));
  });
  if (spec?.expirationSeconds !== undefined && spec.expirationSeconds < 600)
    errs.push(invalid(sp.child('expirationSeconds'), spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  errs.push(...validateConditions(o.status?.conditions ?? []));
  return errs;
}

function validateConditions(conds: CertificateSigningRequestCondition[]): FieldError[] {
  const errs: FieldError[] = [];
  const p = Path.root('status').child('conditions');
  const seen = new Set<string>();
  conds.forEach((c, i) => {
    if (!c.type) errs.push(required(p.index(i).child('type'), ''));
    if ((c.type === 'Approved' || c.type === 'Denied' || c.type === 'Failed') && seen.has(c.type)) errs.push(invalid(p.index(i).child('type'), c.type, 'duplicate condition'));
    if ((c.type === 'Approved' && seen.has('Denied')) || (c.type === 'Denied' && seen.has('Approved'))) {
      errs.push(invalid(p.index(i).child('type'), c.type, 'Approved and Denied conditions are mutually exclusive'));
    }
    seen.add(c.type);
  });
  return errs;
}

function keepApprovalConditions(obj: Obj<CSR>, old: Obj<CSR>, approval: boolean): void {
  const isApproval = (c: CertificateSigningRequestCondition) => c.type === 'Approved' || c.type === 'Denied';
  const cur = obj.status?.conditions ?? [];
  const prev = old.status?.conditions ?? [];
  const status = (obj.status ??= {});
  if (approval) {
    // approval may change Approved/Denied only; the certificate and other conditions stay
    status.conditions = [...prev.filter((c) => !isApproval(c)), ...cur.filter(isApproval)];
    if (old.status?.certificate) (status as { certificate?: string }).certificate = old.status.certificate;
    else delete (status as { certificate?: string }).certificate;
  } else {
    status.conditions = [...prev.filter(isApproval), ...cur.filter((c) => !isApproval(c))];
  }
  for (const c of status.conditions) {
    (c as { status?: string }).status ??= 'True';
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    (c as { lastUpdateTime?: string }).lastUpdateTime ??= now;
    (c as { lastTransitionTime?: string }).lastTransitionTime ??= now;
  }
}

function validateStatusUpdate(obj: Obj<CSR>, old: Obj<CSR>): FieldError[] {
  const errs = validateConditions(obj.status?.conditions ?? []);
  const p = Path.root('status').child('conditions');
  for (const t of ['Approved', 'Denied']) {
    if ((old.status?.conditions ?? []).some((c) => c.type === t) && !(obj.status?.conditions ?? []).some((c) => c.type === t)) {
      errs.push(forbidden(p, `updates may not remove a condition of type "${t}"`));
    }
  }
  if (old.status?.certificate && obj.status?.certificate !== old.status.certificate) {
    errs.push(forbidden(Path.root('status').child('certificate'), 'updates may not modify existing certificate content'));
  }
  return errs;
}

function condition(o: Obj<CSR>): string {
  const c = (o.status?.conditions ?? []).map((x) => x.type);
  if (!c.length) return 'Pending';
  const s = c.join(',');
  return o.status?.certificate ? `${s},Issued` : s;
}

export const csrDefinition: ResourceDefinition<CSR> = {
  group: 'certificates.k8s.io',
  version: 'v1',
  kind: 'CertificateSigningRequest',
  listKind: 'CertificateSigningRequestList',
  resource: 'certificatesigningrequests',
  singular: 'certificatesigningrequest',
  namespaced: false,
  shortNames: ['csr'],
  schemaRef: 'certificates/v1#CertificateSigningRequest',
  allowUnconditionalUpdate: true,
  prepareForCreate(obj, ctx) {
    const spec = (obj.spec ??= { request: '', signerName: '' });
    spec.username = ctx.user.username;
    if (ctx.user.uid) spec.uid = ctx.user.uid;
    else delete spec.uid;
    spec.groups = [...ctx.user.groups];
    if (ctx.user.extra && Object.keys(ctx.user.extra).length) spec.extra = ctx.user.extra;
    else delete spec.extra;
    obj.status = {};
  },
  prepareForUpdate(obj, old) {
    obj.spec = old.spec;
    obj.status = old.status;
  },
  validate: validateCSR,
  validateUpdate(obj, old) {
    return jsonEqual(obj.spec, old.spec) ? [] : [forbidden('spec', 'field is immutable')];
  },
  status: {
    prepareForUpdate(obj, old) {
      obj.spec = old.spec;
      keepApprovalConditions(obj, old, false);
    },
    validateUpdate: validateStatusUpdate,
  },
  subresourceStrategies: {
    approval: {
      prepareForUpdate(obj, old) {
        obj.spec = old.spec;
        keepApprovalConditions(obj, old, true);
      },
      validateUpdate: validateStatusUpdate,
    },
  },
  table: {
    columns: [
      NAME_COLUMN,
      AGE_COLUMN,
      column('SignerName', 'string', 'Only requests with this signer name are served.'),
      column('Requestor', 'string', 'Name of the user who created the request.'),
      column('RequestedDuration', 'string', 'The requested duration of the certificate.'),
      column('Condition', 'string', 'Current state of the request.'),
    ],
    cells: (o, now) => {
      const d = o.spec?.expirationSeconds;
      const dur = d === undefined ? '<none>' : d % 3600 === 0 ? `${d / 3600}h` : d % 60 === 0 ? `${d / 60}m` : `${d}s`;
      return [o.metadata.name ?? '', translateTimestampSince(o.metadata.creationTimestamp, now), o.spec?.signerName ?? '', o.spec?.username ?? '', dur, condition(o)];
    },
  },
};
