/**
 * The peers' figures issue 24 compares the stores with. Their cycles/s are the issue's
 * own measurements on this machine (the peer bench: the same pause → approve → complete
 * cycle with a scripted model, one run, 2 cores, one cycle at a time); this bench does
 * not re-measure them.
 */
export const PEER_SOURCE =
  "peer figures: issue 24's measurements on this machine (peer bench, one run, 2 cores, one cycle at a time), not re-measured here";

/** A peer's cycles/s on a store. */
export interface PeerCycles {
  name: string;
  cyclesPerSecond: number;
}

/** ADK-JS's DatabaseSessionService on SQLite: the issue measured 15–18 cycles/s; 18 is the reference. */
export const ADK_DATABASE_SQLITE: PeerCycles = {
  name: "ADK's DatabaseSessionService on SQLite",
  cyclesPerSecond: 18,
};

/** LangGraph.js on its SqliteSaver checkpointer. */
export const LANGGRAPH_SQLITE: PeerCycles = {
  name: "LangGraph's SqliteSaver",
  cyclesPerSecond: 48,
};

/** LangGraph.js on its PostgresSaver checkpointer. */
export const LANGGRAPH_POSTGRES: PeerCycles = {
  name: "LangGraph's PostgresSaver",
  cyclesPerSecond: 14,
};

/** What a peer keeps per paused run (or checkpoint), and where the figure comes from. */
export interface PeerBytes {
  name: string;
  /** The figure as it reads. */
  figure: string;
  source: string;
}

/** The peers' bytes per paused run the issue reports the stores beside. */
export const PEER_BYTES: PeerBytes[] = [
  {
    name: 'OpenAI Agents SDK, a plain Redis key',
    figure: '3.8 KB',
    source: 'the peer measurement cited with issue 24, not re-measured here',
  },
  {
    name: 'LangGraph checkpoints',
    figure: 'hundreds of KB per checkpoint',
    source: 'as reported by users (issue 24), not measured',
  },
];
