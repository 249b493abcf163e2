#!/usr/bin/env node
/**
 * Transcribes the facts of Apache Kafka's message definitions into the table that
 * test/protocol/schema-facts.test.ts checks our schemas against.
 *
 *   node scripts/kafka-message-facts.js <kafka>/clients/src/main/resources/common/message Name1 Name2 ... > facts.json
 *
 * Kept per message: api key, valid and flexible versions (request and response), whether the
 * latest version is unstable (Kafka does not serve it by default), and for every field its
 * name, type, versions, nullable versions, tag and tagged versions, with struct fields nested
 * (common structs resolved). Descriptions and defaults are not facts the test needs.
 */
'use strict';
const fs = require('fs');
const path = require('path');

/** Kafka's JSON files carry // comments; strip them outside strings. */
function parseKafkaJson(text) {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i];
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else out += c;
  }
  return JSON.parse(out);
}

function fieldFacts(fields, common) {
  return (fields ?? []).map((fld) => {
    const fact = { name: fld.name, type: fld.type, versions: fld.versions };
    for (const key of ['nullableVersions', 'tag', 'taggedVersions']) if (fld[key] !== undefined) fact[key] = fld[key];
    const base = fld.type.replace(/^\[\]/, '');
    const nested = fld.fields ?? common.get(base);
    if (nested) fact.fields = fieldFacts(nested, common);
    return fact;
  });
}

function messageFacts(dir, name) {
  const read = (side) => parseKafkaJson(fs.readFileSync(path.join(dir, `${name}${side}.json`), 'utf8'));
  const req = read('Request');
  const res = read('Response');
  const commons = (m) => new Map((m.commonStructs ?? []).map((s) => [s.name, s.fields]));
  const fact = { apiKey: req.apiKey, validVersions: req.validVersions, flexibleVersions: req.flexibleVersions };
  if (req.latestVersionUnstable) fact.latestVersionUnstable = true;
  fact.request = fieldFacts(req.fields, commons(req));
  fact.responseValidVersions = res.validVersions;
  fact.responseFlexibleVersions = res.flexibleVersions;
  fact.response = fieldFacts(res.fields, commons(res));
  return fact;
}

if (require.main === module) {
  const [dir, ...names] = process.argv.slice(2);
  if (!dir || names.length === 0) {
    process.stderr.write('usage: kafka-message-facts.js <message dir> <Name>...\n');
    process.exit(2);
  }
  const out = {};
  for (const n of names) out[n] = messageFacts(dir, n);
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

module.exports = { parseKafkaJson, messageFacts };
