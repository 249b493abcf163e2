/**
 * The consumer's way to Kafka: KafkaJS 2.2.4 keeps the connections (TCP, SASL, TLS, reconnects), the
 * broker pool and the metadata (brokers, partition leaders, the coordinator lookup); the SDK writes and
 * reads its own requests with the pure protocol layer (src/protocol schemas) and sends them on KafkaJS's
 * broker connections. This is the one module that reaches into KafkaJS internals, pinned to 2.2.4:
 * - the Kafka client's private cluster factory (`Symbol(private:Kafka:createCluster)`), which `kafka.consumer()`
 *   and `kafka.admin()` use too, so the cluster has the user's brokers, SASL, TLS, socket factory and retries;
 * - a broker's private send (`Symbol(private:Broker:sendRequest)`) with a request object KafkaJS's
 *   `Connection.send` accepts (`{ request: { apiKey, apiVersion, apiName, encode }, response: { decode, parse } }`).
 *
 * Versions: each request goes out at the highest version both the schema's range (narrowed by the caller)
 * and the broker's ApiVersions allow; no common version is UNSUPPORTED_VERSION, naming both ranges. Flexible
 * versions (KIP-482) use request header v2: KafkaJS writes header v1 (api key, version, correlation id, client id),
 * and the body starts with the header's empty tagged-field section; the response header's tagged fields are
 * skipped before the body is read (ApiVersions keeps response header v0, as Kafka's does).
 */
import type { Kafka } from 'kafkajs';
import { KafkaProtocolError } from '../../protocol/kafka-errors';
import { ErrorCode } from '../../protocol/error-codes';
import { Reader, Writer } from '../../protocol/primitives';
import { decodeResponse, encodeRequest, EncodeInput, isFlexible, MessageSchema, RequestOf, ResponseOf } from '../../protocol/schema';
import { skipTaggedFields } from '../../protocol/frame';
import { UnsupportedKafkaJsError } from '../errors';

/* eslint-disable @typescript-eslint/no-require-imports */
type Loose = Record<string | symbol, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The KafkaJS version whose internals the transport uses; another version is refused (UnsupportedKafkaJsError). */
export const SUPPORTED_KAFKAJS_VERSION = '2.2.4';

const API_VERSIONS_KEY = 18;

/** A broker connection of KafkaJS's pool (opaque outside this module). */
export interface BrokerRef {
  readonly nodeId: number;
}

/** Options of one request. */
export interface SendOptions {
  /** Lowest and highest version the caller can use (default: the schema's range). */
  minVersion?: number;
  maxVersion?: number;
  /** How long KafkaJS waits for the answer, ms (default: the client's requestTimeout, 30000). */
  timeoutMs?: number;
}

interface Internals { createCluster: symbol; sendRequest: symbol }
let internals: Internals | null = null;

function load(kafka: Kafka): Internals {
  if (internals) return internals;
  const version = (require('kafkajs/package.json') as { version: string }).version;
  if (version !== SUPPORTED_KAFKAJS_VERSION) {
    throw new UnsupportedKafkaJsError(`kafka-eos's consumer is written for kafkajs ${SUPPORTED_KAFKAJS_VERSION}, found ${version}`);
  }
  const Broker = require('kafkajs/src/broker') as { prototype: Loose };
  const sendRequest = Object.getOwnPropertySymbols(Broker.prototype).find((s) => s.description === 'private:Broker:sendRequest');
  const createCluster = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  const missing = [!sendRequest && 'Broker#[sendRequest]', !createCluster && 'Kafka#[createCluster]'].filter(Boolean);
  if (missing.length > 0) throw new UnsupportedKafkaJsError(`kafkajs internals not found: ${missing.join(', ')}`);
  internals = { createCluster: createCluster!, sendRequest: sendRequest! };
  return internals;
}

/** The highest version in both ranges, or null. */
export function commonVersion(
  ours: { min: number; max: number }, broker: { minVersion: number; maxVersion: number } | undefined,
): number | null {
  if (!broker) return null;
  const v = Math.min(ours.max, broker.maxVersion);
  return v >= Math.max(ours.min, broker.minVersion) ? v : null;
}

/** Connections and metadata from KafkaJS; requests and responses from src/protocol (see the module comment). */
export class KafkaTransport {
  private readonly cluster: Loose;
  private readonly send: symbol;
  private readonly coordinators = new Map<string, Promise<BrokerRef>>();

  constructor(kafka: Kafka) {
    const i = load(kafka);
    this.send = i.sendRequest;
    // What kafka.consumer() asks for: no topic auto-creation, read_committed (KafkaJS's default isolation).
    this.cluster = (kafka as unknown as Loose)[i.createCluster]({
      metadataMaxAge: 300000, allowAutoTopicCreation: false, isolationLevel: 1,
    });
  }

  /** Connects to a seed broker and reads the cluster's metadata. Throws KafkaJS's connection errors. */
  async connect(): Promise<void> {
    await this.cluster.connect();
  }

  /** Closes every connection; never rejects. */
  async disconnect(): Promise<void> {
    this.coordinators.clear();
    await Promise.resolve(this.cluster.disconnect()).catch(() => undefined);
  }

  /** Adds `topics` to the topics KafkaJS keeps metadata of, and refreshes it. */
  async watchTopics(topics: readonly string[]): Promise<void> {
    if (topics.length > 0) await this.cluster.addMultipleTargetTopics([...topics]);
  }

  /** Reads the metadata of the watched topics again (leaders moved, brokers joined or left). */
  async refreshMetadata(): Promise<void> {
    await this.cluster.refreshMetadata();
  }

  /** Every topic of the cluster, by name (a Metadata request for all topics). */
  async allTopics(): Promise<string[]> {
    const metadata = (await this.cluster.metadata({ topics: [] })) as { topicMetadata: { topic: string }[] };
    return metadata.topicMetadata.map((t) => t.topic);
  }

  /** Partitions of a watched topic with their leaders ([] for a topic unknown to the metadata). */
  partitionsOf(topic: string): { partition: number; leader: number }[] {
    try {
      const ps = this.cluster.findTopicPartitionMetadata(topic) as { partitionId: number; leader: number }[];
      return ps.map((p) => ({ partition: p.partitionId, leader: p.leader }));
    } catch {
      return [];
    }
  }

  /**
   * What KafkaJS gives a `PartitionAssigner` factory (`{ cluster, groupId, logger }`), for the user's own KafkaJS
   * assigners: the cluster is this transport's, with the metadata of the topics the group subscribes to.
   */
  kafkaJsConfig(groupId: string): { cluster: unknown; groupId: string; logger: unknown } {
    return { cluster: this.cluster, groupId, logger: this.cluster.rootLogger.namespace('Assigner') };
  }

  /** The broker `nodeId`, connected. Throws KafkaJSBrokerNotFound (stale metadata) or connection errors. */
  async broker(nodeId: number): Promise<BrokerRef> {
    return (await this.cluster.findBroker({ nodeId })) as BrokerRef;
  }

  /** Any connected broker (for requests any broker answers, e.g. Metadata). */
  async anyBroker(): Promise<BrokerRef> {
    await this.cluster.refreshMetadataIfNecessary();
    return (await this.cluster.brokerPool.withBroker(async ({ broker }: { broker: BrokerRef }) => broker)) as BrokerRef;
  }

  /** The group's coordinator (FindCoordinator through KafkaJS, cached until {@link forgetCoordinator}). */
  coordinator(groupId: string): Promise<BrokerRef> {
    let found = this.coordinators.get(groupId);
    if (!found) {
      found = (async () => {
        await Promise.resolve(this.cluster.refreshMetadataIfNecessary()).catch(() => undefined);
        return (await this.cluster.findGroupCoordinator({ groupId })) as BrokerRef;
      })();
      this.coordinators.set(groupId, found);
      found.catch(() => { if (this.coordinators.get(groupId) === found) this.coordinators.delete(groupId); });
    }
    return found;
  }

  /** The coordinator moved or its connection failed: the next {@link coordinator} call looks it up again. */
  forgetCoordinator(groupId: string): void {
    this.coordinators.delete(groupId);
  }

  /**
   * The transaction coordinator of `transactionalId` (FindCoordinator keyType 1, KIP-98), cached until
   * {@link forgetTxnCoordinator}. Throws KafkaJS's coordinator and connection errors.
   */
  txnCoordinator(transactionalId: string): Promise<BrokerRef> {
    const cacheKey = `txn\0${transactionalId}`;
    let found = this.coordinators.get(cacheKey);
    if (!found) {
      found = (async () => {
        await Promise.resolve(this.cluster.refreshMetadataIfNecessary()).catch(() => undefined);
        return (await this.cluster.findGroupCoordinator({ groupId: transactionalId, coordinatorType: 1 })) as BrokerRef;
      })();
      this.coordinators.set(cacheKey, found);
      found.catch(() => { if (this.coordinators.get(cacheKey) === found) this.coordinators.delete(cacheKey); });
    }
    return found;
  }

  /** The transaction coordinator moved (NOT_COORDINATOR, a dropped connection): look it up again next time. */
  forgetTxnCoordinator(transactionalId: string): void {
    this.coordinators.delete(`txn\0${transactionalId}`);
  }

  /**
   * KafkaJS's partition metadata of a watched topic in the shape its partitioners take
   * (`{ partitionId, leader }[]`; [] for a topic unknown to the metadata).
   */
  partitionMetadata(topic: string): { partitionId: number; leader: number }[] {
    try {
      return this.cluster.findTopicPartitionMetadata(topic) as { partitionId: number; leader: number }[];
    } catch {
      return [];
    }
  }

  /** The version `broker` and the caller agree on for `schema`, or throws UNSUPPORTED_VERSION naming both ranges. */
  versionFor(broker: BrokerRef, schema: MessageSchema, options: SendOptions = {}): number {
    const ours = {
      min: Math.max(schema.versions.min, options.minVersion ?? 0), max: Math.min(schema.versions.max, options.maxVersion ?? 1 << 15),
    };
    const theirs = (broker as unknown as Loose).versions?.[schema.apiKey] as { minVersion: number; maxVersion: number } | undefined;
    const version = commonVersion(ours, theirs);
    if (version === null) {
      const range = theirs ? `v${theirs.minVersion}-v${theirs.maxVersion}` : 'none';
      throw KafkaProtocolError.answered(`${schema.name} to broker ${broker.nodeId}`, ErrorCode.UNSUPPORTED_VERSION,
        `the broker serves ${range}, kafka-eos needs v${ours.min}-v${ours.max}`);
    }
    return version;
  }

  /**
   * Sends one request to `broker` and returns the decoded response and the version used. Throws
   * KafkaProtocolError (UNSUPPORTED_VERSION) when no version fits, KafkaJS's connection and timeout errors,
   * MalformedFrameError for a response that does not decode. Error codes inside the response are the caller's.
   */
  async request<S extends MessageSchema>(
    broker: BrokerRef, schema: S, body: EncodeInput<RequestOf<S>>, options: SendOptions = {},
  ): Promise<{ version: number; response: ResponseOf<S> }> {
    const version = this.versionFor(broker, schema, options);
    const flexible = isFlexible(schema, version);
    const w = new Writer(256);
    if (flexible) w.uvarint(0); // request header v2: the header's (empty) tagged fields
    encodeRequest(schema, version, body as never, w);
    const payload = w.toBuffer();
    const response = await (broker as unknown as Loose)[this.send]({
      request: {
        apiKey: schema.apiKey, apiVersion: version, apiName: schema.name,
        // KafkaJS's Connection writes `encoder.buffer` after its header (it checks `buf` is a Buffer).
        encode: async () => ({ buf: payload, buffer: payload }),
      },
      response: {
        decode: async (raw: Buffer) => {
          const r = new Reader(raw);
          if (flexible && schema.apiKey !== API_VERSIONS_KEY) skipTaggedFields(r); // response header v1
          return decodeResponse(schema, version, r);
        },
        // KafkaJS logs the parsed response at DEBUG; a logCreator that JSON-serializes it must not meet bigints.
        parse: async (decoded: unknown) => ({ decoded, toJSON: () => `[${schema.name} v${version} response]` }),
      },
      requestTimeout: options.timeoutMs,
    }) as { decoded: ResponseOf<S> };
    return { version, response: response.decoded };
  }
}
