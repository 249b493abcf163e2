/**
 * PostgreSQL: a whole exactly-once write as one simple-query message, `BEGIN; <seeds and CAS UPDATEs>; COPY t (...)
 * FROM STDIN; COMMIT`, with the COPY's rows streamed right behind it as they are encoded (pipelined): the server runs
 * BEGIN and the CAS and takes in rows while the next chunk is being encoded here. One round trip per write instead of
 * three, and the encoding of the rows overlaps the server's work on them.
 *
 * What makes it safe is when CopyDone is sent (PostgreSQL's frontend/backend protocol, "COPY Operations" and "Multiple
 * Statements in a Simple Query"): the COPY ends, and the COMMIT behind it runs, only on a CopyDone, and CopyDone is sent
 * only once every CAS UPDATE has reported exactly one row changed. A CAS that changed no row (a zombie writer, a stale
 * position), a chunk that cannot be encoded (a mapping failure) or a local error (pg's query_timeout) ends the COPY with
 * CopyFail instead: the server answers with an error and skips the rest of the message (the COMMIT); the transaction
 * is left open and failed, and the caller rolls it back. An error of a statement before the COPY skips the rest of the
 * message too; the copy messages already sent then reach the server outside copy mode, where it drops them, as it
 * drops those that follow a failed COPY.
 *
 * The writer is a pg "submittable" (what pg-copy-streams is): pg's Client hands it the connection when the query's turn
 * comes and routes the server's messages to its handle* methods; after an ErrorResponse pg routes nothing more to it.
 */
import type { ClientBase } from 'pg';

/** The rows of a pipelined write, encoded one chunk (whole COPY text lines) at a time, in order, on demand. */
export interface CopyChunks {
  /** Chunks in the write. */
  readonly chunks: number;
  /**
   * Chunk `k` (0-based) as COPY text-format lines (sent as UTF-8). May throw (a record that cannot be mapped): the
   * write then ends with CopyFail and its outcome carries that error at `client`. Called again from chunk 0 when a
   * write is retried.
   */
  chunk(k: number): string;
}

/** The COPY of a write sent as one message, and any statements between it and COMMIT. */
export interface PipelinedCopy {
  /** `COPY table (columns) FROM STDIN` (text format). */
  readonly copySql: string;
  readonly rows: CopyChunks;
  /**
   * Statements run after the COPY, before COMMIT (the staged upsert's `INSERT ... SELECT ... ON CONFLICT` from the
   * table the COPY filled), and how many: their errors are the rows' (stage `copy`), not the COMMIT's.
   */
  readonly after?: { readonly sql: string; readonly statements: number };
}

/** Where the error that ended a pipelined write arose. */
export type PipelinedStage = 'statements' | 'copy' | 'commit' | 'client';

/** How a pipelined write ended (never a rejection: the caller decides what each outcome means). */
export interface PipelinedOutcome {
  /** CAS UPDATEs that changed exactly one row (every one of them must, for the write to be committed). */
  casMatched: number;
  /** The CAS UPDATEs that reported (fewer than sent when an earlier statement failed). */
  casReported: number;
  /**
   * The error that ended the write, and its stage: `statements` (BEGIN, a seed or a CAS UPDATE failed), `copy` (the
   * server refused a row, in the COPY or a statement after it, or answered the CopyFail this writer sent), `commit`
   * (the COMMIT failed: a deferred constraint, a serialization failure), `client` (encoding a chunk threw: the
   * encoder's own error). A lost connection is reported at the stage the write had reached.
   */
  error?: { cause: unknown; stage: PipelinedStage };
  /** The COMMIT ran and answered COMMIT (not ROLLBACK). */
  committed: boolean;
}

const COPY_DATA = 0x64; // 'd'

/** pg's Connection, the part a submittable uses. */
interface PgConnection {
  stream: NodeJS.WritableStream & { once(ev: 'drain', fn: () => void): unknown; writable: boolean };
  query(text: string): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
}

/** The submittable (see the module comment): one per write attempt. */
class PipelinedWrite {
  private conn: PgConnection | undefined;
  private next = 0;
  private allSent = false;
  /** CopyDone or CopyFail sent. */
  private ended = false;
  private inCopy = false;
  private copyReported = false;
  /** Statements after the COPY that have reported. */
  private afterReported = 0;
  private done = false;
  private clientError: { cause: unknown } | undefined;
  private readonly outcome: PipelinedOutcome = { casMatched: 0, casReported: 0, committed: false };

  constructor(
    private readonly text: string, private readonly casCount: number, private readonly rows: CopyChunks,
    private readonly afterCount: number, public callback: (err: Error | null, outcome?: PipelinedOutcome) => void,
  ) {}

  /** pg: the query's turn has come. */
  submit(connection: PgConnection): void {
    this.conn = connection;
    connection.query(this.text);
    this.pump();
  }

  /** Encodes and sends chunks until all are sent, the socket asks to wait (drain), or the write has ended. */
  private pump(): void {
    const conn = this.conn!;
    const stream = conn.stream;
    while (!this.done && !this.ended && this.next < this.rows.chunks) {
      let text: string;
      try {
        text = this.rows.chunk(this.next++);
      } catch (err) {
        this.clientError = { cause: err };
        // The server logs this text: never the error's message, which may quote a record's value.
        this.end('kafka-eos: a record could not be encoded (the client reports which)');
        return;
      }
      if (text.length === 0) continue;
      // One CopyData message in one buffer: 'd', int32 length (itself included), the UTF-8 bytes.
      const bytes = Buffer.byteLength(text, 'utf8');
      const message = Buffer.allocUnsafe(5 + bytes);
      message[0] = COPY_DATA;
      message.writeUInt32BE(bytes + 4, 1);
      message.write(text, 5, bytes, 'utf8');
      const more = stream.write(message);
      if (!more) {
        // A socket that is gone never drains: its error reaches handleError.
        if (stream.writable) stream.once('drain', () => this.pump());
        return;
      }
    }
    if (this.next >= this.rows.chunks) {
      this.allSent = true;
      this.finish();
    }
  }

  /** Ends the COPY once every row is sent and every CAS has reported one row changed (see the module comment). */
  private finish(): void {
    if (this.done || this.ended || !this.allSent || this.outcome.casReported < this.casCount) return;
    if (this.outcome.casMatched === this.casCount) {
      this.ended = true;
      this.conn!.endCopyFrom();
    }
  }

  /** Ends the COPY with CopyFail (the server then refuses the COPY and skips the COMMIT). */
  private end(why: string): void {
    if (this.ended) return;
    this.ended = true;
    this.conn?.sendCopyFail(why);
  }

  /** pg: a statement of the message completed; `text` is its command tag (`BEGIN`, `UPDATE 1`, `COPY 2000`, ...). */
  handleCommandComplete(msg: { text: string }): void {
    const tag = msg.text;
    if (this.copyReported) {
      // After the COPY: its `after` statements, then COMMIT (answered ROLLBACK when the transaction had failed).
      if (this.afterReported < this.afterCount) this.afterReported++;
      else this.outcome.committed = tag === 'COMMIT';
    } else if (tag.startsWith('COPY ')) {
      this.copyReported = true;
    } else if (tag.startsWith('UPDATE ')) {
      this.outcome.casReported++;
      if (tag === 'UPDATE 1') this.outcome.casMatched++;
      else this.end('kafka-eos: the compare-and-set of the stored position changed no row (fenced)');
      this.finish();
    }
  }

  /** pg: the server is reading the COPY's rows. */
  handleCopyInResponse(): void {
    this.inCopy = true;
  }

  /** pg: an ErrorResponse, a lost connection, or pg's own query_timeout. Nothing more reaches this write. */
  handleError(err: unknown): void {
    if (this.done) return;
    // A local error (a timeout) while the server is still in the COPY: leave copy mode before the next query.
    this.end('kafka-eos: the client gave up on this write');
    this.done = true;
    this.outcome.error = this.clientError ? { cause: this.clientError.cause, stage: 'client' } : { cause: err, stage: this.stage() };
    this.callback(null, this.outcome);
  }

  /** pg: the whole message has run (no error). */
  handleReadyForQuery(): void {
    if (this.done) return;
    this.done = true;
    this.callback(null, this.outcome);
  }

  /** The outcome for an error pg hands to the callback itself (query_timeout). */
  failedWith(err: unknown): PipelinedOutcome {
    this.handleError(err);
    return this.outcome;
  }

  private stage(): PipelinedStage {
    if (this.copyReported && this.afterReported >= this.afterCount) return 'commit';
    return this.inCopy ? 'copy' : 'statements';
  }

  // Messages a write never asks for: ignored.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

/**
 * Runs one write as a single message on `client` (inside no transaction: the message opens and commits its own):
 * `BEGIN; ${statements}; ${copy.copySql}; ${copy.after.sql}; COMMIT`, the rows streamed behind it. `statements` holds `casCount` CAS
 * UPDATEs (and any seeds before them), as SQL text with literals. @returns how it ended (see {@link PipelinedOutcome});
 * never rejects. After an error the transaction may be open and failed: the caller sends ROLLBACK.
 */
export function runPipelinedWrite(
  client: ClientBase, statements: string, casCount: number, copy: PipelinedCopy,
): Promise<PipelinedOutcome> {
  const after = copy.after ? `${copy.after.sql}; ` : '';
  return new Promise((resolve) => {
    const write: PipelinedWrite = new PipelinedWrite(`BEGIN; ${statements}; ${copy.copySql}; ${after}COMMIT`, casCount, copy.rows,
      copy.after?.statements ?? 0, (err, outcome) => resolve(err ? write.failedWith(err) : outcome!));
    (client as unknown as { query(q: PipelinedWrite): void }).query(write);
  });
}
