/**
 * Runs once per jest run, after every test file. A consumer that fails with nothing listening to its 'error'
 * event sets `process.exitCode = 1` (src/consumer/logging.ts, docs/events.md), and tests fail consumers on purpose,
 * some without a listener. When jest runs the files in its own process (`--runInBand`, or one worker on a
 * two-core machine) that code outlives the tests and jest would exit 1 with every test passed. The run's exit
 * code is jest's to set: it is put back to what it was before the first file (jest sets its own on exit).
 */
module.exports = async () => {
  process.exitCode = globalThis.__KAFKA_EOS_EXIT_CODE_BEFORE__;
};
