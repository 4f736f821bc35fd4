/**
 * The REST API's wire contract, declared once in zod: request bodies and queries, and
 * the answers the presenters build. The routes validate with it, the presenters are
 * typed by it, the OpenAPI document is generated from it, and the web UI and the CLI
 * import its types. A leaf: it depends on zod and core's limits only, nothing of Node.
 */
export * from './approvals.js';
export * from './audit.js';
export * from './deliveries.js';
export * from './requests.js';
export * from './runs.js';
export * from './server.js';
export * from './sessions.js';
export * from './store.js';
