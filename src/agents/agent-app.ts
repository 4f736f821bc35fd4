import type { BaseAgent } from '@google/adk';
import type { EffectLedger } from '../core/effect-ledger.js';

/** An example application: an ADK agent tree plus how to present its approvals. */
export interface AgentApp {
  /** Stable app id, e.g. 'image-studio', 'payments', 'picker'. */
  name: string;
  description: string;
  rootAgent: BaseAgent;
  /** Human-readable hint shown with an approval, per tool name. */
  hints: Record<string, (args: Record<string, unknown>) => string>;
  /** How long a continuous stream waits for each tool's approval, and what then. */
  approvalPolicies?: Record<string, ApprovalPolicy>;
}

/**
 * What a long wait for a person becomes, per tool: `deny` records a denial with
 * reason "timed out"; `park` ends the waiting stream and keeps the pause stored.
 */
export interface ApprovalPolicy {
  timeoutSeconds?: number;
  onTimeout?: 'deny' | 'park';
}

/** What every app factory needs. */
export interface AgentAppOptions {
  /** 'rules' for the offline deterministic model, otherwise a Gemini model name. */
  model: 'rules' | string;
  /** Makes each approved side effect happen once. */
  effects: EffectLedger;
}

/** The offline deterministic model's setting value. */
export const RULES_MODEL = 'rules';
