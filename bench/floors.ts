import type { InFlightSample } from './in-flight.js';
import type { Sample } from './measure.js';
import type { PausedFootprint } from './paused-footprint.js';
import {
  ADK_DATABASE_SQLITE,
  LANGGRAPH_POSTGRES,
  LANGGRAPH_SQLITE,
  type PeerCycles,
} from './peer-figures.js';
import type { RedisProfile } from './redis-profile.js';

/** How a floor's figures read: a ratio (0.5×), a count, or bytes. */
export type FloorUnit = 'ratio' | 'count' | 'bytes';

/** One floor a simple design is reported against: a measured figure and its bound. */
export interface Floor {
  label: string;
  measured: number;
  bound: 'at least' | 'at most';
  value: number;
  met: boolean;
  unit: FloorUnit;
}

function atLeast(label: string, measured: number, value: number, unit: FloorUnit = 'ratio'): Floor {
  return { label, measured, bound: 'at least', value, met: measured >= value, unit };
}

function atMost(label: string, measured: number, value: number, unit: FloorUnit = 'ratio'): Floor {
  return { label, measured, bound: 'at most', value, met: measured <= value, unit };
}

/** The scenarios the floors compare, each when it ran. */
export interface FloorInputs {
  adkInFlight?: InFlightSample;
  memoryInFlight?: InFlightSample;
  redisInFlight?: InFlightSample;
  redisSequential?: Sample;
  durableFloorSequential?: Sample;
  /** Redis work of one in-process cycle (MONITOR). */
  redisProfile?: RedisProfile;
  /** What one paused run keeps in Redis. */
  redisFootprint?: PausedFootprint;
}

/**
 * The floors the issues set for a simple design, to report against rather than
 * chase: with cycles in flight Redis keeps ≥ 0.3× and memory ≥ 0.5× of bare ADK's
 * cycles/s, and Redis ≥ 0.5× of memory's; one Redis cycle alone takes ≤ 2× the
 * durable floor's p50; a cycle costs ≤ 12 client round trips and ≤ 50 Redis commands;
 * a paused run ≤ 5 KB of Redis memory. A floor whose figures were not measured is
 * left out.
 */
export function simpleDesignFloors(inputs: FloorInputs): Floor[] {
  const { adkInFlight: adk, memoryInFlight: memory, redisInFlight: redis } = inputs;
  const floors: Floor[] = [];
  if (redis && adk) {
    const label = `redis / bare ADK, cycles/s at ${redis.concurrency} in flight`;
    floors.push(atLeast(label, redis.cyclesPerSecond / adk.cyclesPerSecond, 0.3));
  }
  if (memory && adk) {
    const label = `memory / bare ADK, cycles/s at ${memory.concurrency} in flight`;
    floors.push(atLeast(label, memory.cyclesPerSecond / adk.cyclesPerSecond, 0.5));
  }
  if (redis && memory) {
    const label = `redis / memory, cycles/s at ${redis.concurrency} in flight`;
    floors.push(atLeast(label, redis.cyclesPerSecond / memory.cyclesPerSecond, 0.5));
  }
  const { redisSequential, durableFloorSequential, redisProfile, redisFootprint } = inputs;
  if (redisSequential && durableFloorSequential) {
    const label = 'redis / durable floor, sequential p50';
    floors.push(atMost(label, redisSequential.p50Ms / durableFloorSequential.p50Ms, 2));
  }
  if (redisProfile) {
    const { roundTrips, total } = redisProfile;
    floors.push(atMost('redis client round trips per in-process cycle', roundTrips, 12, 'count'));
    floors.push(atMost('redis commands per in-process cycle', total, 50, 'count'));
  }
  if (redisFootprint) {
    const { bytesPerRun } = redisFootprint;
    floors.push(atMost('redis memory per paused run', bytesPerRun, 5_000, 'bytes'));
  }
  return floors;
}

/** The sequential samples of the SQL stores, each when it ran. */
export interface PeerFloorInputs {
  sqliteSequential?: Sample;
  postgresSequential?: Sample;
}

function overPeer(store: string, sample: Sample, peer: PeerCycles, value: number): Floor {
  const label = `${store} / ${peer.name} (${peer.cyclesPerSecond} cycles/s), sequential cycles/s`;
  return atLeast(label, sample.cyclesPerSecond / peer.cyclesPerSecond, value);
}

/**
 * The floors issue 24 sets against the peers, on sequential cycles/s (the peers were
 * measured one cycle at a time): SQLite ≥ 10× ADK's DatabaseSessionService on SQLite
 * and ≥ 3× LangGraph's SqliteSaver; PostgreSQL ≥ 5× LangGraph's PostgresSaver.
 * Reported, never chased; a store that did not run is left out.
 */
export function peerFloors(inputs: PeerFloorInputs): Floor[] {
  const floors: Floor[] = [];
  const { sqliteSequential: sqlite, postgresSequential: postgres } = inputs;
  if (sqlite) {
    floors.push(overPeer('sqlite', sqlite, ADK_DATABASE_SQLITE, 10));
    floors.push(overPeer('sqlite', sqlite, LANGGRAPH_SQLITE, 3));
  }
  if (postgres) floors.push(overPeer('postgres', postgres, LANGGRAPH_POSTGRES, 5));
  return floors;
}
