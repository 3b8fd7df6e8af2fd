/**
 * Jest environment for tests that run onnxruntime-node (use with a `@jest-environment` docblock).
 *
 * Jest runs each test file in its own VM context with its own typed-array constructors, while the
 * onnxruntime-node native binding creates output buffers with the main context's constructors;
 * onnxruntime-common then rejects them ("A float32 tensor's data must be type of Float32Array").
 * Sharing the main context's typed-array constructors with the test context makes both agree.
 */
const { TestEnvironment } = require('jest-environment-node');

const SHARED = [
  'ArrayBuffer', 'SharedArrayBuffer', 'DataView',
  'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
  'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array',
];

class OnnxEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of SHARED) this.global[name] = globalThis[name];
  }
}

module.exports = OnnxEnvironment;
