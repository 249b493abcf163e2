/**
 * `kafka-eos webhdfs`: the WebHDFS test server (src/testing/webhdfs-server) as a process of its own, serving
 * until SIGINT/SIGTERM (exit 0), so that a script or another language's test can point an HDFS client or
 * `kafka-eos run` with an hdfs sink at it. The NameNode answers on --port (Hadoop's 9870 by default) and
 * redirects CREATE, APPEND and OPEN to the DataNode on --datanode-port, as Hadoop does.
 */
import { mkdirSync } from 'node:fs';
import { KafkaEosError } from '../errors';
import { WebHdfsServer } from '../testing/webhdfs-server/server';

/** Options of {@link runWebHdfs}. */
export interface WebHdfsCommandOptions {
  /** NameNode port (0 = any free port). */
  port: number;
  /** DataNode port (0 = any free port). */
  dataNodePort: number;
  host: string;
  /** The directory holding the file system, kept at exit (created when absent); default a temporary one, removed at exit. */
  dir?: string;
  /** Refuse requests without `user.name` (401 SecurityException). */
  requireUser?: boolean;
}

/**
 * Starts the server and prints `kafka-eos webhdfs: NameNode http://host:port, DataNode http://host:port, root <dir>`.
 * @throws KafkaEosError MOCK_LISTEN_FAILED when a port cannot be bound; CONFIG_INVALID when --dir cannot be created.
 */
export async function runWebHdfs(o: WebHdfsCommandOptions): Promise<WebHdfsServer> {
  if (o.dir !== undefined) {
    try {
      mkdirSync(o.dir, { recursive: true });
    } catch (e) {
      throw new KafkaEosError('CONFIG_INVALID', `--dir ${o.dir}: cannot create it: ${(e as Error).message}`, { cause: e });
    }
  }
  let server: WebHdfsServer;
  try {
    server = await WebHdfsServer.start({
      port: o.port, dataNodePort: o.dataNodePort, host: o.host, requireUser: o.requireUser === true,
      ...(o.dir !== undefined ? { root: o.dir } : {}),
    });
  } catch (e) {
    throw new KafkaEosError('MOCK_LISTEN_FAILED', `cannot serve WebHDFS on ${o.host} (NameNode port ${o.port}, DataNode port `
      + `${o.dataNodePort}): ${(e as Error).message}`, { cause: e });
  }
  process.stdout.write(`kafka-eos webhdfs: NameNode ${server.url}, DataNode ${server.dataNodeUrl}, root ${server.root}\n`);
  const shutdown = () => { void server.stop().then(() => process.exit(0)); };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return server;
}
