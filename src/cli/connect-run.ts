/**
 * `kafka-eos run` with Kafka Connect configs (src/connect): translates the files, prints `--explain` or the info
 * line (keys accepted with no effect) and one warning per key that behaves differently, validates each connector's
 * run config as a run config file would be, and hands them to runSink.
 */
import { ConfigError } from '../consumer/options';
import { connectInput, explainLines, refusalError, translateConnect } from '../connect/connector';
import { validateRunConfig, type RunConfig } from './connector/config';

/** The run configs of Connect files, labelled by connector name. @throws ConfigError naming every refused key */
export function connectRunConfigs(files: string[], o: { worker?: string; bootstrapServers?: string },
  print: (line: string) => void = (l) => process.stderr.write(l + '\n')): { label: string; config: RunConfig }[] {
  const t = translateConnect(connectInput(files, o.worker, o.bootstrapServers));
  if (t.refused.length > 0) throw refusalError(t.refused);
  const ignored = t.lines.filter((l) => l.status === 'ignored').map((l) => l.key);
  if (ignored.length > 0) {
    print(`kafka-eos run: info: accepted with no effect here: ${[...new Set(ignored)].join(', ')} (--explain says why)`);
  }
  for (const l of t.lines.filter((x) => x.status === 'differs')) {
    print(`kafka-eos run: warning: ${l.file}: ${l.key} differs from Connect: ${l.note}`);
  }
  return t.connectors.map((c) => {
    try {
      return { label: c.name, config: validateRunConfig(c.config) };
    } catch (e) {
      if (e instanceof ConfigError) {
        throw new ConfigError(`${c.file} (connector ${c.name}) → ${e.field}`, e.message.replace(/^[^:]*: /, ''));
      }
      throw e;
    }
  });
}

const masked = (k: string, v: unknown) => (/password/i.test(k) && typeof v === 'string' ? '******' : v);

/** `--explain`: every key as understood, then each connector's run config. @returns the exit code (2 when a key is refused) */
export function explainConnect(files: string[], o: { worker?: string; bootstrapServers?: string }): number {
  const t = translateConnect(connectInput(files, o.worker, o.bootstrapServers));
  process.stdout.write(explainLines(t.lines));
  for (const c of t.connectors) {
    process.stdout.write(`\nconnector ${c.name} (${c.file}) as a kafka-eos run config:\n${JSON.stringify(c.config, masked, 2)}\n`);
  }
  if (t.refused.length > 0) {
    process.stderr.write(`kafka-eos run: [CONFIG_INVALID] ${refusalError(t.refused).message}\n`);
    return 2;
  }
  return 0;
}
