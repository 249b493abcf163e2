/**
 * p-retry, loaded from the CommonJS copy that the build makes (scripts/vendor-p-retry.js writes
 * vendor/p-retry.cjs). p-retry is ESM-only: a CommonJS entry that required it would not load in a
 * user's jest suite (jest's CommonJS runtime can neither `require` an ES module nor `import()` one
 * without --experimental-vm-modules), so the package ships it transpiled, with its licence.
 * Types come from p-retry's own declarations.
 */
import type * as PRetry from 'p-retry' with { 'resolution-mode': 'import' };

// eslint-disable-next-line @typescript-eslint/no-require-imports
const vendored = require('../../vendor/p-retry.cjs') as typeof PRetry;

/** p-retry's default export: retries `fn` with exponential backoff (see p-retry's README). */
export const pRetry: typeof PRetry.default = vendored.default;
