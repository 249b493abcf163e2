/** A base64 FileDescriptorProto (what Confluent's Python ProtobufSerializer registers) printed as .proto text. */
import * as protobuf from 'protobufjs';
import { isBase64Descriptor, protoTextOfDescriptor } from '../../../src/testing/schema-registry/protobuf-descriptor';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const descriptor = require('protobufjs/ext/descriptor') as {
  FileDescriptorProto: { fromObject(o: object): unknown; encode(m: unknown): { finish(): Uint8Array } } };
const encode = (file: object) =>
  Buffer.from(descriptor.FileDescriptorProto.encode(descriptor.FileDescriptorProto.fromObject(file)).finish()).toString('base64');

const F = (name: string, number: number, type: string, extra: object = {}) => ({ name, number, type, label: 'LABEL_OPTIONAL', ...extra });

test('proto3: imports (public, weak), options, map fields, oneofs, proto3 optional, nested types, enums, reserved, services', () => {
  const text = protoTextOfDescriptor(encode({
    name: 'shop/order.proto', package: 'shop', syntax: 'proto3',
    dependency: ['google/protobuf/timestamp.proto', 'a.proto', 'b.proto'], publicDependency: [1], weakDependency: [2],
    options: { javaPackage: 'com.shop', javaMultipleFiles: true, optimizeFor: 'SPEED' },
    messageType: [{
      name: 'Order',
      field: [F('id', 1, 'TYPE_INT64'), F('at', 2, 'TYPE_MESSAGE', { typeName: '.google.protobuf.Timestamp' }),
        F('tags', 3, 'TYPE_STRING', { label: 'LABEL_REPEATED' }),
        F('counts', 4, 'TYPE_MESSAGE', { label: 'LABEL_REPEATED', typeName: '.shop.Order.CountsEntry' }),
        F('card', 5, 'TYPE_STRING', { oneofIndex: 0 }), F('cash', 6, 'TYPE_INT32', { oneofIndex: 0 }),
        F('maybe', 7, 'TYPE_INT32', { oneofIndex: 1, proto3Optional: true }),
        F('status', 8, 'TYPE_ENUM', { typeName: '.shop.Order.Status' }),
        F('packed', 9, 'TYPE_INT32', { label: 'LABEL_REPEATED', options: { packed: false } })],
      nestedType: [{ name: 'CountsEntry', options: { mapEntry: true }, field: [F('key', 1, 'TYPE_STRING'), F('value', 2, 'TYPE_INT32')] },
        { name: 'Line', field: [F('sku', 1, 'TYPE_STRING')] }],
      enumType:
        [{ name: 'Status', value: [{ name: 'NEW', number: 0 }, { name: 'DONE', number: 1 }], reservedRange: [{ start: 5, end: 7 }] }],
      oneofDecl: [{ name: 'pay' }, { name: '_maybe' }],
      reservedRange: [{ start: 20, end: 21 }, { start: 30, end: 40 }], reservedName: ['old'],
    }],
    service: [{ name: 'Orders', method: [{ name: 'Watch', inputType: '.shop.Order', outputType: '.shop.Order', serverStreaming: true }] }],
  }));
  expect(text).toBe(`syntax = "proto3";
package shop;

import "google/protobuf/timestamp.proto";
import public "a.proto";
import weak "b.proto";

option java_package = "com.shop";
option optimize_for = SPEED;
option java_multiple_files = true;

message Order {
  int64 id = 1;
  .google.protobuf.Timestamp at = 2;
  repeated string tags = 3;
  map<string, int32> counts = 4;
  oneof pay {
    string card = 5;
    int32 cash = 6;
  }
  optional int32 maybe = 7;
  .shop.Order.Status status = 8;
  repeated int32 packed = 9 [packed = false];
  reserved 20, 30 to 39;
  reserved "old";
  message Line {
    string sku = 1;
  }
  enum Status {
    NEW = 0;
    DONE = 1;
    reserved 5 to 7;
  }
}

service Orders {
  rpc Watch (.shop.Order) returns (stream .shop.Order);
}
`);
  // protobufjs reads it back as the same messages.
  const root = new protobuf.Root();
  root.addJSON((protobuf.common as unknown as { get(n: string): protobuf.INamespace }).get('google/protobuf/timestamp.proto').nested!);
  protobuf.parse(text.replace(/import (public|weak) "[ab].proto";\n/g, ''), root, { keepCase: true });
  root.resolveAll();
  const order = root.lookupType('shop.Order');
  expect(order.fieldsArray.map((f) => f.name)).toEqual(['id', 'at', 'tags', 'counts', 'card', 'cash', 'maybe', 'status', 'packed']);
  expect(order.fields.counts).toBeInstanceOf(protobuf.MapField);
});

test('proto2: labels always written, defaults quoted for strings; groups and extensions refused; garbage refused', () => {
  const text = protoTextOfDescriptor(encode({ name: 'p.proto', messageType: [{ name: 'P', field: [
    F('a', 1, 'TYPE_INT32', { defaultValue: '7' }), F('b', 2, 'TYPE_STRING', { label: 'LABEL_REQUIRED', defaultValue: 'x"y' })] }] }));
  expect(text)
    .toBe('syntax = "proto2";\n\nmessage P {\n  optional int32 a = 1 [default = 7];\n  required string b = 2 [default = "x\\"y"];\n}\n');
  expect(() => protoTextOfDescriptor(encode({
    name: 'g.proto', messageType: [{ name: 'G', field: [F('g', 1, 'TYPE_GROUP', { typeName: '.G.X' })] }] })))
    .toThrow(/group/);
  expect(() => protoTextOfDescriptor(encode({ name: 'e.proto', extension: [F('x', 100, 'TYPE_INT32', { extendee: '.M' })] })))
    .toThrow(/extensions/);
  expect(() => protoTextOfDescriptor('////')).toThrow(/not Protobuf text, nor a base64 FileDescriptorProto/);
  expect(isBase64Descriptor('CgdtLnByb3Rv')).toBe(true);
  expect(isBase64Descriptor('syntax = "proto3";')).toBe(false);
});
