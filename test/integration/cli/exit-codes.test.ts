/**
 * Exit codes of the CLI's usage errors (src/cli/index.ts): a bad option value, a missing required
 * option or an unknown command exits 2, like a bad config; --help and --version exit 0.
 * (The compiled CLI is used: `npm test` builds first.)
 */
import { requireBuiltCli, runCli } from './helpers';

jest.setTimeout(60000);
beforeAll(requireBuiltCli);

test.each([
  [['demo', '--rows', '-5'], /--rows must be an integer from 1 to 200000/],
  [['run', 'connector.yaml', '--metrics-port', 'abc'], /--metrics-port must be an integer from 0 to 65535/],
  [['offsets', 'describe', '--group', 'g'], /required option '--brokers/],
  [['no-such-command'], /unknown command 'no-such-command'/],
])('kafka-eos %j: a usage error exits 2, naming the problem', async (args, message) => {
  const { code, out } = await runCli(args, 30000);
  expect(out).toMatch(message);
  expect(code).toBe(2);
});

test.each([[['--help']], [['run', '--help']], [['--version']]])('kafka-eos %j exits 0', async (args) => {
  const { code, out } = await runCli(args, 30000);
  expect(out.length).toBeGreaterThan(0);
  expect(code).toBe(0);
  // README's exit codes of run: 2 also for brokers it cannot reach at start.
  if (args[0] === 'run') expect(out).toMatch(/2 invalid config or arguments, or the database .* or brokers \(KAFKA_UNAVAILABLE/);
});
