// Scratch file written by test/layering.test.ts; deleted when the test ends.
import '@forensics/infra';
import 'node:fs';
