/**
 * `holdpoint/workflows`: ADK's workflow agents made resumable (a step that pauses stops
 * the workflow; the resumed run goes on inside that step), and what a custom agent needs
 * to checkpoint its own progress the same way (docs/resuming.md#custom-agents).
 */

export {
  agentStateEvent,
  endOfAgentEvent,
  isAgentEnded,
  loadAgentState,
} from './agents/workflows/agent-state.js';
export { LoopAgent, type LoopAgentConfig } from './agents/workflows/loop-agent.js';
export { ParallelAgent } from './agents/workflows/parallel-agent.js';
export { runStep, type StepEnd } from './agents/workflows/run-step.js';
export { SequentialAgent } from './agents/workflows/sequential-agent.js';
