/**
 * The scheduler's event sink with upstream's broadcaster semantics: events are written
 * one at a time (client-go's broadcaster has a single goroutine recording to the sink),
 * at most 1000 wait, and further events are dropped while the queue is full
 * (watch.DropIfChannelFull). Under a burst the API server therefore spends its time on
 * bindings rather than on a parallel flood of Event writes — as with kube-scheduler.
 *
 * @see https://github.com/kubernetes/client-go/blob/master/tools/events/event_broadcaster.go (maxQueuedEvents)
 * @see https://github.com/kubernetes/apimachinery/blob/master/pkg/watch/mux.go (DropIfChannelFull)
 */
import type { KObject } from '../api/resource.js';
import { ClientEventRecorder, type EventRecorder } from '../client/events.js';
import type { Client } from '../client/types.js';

/** Upstream maxQueuedEvents. */
export const MAX_QUEUED_EVENTS = 1000;

/** Thrown (to the recorder, which ignores it) for an event dropped because the queue is full. */
export class EventDroppedError extends Error {
  override name = 'EventDroppedError';
}

const DROPPED = new EventDroppedError('event queue full, event dropped');

/**
 * A Client that forwards everything to `client`, except Event writes (create, patch),
 * which are serialized through a bounded queue.
 */
export function eventSinkClient(client: Client, maxQueued = MAX_QUEUED_EVENTS): Client & { dropped(): number; full(): boolean; close(): void } {
  const queue: (() => Promise<unknown>)[] = [];
  let running = false;
  let dropped = 0;
  let closed = false;
  const pump = async () => {
    running = true;
    while (queue.length) await queue.shift()!().catch(() => undefined);
    running = false;
  };
  const enqueue = <T>(f: () => Promise<T>): Promise<T> => {
    if (closed || queue.length >= maxQueued) {
      dropped++;
      return Promise.reject(DROPPED);
    }
    return new Promise<T>((resolve, reject) => {
      queue.push(() => f().then(resolve, reject));
      if (!running) void pump();
    });
  };
  const isEvent = (r: { resource: string; group: string }) => r.resource === 'events' && (r.group === '' || r.group === 'events.k8s.io');
  return {
    get: (r, ns, name, o) => client.get(r, ns, name, o),
    list: (r, ns, o) => client.list(r, ns, o),
    create: (r, ns, obj, o) => (isEvent(r) ? enqueue(() => client.create(r, ns, obj, o)) : client.create(r, ns, obj, o)),
    update: (r, ns, obj, o) => client.update(r, ns, obj, o),
    patch: (r, ns, name, type, p, o) => (isEvent(r) ? enqueue(() => client.patch(r, ns, name, type, p, o)) : client.patch(r, ns, name, type, p, o)),
    delete: (r, ns, name, o) => client.delete(r, ns, name, o),
    deleteCollection: (r, ns, o) => client.deleteCollection(r, ns, o),
    createSubresource: (r, ns, name, sub, body: KObject) => client.createSubresource(r, ns, name, sub, body),
    watch: (r, ns, o, on) => client.watch(r, ns, o, on),
    raw: (m, p, b) => client.raw(m, p, b),
    dropped: () => dropped,
    full: () => closed || queue.length >= maxQueued,
    close: () => {
      closed = true;
      dropped += queue.length;
      queue.length = 0;
    },
  };
}

/** The recorder kube-scheduler uses: component `default-scheduler`, events through {@link eventSinkClient}. */
export function newSchedulerEventRecorder(client: Client, component = 'default-scheduler'): EventRecorder & { close(): void } {
  const sink = eventSinkClient(client);
  const rec = new ClientEventRecorder(sink, { component });
  return {
    event(obj, type, reason, message, fieldPath) {
      // a full queue drops the event before it is even built, as the broadcaster's channel
      if (sink.full()) return;
      rec.event(obj, type, reason, message, fieldPath);
    },
    /** drops queued events and records no more (shutdown) */
    close: () => sink.close(),
  };
}
