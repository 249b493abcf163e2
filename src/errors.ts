/**
 * Typed errors. Every error the SDK throws is a {@link KafkaEosError} with a stable `code`.
 * `retriable` is false unless a subclass says otherwise: callers retry only what is known to be safe.
 */
export class KafkaEosError extends Error {
  readonly code: string;
  readonly retriable: boolean;
  constructor(code: string, message: string, options: { retriable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retriable = options.retriable ?? false;
  }
}
