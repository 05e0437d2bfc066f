/**
 * Finding where the last N lines of a log file start, reading backwards in blocks.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/util/tail/tail.go (FindTailLineStartIndex)
 */
import type { FileHandle } from 'node:fs/promises';

const BLOCK = 64 * 1024;

/**
 * The byte offset where the last `n` lines of the file start: just after the
 * (n+1)-th newline counted from the end (0 when there are fewer). An unterminated
 * last line is not counted as a line. `n < 0` means the whole file (0).
 */
export async function findTailLineStart(fh: FileHandle, size: number, n: number): Promise<number> {
  if (n < 0) return 0;
  let need = n + 1;
  const buf = Buffer.allocUnsafe(BLOCK);
  for (let right = size; right > 0; ) {
    const left = Math.max(0, right - BLOCK);
    const len = right - left;
    const { bytesRead } = await fh.read(buf, 0, len, left);
    for (let i = bytesRead - 1; i >= 0; i--) {
      if (buf[i] === 0x0a && --need === 0) return left + i + 1;
    }
    right = left;
  }
  return 0;
}
