/** Free TCP ports on 127.0.0.1 for test servers. */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The ports tests pick from: the 12,000 below the kernel's ephemeral range
 * (`net.ipv4.ip_local_port_range`, 32768–60999 by default). A port the OS hands out for
 * `listen(0)` comes from that range, where every outgoing connection of the test run also
 * takes its local port — so between probing it and the server binding it, a kubectl or a
 * server's client could take it (`bind: address already in use`). Below the range only
 * listeners compete.
 */
function candidateRange(): [number, number] {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    // not Linux: keep the default
  }
  return [Math.max(1024, low - 12_000), low];
}

/** Whether a listener can bind 127.0.0.1:`port` now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.unref();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A port that was free on 127.0.0.1 a moment ago, picked at random below the ephemeral range.
 * @throws Error when 100 random picks were all taken
 */
export async function freePort(): Promise<number> {
  const [low, high] = candidateRange();
  for (let i = 0; i < 100; i++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port on 127.0.0.1 in ${low}–${high - 1}`);
}
