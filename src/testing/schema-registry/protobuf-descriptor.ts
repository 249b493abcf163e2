/**
 * Protobuf schemas sent as a serialized FileDescriptorProto, base64-encoded: what Confluent's Python
 * ProtobufSerializer registers (it has no `.proto` text, only the descriptor of its generated classes).
 * Confluent's registry accepts that form (ProtobufSchema tries the text first, then the base64 descriptor)
 * and stores the schema as `.proto` text, which is what clients fetch by id. This module decodes the
 * descriptor (protobufjs/ext/descriptor) and prints it as `.proto` text: syntax, package, imports (public
 * and weak), file options with scalar values, messages with their fields (labels as the syntax spells
 * them, `optional` for proto3 presence, defaults and `packed`), map fields, oneofs, nested types, enums,
 * reserved ranges and names, and services. Type names are printed fully qualified (`.pkg.Type`).
 * Groups and extensions are refused (InvalidSchemaError): the registry's clients do not send them.
 */
import { InvalidSchemaError } from './types';

/** The fields of descriptor.proto's messages this printer reads (protobufjs toObject, enums as names). */
interface FieldProto {
  name: string; number: number; label?: string; type?: string; typeName?: string; defaultValue?: string;
  oneofIndex?: number; proto3Optional?: boolean; options?: { packed?: boolean; deprecated?: boolean };
}
interface EnumProto { name: string; value?: { name: string; number: number }[]; options?: { allowAlias?: boolean };
  reservedRange?: { start: number; end: number }[]; reservedName?: string[] }
interface MessageProto {
  name: string; field?: FieldProto[]; nestedType?: MessageProto[]; enumType?: EnumProto[]; oneofDecl?: { name: string }[];
  options?: { mapEntry?: boolean }; reservedRange?: { start: number; end: number }[]; reservedName?: string[];
  extension?: unknown[]; extensionRange?: unknown[];
}
interface ServiceProto { name: string; method?: { name: string; inputType: string; outputType: string;
  clientStreaming?: boolean; serverStreaming?: boolean }[] }
interface FileProto {
  name?: string; package?: string; dependency?: string[]; publicDependency?: number[]; weakDependency?: number[];
  messageType?: MessageProto[]; enumType?: EnumProto[]; service?: ServiceProto[]; extension?: unknown[];
  options?: Record<string, unknown>; syntax?: string; edition?: string;
}

const SCALARS: Record<string, string> = {
  TYPE_DOUBLE: 'double', TYPE_FLOAT: 'float', TYPE_INT64: 'int64', TYPE_UINT64: 'uint64', TYPE_INT32: 'int32',
  TYPE_FIXED64: 'fixed64', TYPE_FIXED32: 'fixed32', TYPE_BOOL: 'bool', TYPE_STRING: 'string', TYPE_BYTES: 'bytes',
  TYPE_UINT32: 'uint32', TYPE_SFIXED32: 'sfixed32', TYPE_SFIXED64: 'sfixed64', TYPE_SINT32: 'sint32', TYPE_SINT64: 'sint64',
};

/** True when `text` looks like base64 (and not `.proto` text, which always has spaces, `;` or `{`). */
export function isBase64Descriptor(text: string): boolean {
  const t = text.trim();
  return t.length > 0 && t.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(t);
}

/** lower camelCase → snake_case (protobufjs names descriptor options in camelCase). */
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const quote = (s: string) => JSON.stringify(s);

/**
 * The `.proto` text of a base64-encoded FileDescriptorProto (see the module comment).
 * @throws InvalidSchemaError when the bytes are not a descriptor, or hold groups or extensions
 */
export function protoTextOfDescriptor(base64: string): string {
  let file: FileProto;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const descriptor = require('protobufjs/ext/descriptor') as {
      FileDescriptorProto: { decode(b: Uint8Array): unknown; toObject(m: unknown, o: object): unknown };
    };
    const message = descriptor.FileDescriptorProto.decode(Buffer.from(base64.trim(), 'base64'));
    file = descriptor.FileDescriptorProto.toObject(message, { enums: String, longs: String }) as FileProto;
  } catch (e) {
    throw new InvalidSchemaError(`Invalid schema: not Protobuf text, nor a base64 FileDescriptorProto: ${(e as Error).message}`);
  }
  if (file.extension?.length) throw new InvalidSchemaError('Invalid schema: extensions are not supported by this registry');
  const out: string[] = [];
  const proto3 = file.syntax === 'proto3';
  if (file.syntax === 'editions') out.push(`edition = ${quote(file.edition?.replace(/^EDITION_/, '') ?? '2023')};`);
  else out.push(`syntax = ${quote(proto3 ? 'proto3' : 'proto2')};`);
  if (file.package) out.push(`package ${file.package};`);
  const deps = file.dependency ?? [];
  if (deps.length > 0) out.push('');
  deps.forEach((d, i) => {
    const kind = file.publicDependency?.includes(i) ? 'public ' : file.weakDependency?.includes(i) ? 'weak ' : '';
    out.push(`import ${kind}${quote(d)};`);
  });
  const options = Object.entries(file.options ?? {}).filter(([, v]) => ['string', 'boolean', 'number'].includes(typeof v));
  if (options.length > 0) out.push('');
  for (const [k, v] of options) {
    // optimize_for is an enum: a bare identifier; every other scalar option is a string, a bool or a number.
    out.push(`option ${snake(k)} = ${typeof v === 'string' && k !== 'optimizeFor' ? quote(v) : String(v)};`);
  }
  for (const m of file.messageType ?? []) out.push('', ...message(m, proto3, ''));
  for (const e of file.enumType ?? []) out.push('', ...enumLines(e, ''));
  for (const s of file.service ?? []) out.push('', ...serviceLines(s));
  return `${out.join('\n')}\n`;
}

function reserved(ranges: { start: number; end: number }[] | undefined, names: string[] | undefined, end: number,
  indent: string): string[] {
  const out: string[] = [];
  if (ranges?.length) {
    // Message ranges are end-exclusive in the descriptor (`end` 1), enum ranges end-inclusive (`end` 0).
    out.push(`${indent}reserved ` +
      `${ranges.map((r) => (r.end - end === r.start ? `${r.start}` : `${r.start} to ${r.end - end}`)).join(', ')};`);
  }
  if (names?.length) out.push(`${indent}reserved ${names.map(quote).join(', ')};`);
  return out;
}

function message(m: MessageProto, proto3: boolean, indent: string): string[] {
  if (m.extension?.length)
    throw new InvalidSchemaError(`Invalid schema: message ${m.name} declares extensions, which this registry does not support`);
  const inner = `${indent}  `;
  const out = [`${indent}message ${m.name} {`];
  const entries = new Map((m.nestedType ?? []).filter((n) => n.options?.mapEntry).map((n) => [n.name, n]));
  const oneofsDone = new Set<number>();
  const fields = m.field ?? [];
  for (const f of fields) {
    const real = f.oneofIndex !== undefined && !f.proto3Optional;
    if (!real) { out.push(fieldLine(f, proto3, entries, inner)); continue; }
    if (oneofsDone.has(f.oneofIndex!)) continue;
    oneofsDone.add(f.oneofIndex!);
    out.push(`${inner}oneof ${m.oneofDecl?.[f.oneofIndex!]?.name ?? `oneof_${f.oneofIndex}`} {`);
    for (const g of fields.filter((x) => x.oneofIndex === f.oneofIndex))
      out.push(fieldLine({ ...g, label: undefined }, true, entries, `${inner}  `));
    out.push(`${inner}}`);
  }
  out.push(...reserved(m.reservedRange, m.reservedName, 1, inner));
  for (const n of m.nestedType ?? []) if (!n.options?.mapEntry) out.push(...message(n, proto3, inner));
  for (const e of m.enumType ?? []) out.push(...enumLines(e, inner));
  out.push(`${indent}}`);
  return out;
}

function typeOf(f: FieldProto): string {
  if (f.type === 'TYPE_MESSAGE' || f.type === 'TYPE_ENUM') return f.typeName ?? '';
  if (f.type === 'TYPE_GROUP')
    throw new InvalidSchemaError(`Invalid schema: field ${f.name} is a group, which this registry does not support`);
  const s = SCALARS[f.type ?? ''];
  if (!s) throw new InvalidSchemaError(`Invalid schema: field ${f.name} has unknown type ${String(f.type)}`);
  return s;
}

function fieldLine(f: FieldProto, proto3: boolean, entries: Map<string, MessageProto>, indent: string): string {
  const entry = f.label === 'LABEL_REPEATED' && f.type === 'TYPE_MESSAGE' ? entries.get((f.typeName ?? '').split('.').pop()!) : undefined;
  const opts: string[] = [];
  if (f.defaultValue !== undefined) {
    opts.push(`default = ${f.type === 'TYPE_STRING' || f.type === 'TYPE_BYTES' ? quote(f.defaultValue) : f.defaultValue}`);
  }
  if (f.options?.packed !== undefined) opts.push(`packed = ${String(f.options.packed)}`);
  if (f.options?.deprecated) opts.push('deprecated = true');
  const tail = `${f.name} = ${f.number}${opts.length > 0 ? ` [${opts.join(', ')}]` : ''};`;
  if (entry) {
    const [k, v] = [entry.field?.find((x) => x.number === 1), entry.field?.find((x) => x.number === 2)];
    if (k && v) return `${indent}map<${typeOf(k)}, ${typeOf(v)}> ${tail}`;
  }
  const label = f.label === 'LABEL_REPEATED' ? 'repeated '
    : f.label === 'LABEL_REQUIRED' ? 'required '
      : f.proto3Optional || (!proto3 && f.label === 'LABEL_OPTIONAL') ? 'optional ' : '';
  return `${indent}${label}${typeOf(f)} ${tail}`;
}

function enumLines(e: EnumProto, indent: string): string[] {
  const out = [`${indent}enum ${e.name} {`];
  if (e.options?.allowAlias) out.push(`${indent}  option allow_alias = true;`);
  for (const v of e.value ?? []) out.push(`${indent}  ${v.name} = ${v.number};`);
  out.push(...reserved(e.reservedRange, e.reservedName, 0, `${indent}  `));
  out.push(`${indent}}`);
  return out;
}

function serviceLines(s: ServiceProto): string[] {
  const out = [`service ${s.name} {`];
  for (const m of s.method ?? []) {
    out.push(`  rpc ${m.name} (${m.clientStreaming ? 'stream ' : ''}${m.inputType}) ` +
      `returns (${m.serverStreaming ? 'stream ' : ''}${m.outputType});`);
  }
  out.push('}');
  return out;
}
