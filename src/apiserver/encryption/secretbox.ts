/**
 * NaCl secretbox (XSalsa20-Poly1305), which Node's crypto lacks: the `secretbox`
 * encryption-at-rest provider. 24-byte nonce, 32-byte key, 16-byte tag prepended to
 * the ciphertext, as golang.org/x/crypto/nacl/secretbox.
 *
 * @see https://nacl.cr.yp.to/secretbox.html
 * @see https://cr.yp.to/snuffle/xsalsa-20081128.pdf
 */
import { timingSafeEqual } from 'node:crypto';

const SIGMA = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574];

function rotl(v: number, c: number): number {
  return ((v << c) | (v >>> (32 - c))) >>> 0;
}

function u32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

/** The Salsa20 double-round core over a 16-word state; `hsalsa` returns words 0,5,10,15,6,7,8,9. */
function core(input: Uint32Array, hsalsa: boolean): Uint32Array {
  const x = Uint32Array.from(input);
  for (let i = 0; i < 10; i++) {
    // column round
    x[4] ^= rotl((x[0]! + x[12]!) >>> 0, 7);
    x[8] ^= rotl((x[4]! + x[0]!) >>> 0, 9);
    x[12] ^= rotl((x[8]! + x[4]!) >>> 0, 13);
    x[0] ^= rotl((x[12]! + x[8]!) >>> 0, 18);
    x[9] ^= rotl((x[5]! + x[1]!) >>> 0, 7);
    x[13] ^= rotl((x[9]! + x[5]!) >>> 0, 9);
    x[1] ^= rotl((x[13]! + x[9]!) >>> 0, 13);
    x[5] ^= rotl((x[1]! + x[13]!) >>> 0, 18);
    x[14] ^= rotl((x[10]! + x[6]!) >>> 0, 7);
    x[2] ^= rotl((x[14]! + x[10]!) >>> 0, 9);
    x[6] ^= rotl((x[2]! + x[14]!) >>> 0, 13);
    x[10] ^= rotl((x[6]! + x[2]!) >>> 0, 18);
    x[3] ^= rotl((x[15]! + x[11]!) >>> 0, 7);
    x[7] ^= rotl((x[3]! + x[15]!) >>> 0, 9);
    x[11] ^= rotl((x[7]! + x[3]!) >>> 0, 13);
    x[15] ^= rotl((x[11]! + x[7]!) >>> 0, 18);
    // row round
    x[1] ^= rotl((x[0]! + x[3]!) >>> 0, 7);
    x[2] ^= rotl((x[1]! + x[0]!) >>> 0, 9);
    x[3] ^= rotl((x[2]! + x[1]!) >>> 0, 13);
    x[0] ^= rotl((x[3]! + x[2]!) >>> 0, 18);
    x[6] ^= rotl((x[5]! + x[4]!) >>> 0, 7);
    x[7] ^= rotl((x[6]! + x[5]!) >>> 0, 9);
    x[4] ^= rotl((x[7]! + x[6]!) >>> 0, 13);
    x[5] ^= rotl((x[4]! + x[7]!) >>> 0, 18);
    x[11] ^= rotl((x[10]! + x[9]!) >>> 0, 7);
    x[8] ^= rotl((x[11]! + x[10]!) >>> 0, 9);
    x[9] ^= rotl((x[8]! + x[11]!) >>> 0, 13);
    x[10] ^= rotl((x[9]! + x[8]!) >>> 0, 18);
    x[12] ^= rotl((x[15]! + x[14]!) >>> 0, 7);
    x[13] ^= rotl((x[12]! + x[15]!) >>> 0, 9);
    x[14] ^= rotl((x[13]! + x[12]!) >>> 0, 13);
    x[15] ^= rotl((x[14]! + x[13]!) >>> 0, 18);
  }
  if (hsalsa) return Uint32Array.of(x[0]!, x[5]!, x[10]!, x[15]!, x[6]!, x[7]!, x[8]!, x[9]!);
  for (let i = 0; i < 16; i++) x[i] = (x[i]! + input[i]!) >>> 0;
  return x;
}

function state(key: Uint8Array, n16: Uint8Array): Uint32Array {
  const s = new Uint32Array(16);
  s[0] = SIGMA[0]!;
  s[5] = SIGMA[1]!;
  s[10] = SIGMA[2]!;
  s[15] = SIGMA[3]!;
  for (let i = 0; i < 4; i++) s[1 + i] = u32(key, i * 4);
  for (let i = 0; i < 4; i++) s[11 + i] = u32(key, 16 + i * 4);
  for (let i = 0; i < 4; i++) s[6 + i] = u32(n16, i * 4);
  return s;
}

/** XSalsa20 keystream XOR `data` (nonce 24 bytes), starting at block counter 0. */
function xsalsa20(key: Uint8Array, nonce: Uint8Array, data: Uint8Array): Uint8Array {
  const sub = core(state(key, nonce.subarray(0, 16)), true);
  const subkey = new Uint8Array(32);
  for (let i = 0; i < 8; i++) new DataView(subkey.buffer).setUint32(i * 4, sub[i]!, true);
  const out = new Uint8Array(data.length);
  const n = new Uint8Array(16);
  n.set(nonce.subarray(16, 24), 0);
  const block = new Uint8Array(64);
  const dv = new DataView(block.buffer);
  for (let off = 0, ctr = 0; off < data.length; off += 64, ctr++) {
    n[8] = ctr & 0xff;
    n[9] = (ctr >>> 8) & 0xff;
    n[10] = (ctr >>> 16) & 0xff;
    n[11] = (ctr >>> 24) & 0xff;
    const ks = core(state(subkey, n), false);
    for (let i = 0; i < 16; i++) dv.setUint32(i * 4, ks[i]!, true);
    const end = Math.min(64, data.length - off);
    for (let i = 0; i < end; i++) out[off + i] = data[off + i]! ^ block[i]!;
  }
  return out;
}

const P1305 = (1n << 130n) - 5n;

function leBig(b: Uint8Array): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
  return v;
}

/** Poly1305 one-time authenticator. */
function poly1305(key: Uint8Array, msg: Uint8Array): Uint8Array {
  const r = leBig(key.subarray(0, 16)) & 0x0ffffffc0ffffffc0ffffffc0fffffffn;
  const s = leBig(key.subarray(16, 32));
  let acc = 0n;
  for (let i = 0; i < msg.length; i += 16) {
    const chunk = msg.subarray(i, Math.min(i + 16, msg.length));
    const n = leBig(chunk) | (1n << BigInt(8 * chunk.length));
    acc = ((acc + n) * r) % P1305;
  }
  acc = (acc + s) & ((1n << 128n) - 1n);
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    out[i] = Number(acc & 0xffn);
    acc >>= 8n;
  }
  return out;
}

/** secretbox.Seal: tag(16) || ciphertext. */
export function secretboxSeal(plain: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array {
  const padded = new Uint8Array(32 + plain.length);
  padded.set(plain, 32);
  const c = xsalsa20(key, nonce, padded);
  const tag = poly1305(c.subarray(0, 32), c.subarray(32));
  const out = new Uint8Array(16 + plain.length);
  out.set(tag, 0);
  out.set(c.subarray(32), 16);
  return out;
}

/** secretbox.Open; undefined when the tag does not verify. */
export function secretboxOpen(box: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array | undefined {
  if (box.length < 16) return undefined;
  const padded = new Uint8Array(32 + box.length - 16);
  padded.set(box.subarray(16), 32);
  const p = xsalsa20(key, nonce, padded);
  // p[0..32] is the poly key (keystream XOR zeros)
  const tag = poly1305(p.subarray(0, 32), box.subarray(16));
  if (!timingSafeEqual(Buffer.from(tag), Buffer.from(box.subarray(0, 16)))) return undefined;
  return p.subarray(32);
}
