import { isTransientFailure } from '../transient-failure';

describe('isTransientFailure', () => {
  it('is true for an unreachable dependency, through cause chains', () => {
    expect(isTransientFailure(Object.assign(new Error("Can't reach database server at `db:5432`"), { code: 'P1001' }))).toBe(true);
    expect(isTransientFailure(Object.assign(new Error('x'), { name: 'PrismaClientInitializationError' }))).toBe(true);
    expect(isTransientFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransientFailure(new Error('wrapped', { cause: Object.assign(new Error('timeout'), { code: 'P2024' }) }))).toBe(true);
    expect(isTransientFailure(Object.assign(new Error('judge 503'), { transient: true }))).toBe(true);
    expect(isTransientFailure(new AggregateError([new Error('a'), Object.assign(new Error('b'), { code: 'ETIMEDOUT' })]))).toBe(true);
  });

  it('is false for failures of the event itself', () => {
    expect(isTransientFailure(Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' }))).toBe(false);
    expect(isTransientFailure(Object.assign(new Error('judge 401'), { transient: false }))).toBe(false);
    expect(isTransientFailure(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isTransientFailure(undefined)).toBe(false);
  });
});
