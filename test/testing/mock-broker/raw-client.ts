/**
 * A minimal Kafka client for tests: one socket, requests encoded with our own schemas, responses
 * read frame by frame. Used to send exact versions, malformed frames, and to watch for closes.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import { frameRequest } from '../../../src/protocol/frame';
import { Reader } from '../../../src/protocol/primitives';
import { decodeResponse, encodeRequest, isFlexible, MessageSchema } from '../../../src/protocol/schema';
import { ApiVersions } from '../../../src/protocol/messages/data';

export class RawClient {
  private buf = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  closed = false;
  private correlation = 1;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  static connect(hostPort: string): Promise<RawClient> {
    const [host, port] = hostPort.split(':');
    return new Promise((resolve, reject) => {
      const s = net.connect({ host, port: Number(port) }, () => resolve(new RawClient(s)));
      s.once('error', reject);
    });
  }

  /** Connects over TLS (any certificate accepted). */
  static connectTls(hostPort: string): Promise<RawClient> {
    const [host, port] = hostPort.split(':');
    return new Promise((resolve, reject) => {
      const s = tls.connect({ host, port: Number(port), rejectUnauthorized: false }, () => resolve(new RawClient(s)));
      s.once('error', reject);
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Sends raw bytes as they are. */
  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The next whole response frame (without its size), or null if the connection closed first. */
  async nextFrame(timeoutMs = 20000): Promise<Buffer | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.buf.length >= 4) {
        const size = this.buf.readInt32BE(0);
        if (this.buf.length >= 4 + size) {
          const frame = this.buf.subarray(4, 4 + size);
          this.buf = this.buf.subarray(4 + size);
          return frame;
        }
      }
      if (this.closed) return null;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a response frame');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }

  /** Resolves once the broker has closed the connection (throws after the timeout). */
  async waitClosed(timeoutMs = 20000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('connection still open');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }

  /** Encodes a request frame at `version` with our schema. */
  frame(schema: MessageSchema, version: number, body: Record<string, unknown>, correlationId = this.correlation++): Buffer {
    // ApiVersions v3+ uses request header v2 like every flexible request.
    return frameRequest({ apiKey: schema.apiKey, apiVersion: version, correlationId, clientId: 'raw' }, isFlexible(schema, version),
      (w) => encodeRequest(schema, version, body, w));
  }

  /** Sends a request and decodes its response at the same version. */
  async request(schema: MessageSchema, version: number,
    body: Record<string, unknown>): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const correlationId = this.correlation++;
    this.write(this.frame(schema, version, body, correlationId));
    const frame = await this.nextFrame();
    if (!frame) throw new Error(`connection closed before the ${schema.name} v${version} response`);
    const r = new Reader(frame);
    const got = r.int32();
    if (got !== correlationId) throw new Error(`correlation id ${got}, expected ${correlationId}`);
    const headerV1 = schema !== ApiVersions && isFlexible(schema, version);
    if (headerV1) {
      const n = r.uvarint();
      for (let i = 0; i < n; i++) { r.uvarint(); r.raw(r.uvarint()); }
    }
    const res = decodeResponse(schema, version, r);
    if (r.remaining !== 0) throw new Error(`${r.remaining} bytes left after the ${schema.name} v${version} response`);
    return res;
  }

  close(): void {
    this.socket.destroy();
  }
}
