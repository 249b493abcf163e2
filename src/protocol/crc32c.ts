/**
 * CRC-32C (Castagnoli), the checksum of Kafka record batches (magic 2).
 * Slicing-by-8 over precomputed tables; reflected polynomial 0x82F63B78.
 */
const POLY = 0x82f63b78;
const T = new Int32Array(8 * 256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
  T[n] = c;
}
for (let n = 0; n < 256; n++) {
  for (let s = 1; s < 8; s++) T[s * 256 + n] = (T[(s - 1) * 256 + n] >>> 8) ^ T[T[(s - 1) * 256 + n] & 0xff];
}

/** CRC-32C of `buf[start, end)`, as an unsigned 32-bit number. */
export function crc32c(buf: Buffer, start = 0, end = buf.length): number {
  let crc = -1;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    crc ^= buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24);
    crc =
      T[7 * 256 + (crc & 0xff)] ^ T[6 * 256 + ((crc >>> 8) & 0xff)] ^
      T[5 * 256 + ((crc >>> 16) & 0xff)] ^ T[4 * 256 + (crc >>> 24)] ^
      T[3 * 256 + buf[i + 4]] ^ T[2 * 256 + buf[i + 5]] ^ T[256 + buf[i + 6]] ^ T[buf[i + 7]];
  }
  for (; i < end; i++) crc = T[(crc ^ buf[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
