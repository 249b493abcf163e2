/**
 * `key.converter` / `value.converter` and their prefixed settings (`value.converter.schemas.enable`,
 * `value.converter.schema.registry.url`, ...), on the worker or overridden on a connector (Connect's
 * `WorkerConnector` takes the connector's converter, with its own prefixed settings, over the worker's), mapped onto
 * the converters of docs/converters.md and the run config's `schemaRegistry`.
 */
import {
  BOOLEAN, CLASS, differs as D, Explanation, ignored as I, INT, LIST, parseBoolean, parseList, supported as S, type KeyDoc,
} from './keys';

/** The converter of one side, in the run config's shape (`keyConverter` / `valueConverter`). */
export interface ConverterSettings {
  type: 'string' | 'bytes' | 'json' | 'connect-json' | 'avro' | 'protobuf' | 'json-schema';
  schemasEnable?: boolean;
  subjectNameStrategy?: 'TopicName' | 'RecordName' | 'TopicRecordName';
  useLatestVersion?: boolean;
  validate?: boolean;
}

/** The run config's `schemaRegistry`. */
export interface RegistrySettings { url: string; basicAuth?: { username: string; password: string } }

/** Kafka Connect converter classes → our converter (JsonConverter: by schemas.enable). */
export const CONVERTER_CLASSES: Readonly<Record<string, ConverterSettings['type']>> = {
  'org.apache.kafka.connect.storage.StringConverter': 'string',
  'org.apache.kafka.connect.converters.ByteArrayConverter': 'bytes',
  'org.apache.kafka.connect.json.JsonConverter': 'connect-json',
  'io.confluent.connect.avro.AvroConverter': 'avro',
  'io.confluent.connect.protobuf.ProtobufConverter': 'protobuf',
  'io.confluent.connect.json.JsonSchemaConverter': 'json-schema',
};

const STRATEGIES: Readonly<Record<string, ConverterSettings['subjectNameStrategy']>> = {
  'io.confluent.kafka.serializers.subject.TopicNameStrategy': 'TopicName',
  'io.confluent.kafka.serializers.subject.RecordNameStrategy': 'RecordName',
  'io.confluent.kafka.serializers.subject.TopicRecordNameStrategy': 'TopicRecordName',
};

/** The settings after `key.converter.` / `value.converter.`. */
export const CONVERTER_KEYS: Readonly<Record<string, KeyDoc>> = {
  'schemas.enable': S('JsonConverter: true (default) reads the {schema, payload} envelope (connect-json), false schemaless JSON (json)',
    BOOLEAN),
  'schemas.cache.size': I('schemas are cached by id for the process\'s life', INT()),
  'schema.registry.url': S('schemaRegistry.url; with several URLs the first is used (a warning)', LIST),
  'basic.auth.credentials.source': S('USER_INFO (with basic.auth.user.info) or URL (user:password@ in the URL); SASL_INHERIT refused'),
  'basic.auth.user.info': S('user:password → schemaRegistry.basicAuth'),
  'schema.registry.basic.auth.user.info': S('user:password → schemaRegistry.basicAuth'),
  'key.subject.name.strategy': S('TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy → subjectNameStrategy', CLASS),
  'value.subject.name.strategy': S('TopicNameStrategy, RecordNameStrategy, TopicRecordNameStrategy → subjectNameStrategy', CLASS),
  'use.latest.version': S('AvroConverter: read with the subject\'s latest version (useLatestVersion)', BOOLEAN),
  'auto.register.schemas': I('a sink reads schemas by id; it registers none', BOOLEAN),
  'latest.compatibility.strict': I('a sink registers no schema', BOOLEAN),
  'json.fail.invalid.schema': S('JsonSchemaConverter: validate payloads against their schema (validate)', BOOLEAN),
  'enhanced.avro.schema.support': D('Avro enums read as strings, as without it', BOOLEAN),
  'connect.meta.data': D('Connect\'s metadata in Avro schemas is read; none is written', BOOLEAN),
  'converter.type': I('set by Connect itself (key or value)'),
};

/** What a side's keys say, before {@link finishConverter}. */
export interface ConverterKeys { cls?: { value: string; key: string }; settings: Map<string, { value: string; key: string }> }

/** A new, empty {@link ConverterKeys}. */
export const emptyConverterKeys = (): ConverterKeys => ({ settings: new Map() });

/**
 * Records one `<side>.converter[.<setting>]` key (`rest` is what follows `<side>.converter`: '' or `.setting`).
 * A connector's converter class replaces the worker's settings of that side, as Connect's does.
 */
export function applyConverterKey(ex: Explanation, key: string, rest: string, value: string, into: ConverterKeys): void {
  if (rest === '') {
    into.cls = { value: value.trim(), key };
    into.settings.clear();
    const ours = CONVERTER_CLASSES[value.trim()];
    const which = ours === 'connect-json' ? 'connect-json / json' : ours;
    if (ours) ex.verdict(key, value, 'supported', `the ${which} converter (docs/converters.md)`);
    else ex.refuse(key, value, `no converter for ${value}: one of ${Object.keys(CONVERTER_CLASSES).join(', ')}`);
    return;
  }
  const setting = rest.slice(1);
  if (ex.take(setting, value, CONVERTER_KEYS, 'a converter', key)) into.settings.set(setting, { value, key });
}

/**
 * The converter and registry settings of one side. @returns undefined converter when no class was given (the run's
 * defaults apply: bytes-as-text keys, JSON values — Connect's worker requires both classes, so a warning is noted).
 */
export function finishConverter(ex: Explanation, side: 'key' | 'value', keys: ConverterKeys):
  { converter?: ConverterSettings; registry?: RegistrySettings } {
  const type = keys.cls ? CONVERTER_CLASSES[keys.cls.value] : undefined;
  if (!type) return {};
  const get = (k: string) => keys.settings.get(k);
  // A setting that is no boolean was refused with Connect's message where it was read (the worker's file or the connector's).
  const flag = (k: string): boolean | undefined => {
    const s = get(k);
    return s ? parseBoolean(s.value) : undefined;
  };
  const only = (k: string, types: ConverterSettings['type'][]) => {
    const s = get(k);
    if (s && !types.includes(type)) {
      ex.verdict(s.key, s.value, 'ignored', `a setting of ${types.join(' / ')} converters: ${keys.cls!.value} ignores it, as in Connect`);
    }
    return s !== undefined && types.includes(type);
  };
  const converter: ConverterSettings = { type };
  if (type === 'connect-json') {
    const enabled = flag('schemas.enable');
    if (enabled === false) converter.type = 'json';
  } else only('schemas.enable', ['connect-json']);
  const registryTypes: ConverterSettings['type'][] = ['avro', 'protobuf', 'json-schema'];
  const strategy = get(`${side}.subject.name.strategy`);
  if (strategy && only(`${side}.subject.name.strategy`, registryTypes)) {
    const s = STRATEGIES[strategy.value.trim()];
    if (s) converter.subjectNameStrategy = s;
    else ex.refuse(strategy.key, strategy.value, `one of ${Object.keys(STRATEGIES).join(', ')}`);
  }
  if (only('use.latest.version', ['avro'])) converter.useLatestVersion = flag('use.latest.version');
  if (only('json.fail.invalid.schema', ['json-schema'])) converter.validate = flag('json.fail.invalid.schema');
  const url = get('schema.registry.url');
  if (!registryTypes.includes(type)) {
    if (url) ex.verdict(url.key, url.value, 'ignored', `${keys.cls!.value} uses no Schema Registry`);
    return { converter };
  }
  if (!url) {
    ex.refuse(keys.cls!.key, keys.cls!.value, `${keys.cls!.value} needs ${side}.converter.schema.registry.url`);
    return { converter };
  }
  const urls = parseList(url.value);
  if (urls.length > 1) {
    ex.verdict(url.key, url.value, 'differs', `several registry URLs: ${urls[0]} is used, the others are not tried`);
  }
  const registry: RegistrySettings = { url: urls[0] ?? '' };
  const source = (get('basic.auth.credentials.source')?.value ?? 'URL').trim().toUpperCase();
  const info = get('basic.auth.user.info') ?? get('schema.registry.basic.auth.user.info');
  const parsed = /^(https?:\/\/)([^@/]*)@(.*)$/.exec(registry.url);
  if (parsed) registry.url = parsed[1]! + parsed[3]!;
  if (source === 'USER_INFO' && info) {
    const at = info.value.indexOf(':');
    if (at < 0) ex.refuse(info.key, '', 'expected user:password');
    else registry.basicAuth = { username: info.value.slice(0, at), password: info.value.slice(at + 1) };
  } else if (source === 'URL' && parsed) {
    const [u, p = ''] = parsed[2]!.split(':');
    registry.basicAuth = { username: decodeURIComponent(u ?? ''), password: decodeURIComponent(p) };
  } else if (source !== 'URL' && source !== 'USER_INFO') {
    const s = get('basic.auth.credentials.source')!;
    ex.refuse(s.key, s.value, `${s.value}: USER_INFO or URL (SASL_INHERIT is not supported)`);
  }
  return { converter, registry };
}
