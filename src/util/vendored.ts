/**
 * The ESM-only packages the library uses, loaded from the CommonJS bundles that the build makes
 * (scripts/vendor.js writes vendor/*.cjs; the package ships them). A CommonJS entry that required an
 * ES module would not load in a user's jest suite (jest's CommonJS runtime can neither `require` an ES
 * module nor `import()` one without --experimental-vm-modules). Types come from the packages' own
 * declarations (devDependencies; nothing here is part of the public API).
 */
import type * as PRetry from 'p-retry' with { 'resolution-mode': 'import' };
import type * as HyparquetWriter from 'hyparquet-writer' with { 'resolution-mode': 'import' };
import type * as Hyparquet from 'hyparquet' with { 'resolution-mode': 'import' };

// eslint-disable-next-line @typescript-eslint/no-require-imports
const pRetryModule = require('../../vendor/p-retry.cjs') as typeof PRetry;

/** p-retry's default export: retries `fn` with exponential backoff (see p-retry's README). */
export const pRetry: typeof PRetry.default = pRetryModule.default;

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
