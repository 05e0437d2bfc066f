/**
 * The CSR controllers of the controller manager: csrapproving (auto-approves kubelet
 * client certificate requests after a SubjectAccessReview on
 * certificatesigningrequests/nodeclient or /selfnodeclient) and csrsigning (signs
 * approved requests for the kube-apiserver-client(-kubelet) and kubelet-serving
 * signers with the cluster CA).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/certificates/approver/sarapprove.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/controller/certificates/signer/signer.go
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type * as x509 from '@peculiar/x509';
import type { KObject } from '../../api/resource.js';
import { KUBE_APISERVER_CLIENT, KUBE_APISERVER_CLIENT_KUBELET, KUBELET_SERVING, LEGACY_UNKNOWN, parseCSR } from '../../api/certificates/definition.js';
import { isConflict, isNotFound } from '../../apimachinery/errors.js';
import { Informer } from '../../client/informer.js';
import type { Client, ResourceRef } from '../../client/types.js';
import { signCSR, type SigningCA } from './sign.js';

type CSR = CertificateSigningRequest & KObject;

export const CSR_REF: ResourceRef = { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false };
const SAR_REF: ResourceRef = { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false };
const NODE_USAGES = new Set(['key encipherment', 'digital signature', 'client auth']);

interface CSRControllerOptions {
  /** client of the approver (identity system:serviceaccount:kube-system:certificate-controller) */
  client: Client;
  /** the cluster CA; without it nothing is signed */
  ca?: SigningCA;
  signers?: string[];
}

/** Is this a kubelet client certificate request (upstream isNodeClientCert)? */
export function isNodeClientCert(csr: CSR, req: x509.Pkcs10CertificateRequest): boolean {
  if (csr.spec?.signerName !== KUBE_APISERVER_CLIENT_KUBELET) return false;
  const orgs = req.subjectName.getField('O');
  const cn = req.subjectName.getField('CN')[0] ?? '';
  if (orgs.length !== 1 || orgs[0] !== 'system:nodes' || !cn.startsWith('system:node:')) return false;
  const usages = csr.spec.usages ?? [];
  if (!usages.includes('client auth') || usages.some((u) => !NODE_USAGES.has(u))) return false;
  return !req.extensions.some((e) => e.type === '2.5.29.17');
}

function hasCondition(csr: CSR, type: string): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === type && c.status !== 'False');
}

export async function startCSRController(o: CSRControllerOptions): Promise<{ stop(): Promise<void> }> {
  const { client } = o;
  const signers = new Set(o.signers ?? [KUBE_APISERVER_CLIENT_KUBELET, KUBE_APISERVER_CLIENT, KUBELET_SERVING, LEGACY_UNKNOWN]);
  const informer = new Informer<CSR>(client, CSR_REF);
  const busy = new Set<string>();

  const canCreate = async (csr: CSR, sub: string): Promise<boolean> => {
    const sar = (await client.create(SAR_REF, '', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: csr.spec?.username,
        uid: csr.spec?.uid,
        groups: csr.spec?.groups,
        extra: csr.spec?.extra,
        resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource: sub },
      },
    })) as { status?: { allowed?: boolean } };
    return !!sar.status?.allowed;
  };

  const approve = async (csr: CSR): Promise<void> => {
    if (hasCondition(csr, 'Approved') || hasCondition(csr, 'Denied')) return;
    let req: x509.Pkcs10CertificateRequest;
    try {
      req = parseCSR(csr.spec?.request);
    } catch {
      return;
    }
    if (!isNodeClientCert(csr, req)) return;
    const self = csr.spec?.username === (req.subjectName.getField('CN')[0] ?? '');
    let message: string | undefined;
    if (self && (await canCreate(csr, 'selfnodeclient'))) message = 'Auto approving self kubelet client certificate after SubjectAccessReview.';
    else if (await canCreate(csr, 'nodeclient')) message = 'Auto approving kubelet client certificate after SubjectAccessReview.';
    if (!message) return;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const upd: CSR = {
      ...csr,
      status: {
        ...(csr.status ?? {}),
        conditions: [...(csr.status?.conditions ?? []), { type: 'Approved', status: 'True', reason: 'AutoApproved', message, lastUpdateTime: now, lastTransitionTime: now }],
      },
    };
    await client.update(CSR_REF, '', upd, { subresource: 'approval' });
  };

  const sign = async (csr: CSR): Promise<void> => {
    if (!o.ca || !hasCondition(csr, 'Approved') || hasCondition(csr, 'Failed') || csr.status?.certificate) return;
    if (!signers.has(csr.spec?.signerName ?? '')) return;
    const pem = Buffer.from(csr.spec!.request, 'base64').toString('utf8');
    const cert = await signCSR(o.ca, pem, csr.spec?.usages ?? [], csr.spec?.expirationSeconds ?? undefined);
    await client.update(CSR_REF, '', { ...csr, status: { ...(csr.status ?? {}), certificate: Buffer.from(cert).toString('base64') } }, { subresource: 'status' });
  };

  const sync = async (csr: CSR): Promise<void> => {
    const name = csr.metadata?.name ?? '';
    if (busy.has(name)) return;
    busy.add(name);
    try {
      await approve(csr);
      const fresh = informer.getByName('', name) ?? csr;
      await sign(hasCondition(fresh, 'Approved') ? fresh : ((await client.get(CSR_REF, '', name)) as CSR));
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) setTimeout(() => void sync(informer.getByName('', name) ?? csr), 1000).unref();
    } finally {
      busy.delete(name);
    }
  };

  informer.addEventHandler({ add: (c) => void sync(c), update: (_o, c) => void sync(c) });
  informer.start();
  await informer.waitForSync();
  return {
    async stop() {
      informer.stop();
    },
  };
}
