// Converters: our Avro decode path against avsc decoding the same bytes in a loop, and Avro decode + the SQL sink
// (mapping.fromSchema) against the same rows as schemaless JSON (a declarative mapping); protobufjs and ajv rates.
// Variants interleaved, medians of per-round ratios (bench/lib/figures.js). Run `npm run build` first.
/* eslint-disable @typescript-eslint/no-require-imports */
const os = require('node:os');
const path = require('node:path');
const { mkdtempSync, rmSync } = require('node:fs');
const avro = require('avsc');
const { interleave, figure, helpAndExit } = require('./lib/figures.js');

const dist = path.join(__dirname, '..', 'dist');
const SCHEMA = { type: 'record', name: 'Flight', namespace: 'bench', fields: [
  { name: 'id', type: 'long' }, { name: 'origin', type: 'string' }, { name: 'destination', type: 'string' },
  { name: 'delay', type: 'int' }, { name: 'distance', type: 'double' }, { name: 'note', type: ['null', 'string'], default: null }] };
const valueOf = (i) => ({ id: i, origin: `AP${i % 97}`, destination: `AP${(i * 7) % 89}`, delay: (i % 300) - 30, distance: 100 + (i % 5000) / 3,
  note: i % 4 === 0 ? null : `n${i}` });

async function runConverters({ rows, rounds, log }) {
  const { SchemaRegistryServer } = require(path.join(dist, 'schema-registry.js'));
  const { createConverter } = require(path.join(dist, 'consumer', 'converters', 'converter.js'));
  const { SchemaRegistryClient } = require(path.join(dist, 'consumer', 'converters', 'registry-client.js'));
  const { convertBatch } = require(path.join(dist, 'consumer', 'converters', 'converting-strategy.js'));
  const { SqlSink } = require(path.join(dist, 'sinks', 'sql'));
  const registry = await SchemaRegistryServer.start();
  const figures = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kafka-eos-bench-conv-'));
  try {
    const client = new SchemaRegistryClient({ url: registry.url });
    const conv = createConverter({ type: 'avro' }, client);
    const framed = [];
    for (let i = 0; i < rows; i++) framed.push(await conv.serialize('flights', valueOf(i), { schema: JSON.stringify(SCHEMA) }));
    await conv.prepare('flights', framed[0], false);
    const type = avro.Type.forSchema(SCHEMA);

    // 1. Decode only: ours (header, cached schema, Connect data) vs avsc's decode of the same bytes after the header.
    // Single-threaded loops with no I/O, timed by this process's CPU time (user + system): on a shared machine wall
    // time also counts the time other processes held the CPU, which swung single rounds from 0.5× to 2.5×.
    let sink = 0;
    const cpuSeconds = (fn) => async () => { const c = process.cpuUsage(); fn(); const d = process.cpuUsage(c); return (d.user + d.system) / 1e6; };
    // Each run decodes every record 5 times (a run of a few ms would measure the timer); both warmed up first.
    const ours = cpuSeconds(() => { for (let k = 0; k < 5; k++) for (const b of framed) sink += conv.convert('flights', b, false).value.delay; });
    const base = cpuSeconds(() => { for (let k = 0; k < 5; k++) for (const b of framed) sink += type.decode(b, 5).value.delay; });
    const t = await interleave({ ours, avsc: base }, rounds * 4, log, { ours, avsc: base });
    figures.push(figure('Avro decode (records per CPU second)', 'records/CPU s', rows * 5, 'ours (converter.convert)', 'avsc type.decode', t.ours, t.avsc, 0.9));
    if (sink === 0.5) log('');

    // 2. Avro decode + SQL sink (fromSchema) vs the same rows as schemaless JSON (declarative mapping), SQLite.
    const json = Array.from({ length: rows }, (_, i) => Buffer.from(JSON.stringify(valueOf(i))));
    const batchSize = 2000;
    let run = 0;
    const write = async (avroPath) => {
      run += 1;
      const table = `t${run}`;
      const knex = require('knex')({ client: 'sqlite3', connection: { filename: path.join(dir, `${table}.db`) }, useNullAsDefault: true });
      const mapping = avroPath ? { fromSchema: true } : { columns: { id: { type: 'bigint' }, origin: { type: 'string' }, destination: { type: 'string' },
        delay: { type: 'integer' }, distance: { type: 'float' }, note: { type: 'string', nullable: true } } };
      const s = new SqlSink({ knex, table, mode: 'insert', autoCreate: true, mapping });
      await s.open('g', [{ topic: 'flights', partition: 0 }]);
      const started = process.hrtime.bigint();
      const cpu0 = process.cpuUsage();
      let expected = -1n;
      for (let from = 0; from < rows; from += batchSize) {
        const records = [];
        for (let i = from; i < Math.min(rows, from + batchSize); i++) {
          records.push({ topic: 'flights', partition: 0, offset: BigInt(i), key: null, value: avroPath ? framed[i] : json[i], timestamp: 0n, headers: {} });
        }
        const batch = { topic: 'flights', partition: 0, fetchOffset: BigInt(from), records, nextOffset: BigInt(from + records.length) };
        if (avroPath) batch.records = await convertBatch({ value: conv, police: async () => undefined }, batch);
        const res = await s.write('g', [{ topic: 'flights', partition: 0, expectedOffset: expected, nextOffset: batch.nextOffset, records: batch.records }]);
        if (res.status !== 'committed') throw new Error(`write ${res.status}`);
        expected = batch.nextOffset;
      }
      const secs = Number(process.hrtime.bigint() - started) / 1e9;
      const c = process.cpuUsage(cpu0);
      await s.close();
      await knex.destroy();
      return { s: secs, cpu: (c.user + c.system) / 1e6 };
    };
    const w = await interleave({ avro: () => write(true), json: () => write(false) }, rounds * 2, log, { avro: () => write(true), json: () => write(false) });
    figures.push(figure('Avro decode + SQL sink, SQLite (rows/s)', 'rows/s', rows, 'avro + fromSchema', 'schemaless JSON + declared columns',
      w.avro, w.json, 0.9));
    // The same runs by this process's CPU time (sqlite3's pool threads included): what each path costs, whatever the
    // machine's load and the disk's flushes did to the wall time.
    figures.push(figure('Avro decode + SQL sink, SQLite (rows per CPU second)', 'rows/CPU s', rows, 'avro + fromSchema',
      'schemaless JSON + declared columns', w.cpu.avro, w.cpu.json, 0.9));

    // 3. Library rates (no baseline of ours): protobufjs decode, ajv validation, against JSON.parse of the same data.
    const protobuf = require('protobufjs');
    const root = protobuf.parse('syntax = "proto3"; message Flight { int64 id = 1; string origin = 2; string destination = 3; int32 delay = 4; double distance = 5; string note = 6; }').root;
    const Flight = root.lookupType('Flight');
    const pb = Array.from({ length: rows }, (_, i) => Buffer.from(Flight.encode(Flight.fromObject({ ...valueOf(i), note: valueOf(i).note ?? '' })).finish()));
    const Ajv = require('ajv').default;
    const validate = new Ajv({ strict: false }).compile({ type: 'object', properties: { id: { type: 'integer' }, origin: { type: 'string' },
      destination: { type: 'string' }, delay: { type: 'integer' }, distance: { type: 'number' }, note: { type: ['null', 'string'] } },
    required: ['id', 'origin', 'destination', 'delay', 'distance'] });
    const parsed = json.map((b) => JSON.parse(b.toString()));
    const l = await interleave({
      protobufjs: async () => { const s = process.hrtime.bigint(); for (const b of pb) sink += Flight.decode(b).delay; return Number(process.hrtime.bigint() - s) / 1e9; },
      ajv: async () => { const s = process.hrtime.bigint(); for (const v of parsed) sink += validate(v) ? 1 : 0; return Number(process.hrtime.bigint() - s) / 1e9; },
      'JSON.parse': async () => { const s = process.hrtime.bigint(); for (const b of json) sink += JSON.parse(b.toString('utf8')).delay; return Number(process.hrtime.bigint() - s) / 1e9; },
    }, rounds * 2, log);
    figures.push(figure('protobufjs decode vs JSON.parse (records/s)', 'records/s', rows, 'protobufjs Type.decode', 'JSON.parse', l.protobufjs, l['JSON.parse']));
    figures.push(figure('ajv validate vs JSON.parse (records/s)', 'records/s', rows, 'ajv validate (parsed)', 'JSON.parse', l.ajv, l['JSON.parse']));
  } finally {
    await registry.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

module.exports = { runConverters };

if (require.main === module) {
  helpAndExit(__filename);
  const { table, arg } = require('./lib/figures.js');
  runConverters({ rows: Number(arg('--rows', 40000)), rounds: Number(arg('--rounds', 5)), log: (l) => console.error(l) })
    .then((f) => { console.log(table(f)); process.exit(0); }, (e) => { console.error(e); process.exit(1); });
}
