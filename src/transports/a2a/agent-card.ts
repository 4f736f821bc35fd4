import type { AgentCard } from '@a2a-js/sdk';
import type { AppSummary } from '../../runtime/holdpoint-runtime.js';
import { A2A_VERSIONS } from './json-rpc.js';

/**
 * An app's A2A agent card: its name, what it does and its examples (one skill), the
 * JSON-RPC endpoint `url` in each A2A version it speaks (1.0 and 0.3), streaming, no
 * push notifications; its version the app's fingerprint (its agent tree and tools), which
 * changes when they do.
 */
export function agentCardOf(app: AppSummary, url: string): AgentCard {
  return {
    name: app.label,
    description: app.description,
    supportedInterfaces: A2A_VERSIONS.map((protocolVersion) => ({
      url,
      protocolBinding: 'JSONRPC',
      tenant: '',
      protocolVersion,
    })),
    provider: undefined,
    version: app.fingerprint,
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: app.name,
        name: app.label,
        description: app.description,
        tags: ['human-in-the-loop'],
        examples: app.examples,
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['text/plain', 'application/json'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
