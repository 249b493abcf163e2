/**
 * Runs once per jest run, before any test file. Says once (not once per file) why the PostgreSQL
 * tests are skipped; they show as skipped in the summary. With CI set they run and fail instead.
 */
module.exports = async () => {
  // global-teardown.js puts the exit code back to this value.
  globalThis.__KAFKA_EOS_EXIT_CODE_BEFORE__ = process.exitCode;
  if (!process.env.KAFKA_EOS_PG_URL && !process.env.CI) {
    process.stderr.write('\nKAFKA_EOS_PG_URL unset: the PostgreSQL tests are skipped '
      + '(reported as skipped; with CI set they fail instead).\n'
      + 'Run them with KAFKA_EOS_PG_URL=postgresql://user:password@127.0.0.1:5432/dbname npm test\n');
  }
};
