/**
 * Minimal writer for the subset of the ONNX `ModelProto` (onnx/onnx.proto3) needed to emit
 * inference graphs: nodes with int/float/ints attributes, float32/int64 initializers (raw_data),
 * typed graph inputs/outputs with symbolic dims. No dependency on protobufjs: the protobuf wire
 * format for these messages is just varints and length-delimited fields.
 *
 * Field numbers (onnx.proto3):
 *   ModelProto: ir_version=1, producer_name=2, producer_version=3, graph=7, opset_import=8
 *   OperatorSetIdProto: domain=1, version=2
 *   GraphProto: node=1, name=2, initializer=5, input=11, output=12
 *   NodeProto: input=1, output=2, name=3, op_type=4, attribute=5, domain=7
 *   AttributeProto: name=1, f=2, i=3, floats=7, ints=8, type=20 (FLOAT=1, INT=2, FLOATS=6, INTS=7)
 *   TensorProto: dims=1, data_type=2 (FLOAT=1, INT64=7), name=8, raw_data=9
 *   ValueInfoProto: name=1, type=2; TypeProto: tensor_type=1; TypeProto.Tensor: elem_type=1, shape=2
 *   TensorShapeProto: dim=1; Dimension: dim_value=1, dim_param=2
 */

const WIRE_VARINT = 0;
const WIRE_FIXED32 = 5;
const WIRE_LEN = 2;

export const OnnxDataType = { FLOAT: 1, INT64: 7 } as const;
export type OnnxDataTypeCode = (typeof OnnxDataType)[keyof typeof OnnxDataType];

/** Protobuf message writer that collects chunks so large tensors are copied only once, at the end. */
class ProtoWriter {
  private readonly chunks: Uint8Array[] = [];
  private scratch: number[] = [];
  length = 0;

  private flushScratch(): void {
    if (this.scratch.length === 0) return;
    this.chunks.push(Uint8Array.from(this.scratch));
    this.scratch = [];
  }

  private pushByte(b: number): void {
    this.scratch.push(b);
    this.length += 1;
  }

  private varint(value: number | bigint): void {
    // int64 fields: negative values are encoded as 10-byte two's complement.
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.pushByte(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.pushByte(Number(v));
  }

  private tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  int(field: number, value: number | bigint): this {
    this.tag(field, WIRE_VARINT);
    this.varint(value);
    return this;
  }

  float(field: number, value: number): this {
    this.tag(field, WIRE_FIXED32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    for (const x of b) this.pushByte(x);
    return this;
  }

  bytes(field: number, data: Uint8Array): this {
    this.tag(field, WIRE_LEN);
    this.varint(data.length);
    this.flushScratch();
    this.chunks.push(data);
    this.length += data.length;
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, sub: ProtoWriter): this {
    this.tag(field, WIRE_LEN);
    this.varint(sub.length);
    this.flushScratch();
    this.chunks.push(...sub.finishChunks());
    this.length += sub.length;
    return this;
  }

  finishChunks(): Uint8Array[] {
    this.flushScratch();
    return this.chunks;
  }

  finish(): Buffer {
    return Buffer.concat(this.finishChunks(), this.length);
  }
}

export type OnnxAttribute = { kind: 'int'; value: number } | { kind: 'float'; value: number } | { kind: 'ints'; value: readonly number[] };

export interface OnnxNode {
  opType: string;
  inputs: readonly string[];
  outputs: readonly string[];
  name?: string;
  attributes?: Readonly<Record<string, OnnxAttribute>>;
}

export interface OnnxInitializer {
  name: string;
  dims: readonly number[];
  data: Float32Array | BigInt64Array;
}

/** A graph input/output; a string dim is symbolic (e.g. 'batch'). */
export interface OnnxValueInfo {
  name: string;
  elemType: OnnxDataTypeCode;
  dims: readonly (number | string)[];
}

export interface OnnxGraph {
  name: string;
  nodes: readonly OnnxNode[];
  initializers: readonly OnnxInitializer[];
  inputs: readonly OnnxValueInfo[];
  outputs: readonly OnnxValueInfo[];
}

export interface OnnxModelOptions {
  /** Default opset of the ai.onnx domain; 17 is the first with LayerNormalization. */
  opset?: number;
  /** IR version 8 matches opset 17 (ONNX 1.12). */
  irVersion?: number;
  producerName?: string;
}

function attributeProto(name: string, attr: OnnxAttribute): ProtoWriter {
  const w = new ProtoWriter().string(1, name);
  switch (attr.kind) {
    case 'float':
      w.float(2, attr.value).int(20, 1);
      break;
    case 'int':
      w.int(3, attr.value).int(20, 2);
      break;
    case 'ints':
      for (const v of attr.value) w.int(8, v);
      w.int(20, 7);
      break;
  }
  return w;
}

function nodeProto(node: OnnxNode, index: number): ProtoWriter {
  const w = new ProtoWriter();
  for (const i of node.inputs) w.string(1, i);
  for (const o of node.outputs) w.string(2, o);
  w.string(3, node.name ?? `${node.opType}_${index}`);
  w.string(4, node.opType);
  for (const [k, a] of Object.entries(node.attributes ?? {})) w.message(5, attributeProto(k, a));
  return w;
}

function tensorProto(t: OnnxInitializer): ProtoWriter {
  const expected = t.dims.reduce((a, b) => a * b, 1);
  if (t.data.length !== expected) throw new Error(`initializer ${t.name}: ${t.data.length} values for dims [${t.dims.join(',')}]`);
  const w = new ProtoWriter();
  for (const d of t.dims) w.int(1, d);
  w.int(2, t.data instanceof Float32Array ? OnnxDataType.FLOAT : OnnxDataType.INT64);
  w.string(8, t.name);
  // raw_data is little-endian; typed arrays are host-endian, which is little-endian on every Node target.
  w.bytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return w;
}

function valueInfoProto(v: OnnxValueInfo): ProtoWriter {
  const shape = new ProtoWriter();
  for (const d of v.dims) {
    const dim = typeof d === 'number' ? new ProtoWriter().int(1, d) : new ProtoWriter().string(2, d);
    shape.message(1, dim);
  }
  const tensorType = new ProtoWriter().int(1, v.elemType).message(2, shape);
  const type = new ProtoWriter().message(1, tensorType);
  return new ProtoWriter().string(1, v.name).message(2, type);
}

/** Serialises a graph to ONNX `ModelProto` bytes. */
export function encodeOnnxModel(graph: OnnxGraph, options: OnnxModelOptions = {}): Buffer {
  const g = new ProtoWriter();
  graph.nodes.forEach((n, i) => g.message(1, nodeProto(n, i)));
  g.string(2, graph.name);
  for (const t of graph.initializers) g.message(5, tensorProto(t));
  for (const v of graph.inputs) g.message(11, valueInfoProto(v));
  for (const v of graph.outputs) g.message(12, valueInfoProto(v));

  const opset = new ProtoWriter().string(1, '').int(2, options.opset ?? 17);
  return new ProtoWriter()
    .int(1, options.irVersion ?? 8)
    .string(2, options.producerName ?? 'rag-forensics')
    .string(3, '0.1.0')
    .message(7, g)
    .message(8, opset)
    .finish();
}
