import type { StoreKind } from '../src/core/store-kinds.js';
import type { InFlightSample } from './in-flight.js';
import type { Sample } from './measure.js';
import {
  ADK_DATABASE_SQLITE,
  LANGGRAPH_POSTGRES,
  LANGGRAPH_SQLITE,
  PEER_SOURCE,
  type PeerCycles,
} from './peer-figures.js';
import { table, times } from './table.js';

/** One store's in-process cycle: cycles/s alone and in flight, against bare ADK and the peers. */
export interface StoreCycles {
  store: StoreKind;
  sequential?: number;
  /** Its sequential cycles/s over bare ADK's, measured in the same run. */
  sequentialOverAdk?: number;
  inFlight?: number;
  inFlightOverAdk?: number;
  /** Its sequential cycles/s over each peer figure on the same kind of database. */
  overPeers: { peer: PeerCycles; ratio: number }[];
}

/** The peers measured on the same kind of database as `store`. */
const PEERS: Partial<Record<StoreKind, PeerCycles[]>> = {
  sqlite: [ADK_DATABASE_SQLITE, LANGGRAPH_SQLITE],
  postgres: [LANGGRAPH_POSTGRES],
};

/** One in-process scenario per store, and bare ADK's, sequential and in flight. */
export interface StoreScenario {
  store: StoreKind;
  sequential?: Sample;
  inFlight?: InFlightSample;
}

/** Each store's figures beside bare ADK's (`adk`) and the peers'. */
export function storeCycles(
  stores: StoreScenario[],
  adk: { sequential?: Sample; inFlight?: InFlightSample },
): StoreCycles[] {
  return stores.map(({ store, sequential, inFlight }) => {
    const over = (of?: { cyclesPerSecond: number }, to?: { cyclesPerSecond: number }) =>
      of && to && to.cyclesPerSecond > 0 ? of.cyclesPerSecond / to.cyclesPerSecond : undefined;
    return {
      store,
      sequential: sequential?.cyclesPerSecond,
      sequentialOverAdk: over(sequential, adk.sequential),
      inFlight: inFlight?.cyclesPerSecond,
      inFlightOverAdk: over(inFlight, adk.inFlight),
      overPeers: sequential
        ? (PEERS[store] ?? []).map((peer) => ({
            peer,
            ratio: sequential.cyclesPerSecond / peer.cyclesPerSecond,
          }))
        : [],
    };
  });
}

/** The per-store table: cycles/s, its ratio to bare ADK, and to the peers on the same database. */
export function formatStoreCycles(rows: StoreCycles[], concurrency?: number): string {
  const figure = (value?: number) => (value === undefined ? '-' : value.toFixed(1));
  const ratio = (value?: number) => (value === undefined ? '-' : times(value));
  return [
    'Cycles/s per store, in process (× bare ADK: over bare ADK in this same run;' +
      ' × peer: sequential cycles/s over the peer figure)',
    '',
    table(
      [
        'store',
        'sequential',
        '× bare ADK',
        concurrency === undefined ? 'in flight' : `${concurrency} in flight`,
        '× bare ADK',
        'sequential × peer (peer cycles/s)',
      ],
      rows.map((row) => [
        row.store,
        figure(row.sequential),
        ratio(row.sequentialOverAdk),
        figure(row.inFlight),
        ratio(row.inFlightOverAdk),
        row.overPeers
          .map(({ peer, ratio: r }) => `${times(r)} ${peer.name} (${peer.cyclesPerSecond})`)
          .join('; ') || '-',
      ]),
      [0, 5],
    ),
    `  ${PEER_SOURCE}`,
  ].join('\n');
}
