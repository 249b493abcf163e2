/**
 * The listeners of the mock brokers, after Kafka's `listeners`, `advertised.listeners` and
 * `listener.security.protocol.map` (KafkaConfig, SocketServer): every broker listens on each listener
 * of the cluster, each with a name and a security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL).
 * A client's Metadata, FindCoordinator and DescribeCluster answers name the brokers' endpoints of the
 * listener its connection came in on (Kafka's MetadataCache.getAliveBrokerNodes(listenerName)), so a
 * client bootstrapped on the SSL ports stays on the SSL ports.
 *
 * Ports: broker k (1-based) listens on each listener's `port + (k - 1) × portStep`; `portStep` defaults
 * to the number of listeners, so listeners whose first ports are consecutive interleave (KafkaJS's test
 * cluster: 9092 9093 9094 | 9095 9096 9097 | 9098 9099 9100), and a single listener takes consecutive
 * ports as before.
 */
import { KafkaEosError } from '../../errors';

/** Kafka's SecurityProtocol names (org.apache.kafka.common.security.auth.SecurityProtocol). */
export const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;
export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number];

/** One listener of `MockCluster.start({ listeners })`. */
export interface ListenerOptions {
  /** The listener name (Kafka's `listeners=NAME://...`); default: the security protocol. Names are unique. */
  name?: string;
  securityProtocol: SecurityProtocol;
  /** Broker 1's port for this listener (later brokers add `portStep` each); 0 or absent: any free port. */
  port?: number;
}

/**
 * A listener as a connection sees it. `sasl` is `required` on SASL_* listeners (authenticate before any
 * request but ApiVersions), `none` on PLAINTEXT/SSL (SaslHandshake answers ILLEGAL_SASL_STATE, as
 * KafkaApis does), and `optional` only on the single listener of the older `sasl`/`ssl` options without
 * users (any SASL/PLAIN user accepted, plaintext clients too; docs/mock-broker.md).
 */
export interface Listener {
  readonly name: string;
  readonly securityProtocol: SecurityProtocol;
  readonly tls: boolean;
  readonly sasl: 'required' | 'optional' | 'none';
}

/** Where a broker's listener is reached (Kafka's Endpoint). */
export interface Endpoint {
  readonly listener: string;
  readonly securityProtocol: SecurityProtocol;
  readonly host: string;
  readonly port: number;
}

export class ListenerConfigError extends KafkaEosError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
}

/** The listener a `ListenerOptions` describes. */
export function listenerOf(o: ListenerOptions): Listener {
  const name = o.name ?? o.securityProtocol;
  return {
    name, securityProtocol: o.securityProtocol,
    tls: o.securityProtocol === 'SSL' || o.securityProtocol === 'SASL_SSL',
    sasl: o.securityProtocol.startsWith('SASL_') ? 'required' : 'none',
  };
}

/**
 * Checks the listeners and plans every broker's ports: `ports[k][i]` is broker k+1's port for listener i
 * (0 = any free port). Throws ListenerConfigError for an unknown protocol, a repeated or malformed name, a
 * port out of range, or two listeners of the cluster planned on one port.
 */
export function planListenerPorts(listeners: readonly ListenerOptions[], brokers: number, portStep?: number): number[][] {
  if (listeners.length === 0) throw new ListenerConfigError('at least one listener is needed');
  const names = new Set<string>();
  for (const l of listeners) {
    if (!(SECURITY_PROTOCOLS as readonly string[]).includes(l.securityProtocol)) {
      throw new ListenerConfigError(`unknown security protocol ${l.securityProtocol} (one of ${SECURITY_PROTOCOLS.join(', ')})`);
    }
    const name = l.name ?? l.securityProtocol;
    if (!/^[A-Za-z0-9_]+$/.test(name)) throw new ListenerConfigError(`listener name ${JSON.stringify(name)} is not [A-Za-z0-9_]+`);
    if (names.has(name)) throw new ListenerConfigError(`listener ${name} is given twice`);
    names.add(name);
  }
  const step = portStep ?? listeners.length;
  if (!Number.isInteger(step) || step < 1) throw new ListenerConfigError(`portStep must be a positive integer, got ${portStep}`);
  const taken = new Map<number, string>();
  const ports: number[][] = [];
  for (let k = 0; k < brokers; k++) {
    ports.push(listeners.map((l) => {
      const base = l.port ?? 0;
      if (base === 0) return 0;
      const port = base + k * step;
      const what = `broker ${k + 1}'s ${l.name ?? l.securityProtocol} listener`;
      if (!Number.isInteger(base) || base < 1 || port > 65535) {
        throw new ListenerConfigError(`${what} would listen on port ${port}, not a TCP port`);
      }
      const other = taken.get(port);
      if (other) throw new ListenerConfigError(`${what} and ${other} would both listen on port ${port} (set portStep)`);
      taken.set(port, what);
      return port;
    }));
  }
  return ports;
}
