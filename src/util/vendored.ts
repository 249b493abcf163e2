/**
 * The ESM-only packages the library uses, loaded from the CommonJS bundles that the build makes
 * (scripts/vendor.js writes vendor/*.cjs; the package ships them). A CommonJS entry that required an
 * ES module would not load in a user's jest suite (jest's CommonJS runtime can neither `require` an ES
 * module nor `import()` one without --experimental-vm-modules). Types come from the packages' own
 * declarations (devDependencies; nothing here is part of the public API).
 */
import { types } from 'node:util';
import type * as PRetry from 'p-retry' with { 'resolution-mode': 'import' };
import type * as HyparquetWriter from 'hyparquet-writer' with { 'resolution-mode': 'import' };
import type * as Hyparquet from 'hyparquet' with { 'resolution-mode': 'import' };

// eslint-disable-next-line @typescript-eslint/no-require-imports
const pRetryModule = require('../../vendor/p-retry.cjs') as typeof PRetry;

/**
 * An error of another realm (`instanceof Error` false, yet a native error): Node's own socket errors
 * (ECONNRESET, ECONNREFUSED) seen from code that runs in a jest sandbox, where `Error` is the sandbox's.
 * p-retry refuses anything that is not `instanceof Error` ("Non-error was thrown"), so such an error is
 * copied into one of this realm: same name, message, stack and own properties (`code`, `errno`, ...), the
 * original as its `cause`. Errors of this realm are returned as they are; in a plain Node process every
 * error is.
 */
export function ofThisRealm(e: unknown): unknown {
  if (e instanceof Error || !types.isNativeError(e)) return e;
  const local = Object.assign(new Error(e.message, { cause: e }), e);
  local.name = e.name;
  local.stack = e.stack;
  return local;
}

/**
 * p-retry's default export: retries `fn` with exponential backoff (see p-retry's README). What `fn`
 * throws goes through {@link ofThisRealm} first, so a socket error inside a user's jest suite is
 * classified (and retried) as it would be outside one.
 */
export const pRetry: typeof PRetry.default = ((input, options) => pRetryModule.default(async (attempt: number) => {
  try {
    return await input(attempt);
  } catch (e) {
    throw ofThisRealm(e);
  }
}, options)) as typeof PRetry.default;

let hyparquet: typeof Hyparquet | undefined;
/** hyparquet (Parquet decoding), loaded on first use: only reading the HDFS sink's Parquet files back needs it. */
export function loadHyparquet(): typeof Hyparquet {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  hyparquet ??= require('../../vendor/hyparquet.cjs') as typeof Hyparquet;
  return hyparquet;
}

let hyparquetWriter: typeof HyparquetWriter | undefined;
/** hyparquet-writer (Parquet encoding), loaded on first use: only the HDFS sink's Parquet format needs it. */
export function loadHyparquetWriter(): typeof HyparquetWriter {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  hyparquetWriter ??= require('../../vendor/hyparquet-writer.cjs') as typeof HyparquetWriter;
  return hyparquetWriter;
}
