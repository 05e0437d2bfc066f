/**
 * Event recorder: writes core/v1 Events about objects, as client-go's
 * tools/record does — event name `<object name>.<hex timestamp>`, involvedObject,
 * source {component, host}, first/lastTimestamp, and repeated events (same object,
 * type, reason, message) folded into one Event whose `count` grows (EventCorrelator).
 *
 * Writes are asynchronous and never throw into the caller.
 *
 * @see https://github.com/kubernetes/client-go/blob/master/tools/record/event.go
 */
import type { KObject } from '../api/resource.js';
import type { Client } from './types.js';
import { R } from './types.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /** Records an event about `obj` (which needs kind, apiVersion, metadata.name/namespace/uid). */
  event(obj: KObject, type: EventType, reason: string, message: string, fieldPath?: string): void;
}

interface Seen {
  name: string;
  namespace: string;
  count: number;
  first: string;
  pending: Promise<unknown>;
}

interface RecorderOptions {
  component: string;
  host?: string;
  /** wall clock, injectable */
  now?: () => Date;
}

/** RFC 3339 with seconds precision, as metav1.Time serialises. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RFC 3339 with microseconds, as metav1.MicroTime serialises. */
export function rfc3339Micro(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class ClientEventRecorder implements EventRecorder {
  private readonly seen = new Map<string, Seen>();
  private readonly now: () => Date;

  constructor(
    private readonly client: Client,
    private readonly opts: RecorderOptions,
  ) {
    this.now = opts.now ?? (() => new Date());
  }

  event(obj: KObject, type: EventType, reason: string, message: string, fieldPath?: string): void {
    const m = obj.metadata ?? {};
    const namespace = m.namespace || 'default';
    const key = [m.uid ?? '', m.namespace ?? '', m.name ?? '', fieldPath ?? '', type, reason, message].join('\x00');
    const now = this.now();
    const ts = rfc3339(now);
    const prev = this.seen.get(key);
    if (prev) {
      prev.count++;
      const count = prev.count;
      prev.pending = prev.pending.then(() => this.client.patch(R.events, prev.namespace, prev.name, 'merge', { count, lastTimestamp: ts }).catch(() => undefined));
      return;
    }
    const name = `${m.name}.${(BigInt(now.getTime()) * 1_000_000n + BigInt(process.hrtime()[1] % 1_000_000)).toString(16)}`;
    const ev: KObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: m.name,
        namespace: m.namespace,
        uid: m.uid,
        resourceVersion: m.resourceVersion,
        ...(fieldPath ? { fieldPath } : {}),
      },
      reason,
      message,
      type,
      source: { component: this.opts.component, ...(this.opts.host ? { host: this.opts.host } : {}) },
      firstTimestamp: ts,
      lastTimestamp: ts,
      count: 1,
      reportingComponent: this.opts.component,
      reportingInstance: this.opts.host ?? '',
    };
    const entry: Seen = { name, namespace, count: 1, first: ts, pending: Promise.resolve() };
    entry.pending = this.client.create(R.events, namespace, ev).catch(() => undefined);
    this.seen.set(key, entry);
    if (this.seen.size > 4096) {
      const firstKey = this.seen.keys().next().value;
      if (firstKey !== undefined) this.seen.delete(firstKey);
    }
  }
}
