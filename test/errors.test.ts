/** The SDK's one error table (src/errors.ts): rows, retriability, every public throw typed, the one cause walker. */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { causesOf, ERROR_CODES, KafkaEosError, kafkaEosErrorOf } from '../src/errors';
import { KAFKA_ERRORS, KafkaProtocolError } from '../src/protocol/kafka-errors';
import { sourceFiles, SRC } from './helpers/imports';

test('causesOf walks cause and KafkaJS\'s originalError, at most 8 deep, never the same error twice', () => {
  const inner = new KafkaEosError('CONFIG_INVALID', 'inner');
  const wrapped = Object.assign(new Error('kafkajs'), { originalError: new Error('middle', { cause: inner }) });
  expect(causesOf(wrapped).map((e) => (e as Error).message)).toEqual(['kafkajs', 'middle', 'inner']);
  expect(kafkaEosErrorOf(wrapped)).toBe(inner);
  const loop = new Error('loop') as Error & { cause?: unknown };
  loop.cause = loop;
  expect(causesOf(loop)).toHaveLength(1);
  let deep: unknown = new Error('0');
  for (let i = 1; i < 20; i++) deep = new Error(String(i), { cause: deep });
  expect(causesOf(deep)).toHaveLength(8);
});

describe('the SDK error table (src/errors.ts ERROR_CODES)', () => {
  const files = sourceFiles(SRC).map((f) => ({ file: relative(SRC, f), text: readFileSync(f, 'utf8') }));
  /** Codes given to a KafkaEosError (directly, through a subclass's super(), or as a state machine's errorCode). */
  const used = new Map<string, string>();
  for (const { file, text } of files) {
    const codeArgument =
      /(?:new (?:KafkaEosError|SinkWriteError|FaultError|MockClusterError)|super|errorCode:)\(?\s*'([A-Z][A-Z0-9_]{2,})'/g;
    for (const m of text.matchAll(codeArgument)) used.set(m[1]!, file);
  }

  test('every code has its meaning, its retriability and what to do; KafkaEosError takes retriable from the table', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect({ code, meaningful: info.meaning.length > 10 && info.action.length > 3 }).toEqual({ code, meaningful: true });
      expect(['yes', 'no', 'per-error']).toContain(info.retriable);
    }
    expect(new KafkaEosError('SINK_WRITE_REFUSED', 'x').retriable).toBe(true);
    expect(new KafkaEosError('CONFIG_INVALID', 'x', { retriable: true }).retriable).toBe(false);
    expect(new KafkaEosError('HDFS_REQUEST_FAILED', 'x', { retriable: true }).retriable).toBe(true);
    expect(new KafkaEosError('HDFS_REQUEST_FAILED', 'x').retriable).toBe(false);
  });

  test('every code thrown in src/ has a row, and every row is used somewhere', () => {
    const kafkaNames = new Set(Object.keys(KAFKA_ERRORS));
    const sdk = [...used].filter(([code]) => !kafkaNames.has(code) || code in ERROR_CODES);
    expect(sdk.filter(([code]) => !(code in ERROR_CODES)).map(([c, f]) => `${c} (${f})`)).toEqual([]);
    const elsewhere = files.filter((f) => f.file !== 'errors.ts').map((f) => f.text).join('\n');
    expect(Object.keys(ERROR_CODES).filter((c) => !elsewhere.includes(`'${c}'`))).toEqual([]);
  });

  test('no public throw is free-form: no throw new Error/RangeError/TypeError, no error class on plain Error', () => {
    const freeForm = files.flatMap(({ file, text }) =>
      [...text.matchAll(/throw new (Error|RangeError|TypeError|SyntaxError)\(/g)].map((m) => `${file}: ${m[0]}`));
    expect(freeForm).toEqual([]);
    const plainClasses = files.flatMap(({ file, text }) =>
      [...text.matchAll(/class (\w+) extends (Error|RangeError|TypeError)\b/g)]
        .filter((m) => m[1] !== 'KafkaEosError').map((m) => `${file}: ${m[1]}`));
    expect(plainClasses).toEqual([]);
  });

  test('the mock refuses what Kafka refuses as a view of Kafka\'s table (KafkaProtocolError)', () => {
    const e = new KafkaProtocolError('TOPIC_ALREADY_EXISTS', "topic 't' already exists");
    expect(e).toMatchObject({ code: 'KAFKA_PROTOCOL_ERROR', kafkaError: 'TOPIC_ALREADY_EXISTS', errorCode: 36, retriable: false });
    expect(new KafkaProtocolError('NOT_LEADER_OR_FOLLOWER', 'x').retriable).toBe(true);
  });
});
