/**
 * A registry of plugin factories by plugin name. Registering a name twice throws, as
 * upstream's `Registry.Register`.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/scheduler/framework/runtime/registry.go
 */
import type { PluginFactory } from './interface.js';

export class Registry {
  private readonly factories = new Map<string, PluginFactory>();

  constructor(entries?: Record<string, PluginFactory>) {
    if (entries) for (const [name, f] of Object.entries(entries)) this.register(name, f);
  }

  /** Adds a factory. Throws `a plugin named <name> already exists` on a duplicate. */
  register(name: string, factory: PluginFactory): void {
    if (this.factories.has(name)) throw new Error(`a plugin named ${name} already exists`);
    this.factories.set(name, factory);
  }

  /** Removes a factory. Throws `no plugin named <name> exists` if absent. */
  unregister(name: string): void {
    if (!this.factories.delete(name)) throw new Error(`no plugin named ${name} exists`);
  }

  get(name: string): PluginFactory | undefined {
    return this.factories.get(name);
  }

  has(name: string): boolean {
    return this.factories.has(name);
  }

  /** A registry holding this one's factories and `other`'s; throws on overlaps. */
  merge(other: Registry): Registry {
    const r = new Registry();
    for (const [n, f] of this.factories) r.register(n, f);
    for (const [n, f] of other.factories) r.register(n, f);
    return r;
  }

  names(): string[] {
    return [...this.factories.keys()];
  }
}
