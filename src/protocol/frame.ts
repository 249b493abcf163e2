/**
 * Framing: every Kafka request and response is an int32 size followed by that many bytes.
 * Request header v1 is apiKey int16, apiVersion int16, correlationId int32, clientId nullable
 * string (never compact); header v2 (flexible request versions, KIP-482) adds tagged fields.
 * Response header v0 is the correlationId; v1 adds tagged fields. ApiVersions responses always
 * use header v0 so a client can read them before it knows what the broker supports (KIP-511).
 */
import { MalformedFrameError, Reader, Writer } from './primitives';

/** socket.request.max.bytes in Apache Kafka (100 MiB). */
export const DEFAULT_MAX_FRAME_BYTES = 104857600;

/**
 * Accumulates socket chunks and yields whole frames (without the size prefix). A negative or
 * oversized length throws {@link MalformedFrameError}; the caller closes the connection.
 */
export class FrameSplitter {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxFrameBytes = DEFAULT_MAX_FRAME_BYTES) {}

  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Buffer[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const head = this.peek(4);
      const size = head.readInt32BE(0);
      if (size < 0) throw new MalformedFrameError(`negative frame size ${size}`);
      if (size > this.maxFrameBytes) throw new MalformedFrameError(`frame size ${size} exceeds ${this.maxFrameBytes}`);
      if (this.buffered < 4 + size) break;
      const all = this.take(4 + size);
      frames.push(all.subarray(4));
    }
    return frames;
  }

  /** Bytes received but not yet part of a whole frame. */
  get pending(): number {
    return this.buffered;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0].length >= n) return this.chunks[0];
    this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0];
  }

  /** Takes `n` bytes: a view when one chunk holds them, else an exact-size copy (never more). */
  private take(n: number): Buffer {
    const first = this.chunks[0];
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let filled = 0;
      while (filled < n) {
        const c = this.chunks[0];
        const need = n - filled;
        if (c.length <= need) {
          c.copy(out, filled);
          filled += c.length;
          this.chunks.shift();
        } else {
          c.copy(out, filled, 0, need);
          this.chunks[0] = c.subarray(need);
          filled = n;
        }
      }
    }
    this.buffered -= n;
    return out;
  }
}

export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}

/** Reads the fixed part of a request header (v1 layout); tagged fields are read by `skipHeaderTags`. */
export function readRequestHeader(r: Reader): RequestHeader {
  const apiKey = r.int16();
  const apiVersion = r.int16();
  const correlationId = r.int32();
  const clientId = r.nullableString(false);
  return { apiKey, apiVersion, correlationId, clientId };
}

/** Header v2's tagged-field section; the mock defines no header tags, so they are skipped. */
export function skipTaggedFields(r: Reader): void {
  const n = r.uvarint();
  for (let i = 0; i < n; i++) {
    r.uvarint();
    r.raw(r.uvarint());
  }
}

export function writeRequestHeader(w: Writer, h: RequestHeader, flexible: boolean): void {
  w.int16(h.apiKey).int16(h.apiVersion).int32(h.correlationId).nullableString(h.clientId, false);
  if (flexible) w.uvarint(0);
}

/** Starts a response frame: size placeholder, correlation id, and header tags when flexible. */
export function beginResponse(correlationId: number, headerV1: boolean): { w: Writer; finish: () => Buffer[] } {
  const w = new Writer(512);
  const setSize = w.reserveInt32();
  w.int32(correlationId);
  if (headerV1) w.uvarint(0);
  return {
    w,
    finish: () => {
      setSize(w.length - 4);
      return w.toChunks();
    },
  };
}

/** Encodes a whole request frame (client side; used by tests and tools). */
export function frameRequest(h: RequestHeader, flexible: boolean, body: (w: Writer) => void): Buffer {
  const w = new Writer(256);
  const setSize = w.reserveInt32();
  writeRequestHeader(w, h, flexible);
  body(w);
  setSize(w.length - 4);
  return w.toBuffer();
}
