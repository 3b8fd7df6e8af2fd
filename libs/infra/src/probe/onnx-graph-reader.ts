/**
 * Minimal read-only view of an ONNX ModelProto (protobuf wire format), enough to find a
 * LayerNormalization node and read its float32 scale/bias initializers — and to patch an
 * initializer in place (same size) for end-to-end finite-difference tests.
 *
 * Field numbers (onnx.proto3):
 *   ModelProto: graph=7
 *   GraphProto: node=1, initializer=5, output=12 (ValueInfoProto: name=1)
 *   NodeProto: input=1, output=2, name=3, op_type=4, attribute=5
 *   AttributeProto: name=1, f=2 (fixed32), i=3 (varint)
 *   TensorProto: dims=1, data_type=2 (FLOAT=1), float_data=4, name=8, raw_data=9, data_location=14 (EXTERNAL=1)
 * Large initializers are skipped over by length, so a 90 MB model is walked without copying it.
 */

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;
const ONNX_FLOAT = 1;

export interface OnnxNodeInfo {
  opType: string;
  name: string;
  inputs: string[];
  outputs: string[];
  /** Scalar float / int attributes by name (others are ignored). */
  floats: Record<string, number>;
  ints: Record<string, number>;
}

export interface OnnxInitializerInfo {
  name: string;
  dims: number[];
  dataType: number;
  /** Byte range of raw_data in the model bytes (when stored as raw_data). */
  rawOffset?: number;
  rawLength?: number;
  /** float_data when stored that way. */
  floatData?: number[];
  external: boolean;
}

export interface OnnxGraphInfo {
  nodes: OnnxNodeInfo[];
  initializers: Map<string, OnnxInitializerInfo>;
  /** Names of the graph outputs. */
  outputs: string[];
}

class Reader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }
  get done(): boolean {
    return this.pos >= this.end;
  }
  varint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new Error('onnx: truncated varint');
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    throw new Error('onnx: malformed varint');
  }
  /** int64 varint as a signed number (negative values are 10-byte two's complement). */
  int64(): number {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new Error('onnx: truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return Number(BigInt.asIntN(64, result));
      shift += 7n;
    }
    throw new Error('onnx: malformed varint');
  }
  /** Returns [field, wire]. */
  tag(): [number, number] {
    const t = this.varint();
    return [Math.floor(t / 8), t % 8];
  }
  /** Returns [start, end) of a length-delimited payload and moves past it. */
  len(): [number, number] {
    const n = this.varint();
    const s = this.pos;
    if (s + n > this.end) throw new Error('onnx: length-delimited field runs past its message');
    this.pos = s + n;
    return [s, s + n];
  }
  string(): string {
    const [s, e] = this.len();
    return new TextDecoder().decode(this.buf.subarray(s, e));
  }
  float32(): number {
    if (this.pos + 4 > this.end) throw new Error('onnx: truncated fixed32');
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 4).getFloat32(0, true);
    this.pos += 4;
    return v;
  }
  skip(wire: number): void {
    if (wire === WIRE_VARINT) this.varint();
    else if (wire === WIRE_FIXED64) this.pos += 8;
    else if (wire === WIRE_LEN) this.len();
    else if (wire === WIRE_FIXED32) this.pos += 4;
    else throw new Error(`onnx: unsupported wire type ${wire}`);
  }
}

function readAttribute(r: Reader, node: OnnxNodeInfo): void {
  let name = '';
  let f: number | undefined;
  let i: number | undefined;
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === WIRE_LEN) name = r.string();
    else if (field === 2 && wire === WIRE_FIXED32) f = r.float32();
    else if (field === 3 && wire === WIRE_VARINT) i = r.int64();
    else r.skip(wire);
  }
  if (f !== undefined) node.floats[name] = f;
  if (i !== undefined) node.ints[name] = i;
}

function readNode(r: Reader): OnnxNodeInfo {
  const node: OnnxNodeInfo = { opType: '', name: '', inputs: [], outputs: [], floats: {}, ints: {} };
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === WIRE_LEN) node.inputs.push(r.string());
    else if (field === 2 && wire === WIRE_LEN) node.outputs.push(r.string());
    else if (field === 3 && wire === WIRE_LEN) node.name = r.string();
    else if (field === 4 && wire === WIRE_LEN) node.opType = r.string();
    else if (field === 5 && wire === WIRE_LEN) {
      const [s, e] = r.len();
      readAttribute(new Reader(r.buf, s, e), node);
    } else r.skip(wire);
  }
  return node;
}

function readTensor(r: Reader): OnnxInitializerInfo {
  const t: OnnxInitializerInfo = { name: '', dims: [], dataType: 0, external: false };
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === WIRE_VARINT) t.dims.push(r.varint());
    else if (field === 1 && wire === WIRE_LEN) {
      const [s, e] = r.len();
      const sub = new Reader(r.buf, s, e);
      while (!sub.done) t.dims.push(sub.varint());
    } else if (field === 2 && wire === WIRE_VARINT) t.dataType = r.varint();
    else if (field === 4 && wire === WIRE_LEN) {
      const [s, e] = r.len();
      const sub = new Reader(r.buf, s, e);
      t.floatData ??= [];
      while (!sub.done) t.floatData.push(sub.float32());
    } else if (field === 4 && wire === WIRE_FIXED32) (t.floatData ??= []).push(r.float32());
    else if (field === 8 && wire === WIRE_LEN) t.name = r.string();
    else if (field === 9 && wire === WIRE_LEN) {
      const [s, e] = r.len();
      t.rawOffset = s;
      t.rawLength = e - s;
    } else if (field === 14 && wire === WIRE_VARINT) t.external = r.varint() === 1;
    else r.skip(wire);
  }
  return t;
}

/** Walks ModelProto.graph: nodes (op, inputs, outputs, scalar attributes) and initializers (located, not copied). */
export function readOnnxGraph(bytes: Uint8Array): OnnxGraphInfo {
  const info: OnnxGraphInfo = { nodes: [], initializers: new Map(), outputs: [] };
  const model = new Reader(bytes, 0, bytes.length);
  let sawGraph = false;
  while (!model.done) {
    const [field, wire] = model.tag();
    if (field !== 7 || wire !== WIRE_LEN) {
      model.skip(wire);
      continue;
    }
    sawGraph = true;
    const [gs, ge] = model.len();
    const g = new Reader(bytes, gs, ge);
    while (!g.done) {
      const [gf, gw] = g.tag();
      if (gf === 1 && gw === WIRE_LEN) {
        const [s, e] = g.len();
        info.nodes.push(readNode(new Reader(bytes, s, e)));
      } else if (gf === 5 && gw === WIRE_LEN) {
        const [s, e] = g.len();
        const t = readTensor(new Reader(bytes, s, e));
        info.initializers.set(t.name, t);
      } else if (gf === 12 && gw === WIRE_LEN) {
        const [s, e] = g.len();
        const v = new Reader(bytes, s, e);
        while (!v.done) {
          const [vf, vw] = v.tag();
          if (vf === 1 && vw === WIRE_LEN) info.outputs.push(v.string());
          else v.skip(vw);
        }
      } else g.skip(gw);
    }
  }
  if (!sawGraph) throw new Error('onnx: no graph in the model (is this an ONNX ModelProto?)');
  return info;
}

/** The float32 values of an initializer (copied). */
export function readFloatInitializer(bytes: Uint8Array, graph: OnnxGraphInfo, name: string): Float32Array {
  const t = graph.initializers.get(name);
  if (!t) throw new Error(`onnx: no initializer named ${name}`);
  if (t.dataType !== ONNX_FLOAT) throw new Error(`onnx: initializer ${name} has data type ${t.dataType}; expected FLOAT (1)`);
  if (t.external) throw new Error(`onnx: initializer ${name} is stored as external data; pass its values explicitly`);
  const count = t.dims.reduce((a, b) => a * b, 1);
  if (t.rawOffset !== undefined && t.rawLength !== undefined) {
    if (t.rawLength !== count * 4) throw new Error(`onnx: initializer ${name} has ${t.rawLength} raw bytes for ${count} floats`);
    const out = new Float32Array(count);
    const view = new DataView(bytes.buffer, bytes.byteOffset + t.rawOffset, t.rawLength);
    for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true);
    return out;
  }
  if (t.floatData && t.floatData.length === count) return Float32Array.from(t.floatData);
  throw new Error(`onnx: initializer ${name} has no readable float data`);
}

/**
 * A copy of the model bytes with one raw_data float32 initializer replaced (same element count).
 * Used by tests to rewrite γ/β for end-to-end finite differences.
 */
export function patchFloatInitializer(bytes: Uint8Array, graph: OnnxGraphInfo, name: string, values: Float32Array): Uint8Array {
  const t = graph.initializers.get(name);
  if (!t || t.rawOffset === undefined || t.rawLength === undefined) throw new Error(`onnx: no raw_data initializer named ${name}`);
  if (t.dataType !== ONNX_FLOAT || t.rawLength !== values.length * 4) throw new Error(`onnx: ${name} is not a float32 tensor of ${values.length} elements`);
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer, out.byteOffset + t.rawOffset, t.rawLength);
  for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i], true);
  return out;
}

export interface LayerNormInfo {
  /** The node's name, or '' when unnamed. */
  nodeName: string;
  scaleName: string;
  biasName: string;
  epsilon: number;
  gamma: Float32Array;
  beta: Float32Array;
}

/**
 * The LayerNormalization node that consumes `inputName` (opset ≥ 17 fused op, axis −1) with its
 * γ/β read from the initializers. Throws a descriptive error when the graph has no such node
 * (e.g. an export that decomposes LayerNorm into ReduceMean/Sub/Pow/…): then pass γ/β explicitly.
 */
export function findLayerNormByInput(bytes: Uint8Array, inputName: string, graph: OnnxGraphInfo = readOnnxGraph(bytes)): LayerNormInfo {
  const node = graph.nodes.find((n) => n.opType === 'LayerNormalization' && n.inputs[0] === inputName);
  if (!node) {
    throw new Error(
      `onnx: no LayerNormalization node takes ${inputName} as input (the graph may decompose LayerNorm into primitive ops); ` +
        'pass layerNorm: { gamma, beta, epsilon } explicitly',
    );
  }
  // [batch, sequence, hidden]: the last axis is −1 or 2.
  const axis = node.ints.axis ?? -1;
  if (axis !== -1 && axis !== 2) throw new Error(`onnx: LayerNormalization ${node.name} normalises over axis ${axis}; only the last axis (-1) is supported`);
  const [, scaleName, biasName] = node.inputs;
  if (!scaleName || !biasName) throw new Error(`onnx: LayerNormalization ${node.name} has no bias input`);
  return {
    nodeName: node.name,
    scaleName,
    biasName,
    epsilon: node.floats.epsilon ?? 1e-5, // the ONNX default
    gamma: readFloatInitializer(bytes, graph, scaleName),
    beta: readFloatInitializer(bytes, graph, biasName),
  };
}
