/**
 * `kafka-eos broker`: a standalone mock cluster that serves until interrupted. Brokers listen
 * on consecutive ports from --port and advertise --host, so a client seeded with one address
 * finds them all.
 */
import { MockCluster } from '../mock-broker';

export interface BrokerOptions {
  port: number;
  brokers: number;
  host: string;
  initialRebalanceDelayMs: number;
}

export async function runBroker(o: BrokerOptions): Promise<MockCluster> {
  const cluster = await MockCluster.start({
    brokers: o.brokers, port: o.port, host: o.host,
    group: { initialRebalanceDelayMs: o.initialRebalanceDelayMs },
  });
  process.stdout.write(`kafka-eos mock cluster: ${o.brokers} brokers at ${cluster.bootstrap.join(',')}\n`);
  const shutdown = () => {
    void cluster.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return cluster;
}
