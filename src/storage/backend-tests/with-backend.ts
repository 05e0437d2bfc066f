import type { Storage } from '../interface.js';

/** Runs a case with a fresh backend and a unique key prefix (ending in '/'), closing the backend afterwards. */
export type WithBackend = (fn: (s: Storage, prefix: string) => Promise<void>) => Promise<void>;
