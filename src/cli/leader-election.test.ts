import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_LEADER_ELECTION, leaderElectionFrom, leaderIdentity } from './leader-election.js';
import { hostname } from 'node:os';

describe('leader election flags', () => {
  it('defaults as kube-scheduler and kube-controller-manager: on, 15 s / 10 s / 2 s', () => {
    assert.deepEqual(leaderElectionFrom({}), DEFAULT_LEADER_ELECTION);
    assert.deepEqual(DEFAULT_LEADER_ELECTION, { leaderElect: true, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    assert.equal(leaderElectionFrom({ leaderElect: true }).leaderElect, true, 'a bare --leader-elect');
    assert.equal(leaderElectionFrom({ leaderElect: 'false' }).leaderElect, false);
    assert.deepEqual(leaderElectionFrom({ leaderElectLeaseDuration: '4s', leaderElectRenewDeadline: '3s', leaderElectRetryPeriod: '500ms' }), {
      leaderElect: true,
      leaseDurationMs: 4000,
      renewDeadlineMs: 3000,
      retryPeriodMs: 500,
    });
  });

  it("rejects bad values with pflag's and component-base's messages", () => {
    assert.throws(() => leaderElectionFrom({ leaderElect: 'maybe' }), {
      message: 'invalid argument "maybe" for "--leader-elect" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    });
    assert.throws(() => leaderElectionFrom({ leaderElectLeaseDuration: '15' }), {
      message: 'invalid argument "15" for "--leader-elect-lease-duration" flag: time: invalid duration "15"',
    });
    assert.throws(() => leaderElectionFrom({ leaderElectLeaseDuration: '10s' }), {
      message: 'leaderElection.leaseDuration: Invalid value: "10s": LeaseDuration must be greater than RenewDeadline',
    });
    assert.throws(() => leaderElectionFrom({ leaderElectRetryPeriod: '0' }), { message: 'leaderElection.retryPeriod: Invalid value: "0": must be greater than zero' });
    assert.deepEqual(leaderElectionFrom({ leaderElect: 'false', leaderElectLeaseDuration: '1s' }).leaderElect, false, 'not validated when off');
  });

  it('identities are <hostname>_<uuid>, new for each candidate', () => {
    const a = leaderIdentity();
    assert.match(a, new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`));
    assert.notEqual(a, leaderIdentity());
  });
});
