import IORedis from 'ioredis';

/** A connection and every duplicate made of it (BullMQ's blocking connections, the producer's), which share its retry strategy. */
interface ConnectionFamily { shuttingDown: boolean; members: Set<IORedis> }

const familyOf = new WeakMap<IORedis, ConnectionFamily>();

/** The most a lost connection waits before its next attempt (ioredis' default strategy: 50 ms more per attempt). */
const MAX_RETRY_DELAY_MS = 2000;

export function createRedisConnection(url: string): IORedis {
  const family: ConnectionFamily = { shuttingDown: false, members: new Set() };
  // BullMQ workers need maxRetriesPerRequest: null (blocking commands). Reconnects as ioredis does by
  // default until the process shuts down (stopReconnecting); a duplicate copies the options, and with
  // them this closure.
  const connection = new IORedis(url, {
    maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false,
    retryStrategy: (times) => (family.shuttingDown ? null : Math.min(times * 50, MAX_RETRY_DELAY_MS)),
  });
  join(connection, family);
  return connection;
}

function join(connection: IORedis, family: ConnectionFamily): void {
  family.members.add(connection);
  familyOf.set(connection, family);
  connection.once('end', () => family.members.delete(connection));
  const duplicate = connection.duplicate.bind(connection);
  connection.duplicate = (override) => {
    const d = duplicate(override);
    join(d, family);
    return d;
  };
}

/**
 * From now on a lost connection ends instead of reconnecting — `connection` and every duplicate of
 * it — and resolves once none is between two attempts (at most one retry delay and a refused
 * connect: about 2 s). Called when the process begins to shut down: a Redis that goes away then was
 * most likely stopped on purpose (the embedded one by its owner or its guard), and a worker that
 * waits for it never exits. Worse, ioredis' disconnect() on a connection that is between two
 * attempts ('reconnecting') cancels the retry and never emits 'end', which BullMQ's Worker.close()
 * waits for (taskforcesh/bullmq#4656): so the pending attempts are let run and fail first. While the
 * process runs, an outage is waited out as before (docs/faults.md).
 */
export async function stopReconnecting(connection: IORedis): Promise<void> {
  const family = familyOf.get(connection);
  if (!family) return;
  family.shuttingDown = true;
  const until = Date.now() + MAX_RETRY_DELAY_MS + 1000;
  const retrying = () => [...family.members].some((m) => m.status === 'reconnecting' || m.status === 'connecting');
  while (retrying() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
}
