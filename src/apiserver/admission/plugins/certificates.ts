/**
 * CertificateApproval, CertificateSigning and CertificateSubjectRestriction admission:
 * approving a CSR needs `approve` and issuing its certificate needs `sign` on
 * `signers/<signerName>` (or `signers/<domain>/*`) in certificates.k8s.io; the
 * kube-apiserver-client signer never signs for system:masters.
 *
 * @see https://github.com/kubernetes/kubernetes/tree/v1.32.0/plugin/pkg/admission/certificates
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { KUBE_APISERVER_CLIENT, parseCSR } from '../../../api/certificates/definition.js';
import type { UserInfo } from '../../../api/resource.js';
import { newForbidden } from '../../../apimachinery/errors.js';
import { resourceAttributes, type UnionAuthorizer } from '../../authz/types.js';
import type { AdmissionPlugin } from '../types.js';

const G = 'certificates.k8s.io';

function signerAllowed(authz: UnionAuthorizer, user: UserInfo, verb: string, signer: string): boolean {
  const allow = (name: string) => authz.decide(resourceAttributes(user, verb, G, 'signers', '', name)).decision === 'Allow';
  if (allow(signer)) return true;
  const slash = signer.indexOf('/');
  return slash > 0 && allow(`${signer.slice(0, slash)}/*`);
}

export function certificatePlugins(authz: UnionAuthorizer): AdmissionPlugin[] {
  const isCSR = (a: { resource: { group: string; resource: string } }) => a.resource.group === G && a.resource.resource === 'certificatesigningrequests';
  return [
    {
      name: 'CertificateApproval',
      async validate(a) {
        if (!isCSR(a) || a.operation !== 'UPDATE' || a.subresource !== 'approval') return;
        const csr = a.object as unknown as CertificateSigningRequest;
        const signer = csr.spec?.signerName ?? '';
        if (!signerAllowed(authz, a.user, 'approve', signer)) {
          throw newForbidden({ group: G, resource: 'certificatesigningrequests' }, a.name, `user not permitted to approve requests with signerName "${signer}"`);
        }
      },
    },
    {
      name: 'CertificateSigning',
      async validate(a) {
        if (!isCSR(a) || a.operation !== 'UPDATE' || a.subresource !== 'status') return;
        const csr = a.object as unknown as CertificateSigningRequest;
        const old = a.oldObject as unknown as CertificateSigningRequest | undefined;
        if ((csr.status?.certificate ?? '') === (old?.status?.certificate ?? '')) return;
        const signer = csr.spec?.signerName ?? '';
        if (!signerAllowed(authz, a.user, 'sign', signer)) {
          throw newForbidden({ group: G, resource: 'certificatesigningrequests' }, a.name, `user not permitted to sign requests with signerName "${signer}"`);
        }
      },
    },
    {
      name: 'CertificateSubjectRestriction',
      async validate(a) {
        if (!isCSR(a) || a.operation !== 'CREATE') return;
        const csr = a.object as unknown as CertificateSigningRequest;
        if (csr.spec?.signerName !== KUBE_APISERVER_CLIENT) return;
        let orgs: string[] = [];
        try {
          orgs = parseCSR(csr.spec.request).subjectName.getField('O');
        } catch {
          return; // validation reports a bad request
        }
        if (orgs.includes('system:masters')) {
          throw newForbidden({ group: G, resource: 'certificatesigningrequests' }, a.name, `use of ${KUBE_APISERVER_CLIENT} signer with system:masters group is not allowed`);
        }
      },
    },
  ];
}
