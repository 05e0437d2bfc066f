/**
 * coordination.k8s.io/v1 Lease: node heartbeats and leader election. Validation,
 * printer NAME HOLDER AGE. `strategy`/`preferredHolder` belong to the alpha
 * CoordinatedLeaderElection feature (off by default in v1.32) and are dropped unless the
 * stored object already uses them.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/coordination/lease/strategy.go
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/apis/coordination/validation/validation.go
 */
import type { Lease as Lease130, LeaseSpec as LeaseSpec130 } from 'kubernetes-types/coordination/v1.js';
import { type FieldError, forbidden, invalid, notSupported, Path } from '../../../../apimachinery/field-errors.js';
import { isQualifiedName } from '../../../../apimachinery/validation.js';
import type { ResourceDefinition } from '../../../resource.js';
import { AGE_COLUMN, column, NAME_COLUMN, translateTimestampSince } from '../../../core/v1/shared/printing.js';
import type { K, O } from '../../../core/v1/shared/types.js';

const STRATEGIES = ['OldestEmulationVersion'];

/** v1.31+ LeaseSpec (kubernetes-types 1.30 lacks the coordinated-leader-election fields). */
export interface LeaseSpec extends LeaseSpec130 {
  /** the coordinated leader election strategy, e.g. OldestEmulationVersion */
  strategy?: string;
  /** the identity the lease should be handed to */
  preferredHolder?: string;
}
/** coordination.k8s.io/v1 Lease as of v1.32. */
export interface Lease extends Omit<Lease130, 'spec'> {
  spec?: LeaseSpec;
}

/** Upstream ValidateLeaseSpec. */
function validateLeaseSpec(lease: O<Lease>): FieldError[] {
  const errs: FieldError[] = [];
  const s = lease.spec ?? {};
  const p = Path.root('spec');
  if (s.leaseDurationSeconds !== undefined && s.leaseDurationSeconds <= 0) {
    errs.push(invalid(p.child('leaseDurationSeconds'), s.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (s.leaseTransitions !== undefined && s.leaseTransitions < 0) {
    errs.push(invalid(p.child('leaseTransitions'), s.leaseTransitions, 'must be greater than or equal to 0'));
  }
  if (s.strategy !== undefined) {
    const sp = p.child('strategy').child('strategy');
    if (!s.strategy.includes('/')) {
      if (!STRATEGIES.includes(s.strategy)) errs.push(notSupported(sp, s.strategy, STRATEGIES));
    } else {
      for (const m of isQualifiedName(s.strategy)) errs.push(invalid(sp, s.strategy, m));
    }
  }
  if (s.preferredHolder && !s.strategy) errs.push(forbidden(p.child('preferredHolder'), 'may only be specified if `strategy` is defined'));
  return errs;
}

function dropDisabledFields(lease: O<Lease>, old: O<Lease> | undefined): void {
  if (!lease.spec) return;
  if (!old || (old.spec?.preferredHolder === undefined && old.spec?.strategy === undefined)) {
    delete lease.spec.preferredHolder;
    delete lease.spec.strategy;
  }
}

/** coordination.k8s.io/v1 leases. */
export const leaseDefinition: ResourceDefinition<K<Lease>> = {
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  listKind: 'LeaseList',
  resource: 'leases',
  singular: 'lease',
  namespaced: true,
  schemaRef: 'coordination/v1#Lease',
  allowCreateOnUpdate: true,

  prepareForCreate(obj) {
    dropDisabledFields(obj, undefined);
  },
  prepareForUpdate(obj, old) {
    dropDisabledFields(obj, old);
  },
  validate(obj) {
    return validateLeaseSpec(obj);
  },
  validateUpdate(obj) {
    return validateLeaseSpec(obj);
  },
  table: {
    columns: [NAME_COLUMN, column('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'), AGE_COLUMN],
    cells(obj, now) {
      return [obj.metadata.name ?? '', obj.spec?.holderIdentity ?? '', translateTimestampSince(obj.metadata.creationTimestamp, now)];
    },
  },
};
