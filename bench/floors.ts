import type { InFlightSample } from './in-flight.js';
import type { Sample } from './measure.js';

/** One floor a simple design is reported against: a measured ratio and its bound. */
export interface Floor {
  label: string;
  measured: number;
  bound: 'at least' | 'at most';
  value: number;
  met: boolean;
}

function atLeast(label: string, measured: number, value: number): Floor {
  return { label, measured, bound: 'at least', value, met: measured >= value };
}

function atMost(label: string, measured: number, value: number): Floor {
  return { label, measured, bound: 'at most', value, met: measured <= value };
}

/** The scenarios the floors compare, each when it ran. */
export interface FloorInputs {
  adkInFlight?: InFlightSample;
  memoryInFlight?: InFlightSample;
  redisInFlight?: InFlightSample;
  redisSequential?: Sample;
  durableFloorSequential?: Sample;
}

/**
 * The floors the issue sets for a simple design, to report against rather than
 * chase: with cycles in flight Redis keeps ≥ 0.3× and memory ≥ 0.5× of bare ADK's
 * cycles/s, and one Redis cycle alone takes ≤ 2× the durable floor's p50. A floor
 * whose scenarios did not run is left out.
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
  const { redisSequential, durableFloorSequential } = inputs;
  if (redisSequential && durableFloorSequential) {
    const label = 'redis / durable floor, sequential p50';
    floors.push(atMost(label, redisSequential.p50Ms / durableFloorSequential.p50Ms, 2));
  }
  return floors;
}
