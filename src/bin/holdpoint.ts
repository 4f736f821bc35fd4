import { type HoldpointConfig, loadConfig } from '../config/config.js';
import { HoldpointError, isHoldpointError } from '../core/errors.js';
import { nearMiss } from '../core/near-miss.js';
import { ADMIN_ROLE, type Principal } from '../core/principal.js';
import { idText, validate } from '../core/validate.js';
import { writeAuditKeyPair } from '../main/audit-keygen.js';
import { readConfigFile } from '../main/config-file.js';
import { type AuditFileCheck, verifyAuditFile } from '../main/verify-audit-file.js';
import type { RunOutcome } from '../runtime/run-outcome.js';
import { type Identity, newApiKey, requireIdentity } from '../transports/auth/index.js';
import { API_USAGE, apiCallText, operationsText } from '../transports/cli/api-command.js';
import { runChat } from '../transports/cli/chat.js';
import type { ChatBackend } from '../transports/cli/chat-backend.js';
import { listGrantsText, revokeGrantText } from '../transports/cli/grants-command.js';
import { HttpChatBackend } from '../transports/cli/http-backend.js';
import { RuntimeChatBackend } from '../transports/cli/runtime-backend.js';
import { type HttpCredentials, ServerUnusableError } from '../transports/cli/server-request.js';
import { USAGE } from './usage.js';

// The server, the in-process chat and `db` load ADK and the stores (over a second of
// CPU): they are imported where those commands run, so the REST clients (`api`,
// `grants`, `chat --url`), `audit`, `keys` and `--help` start without them.

/** Takes every `--name value` out of argv, returning their values. */
function takeFlags(argv: string[], name: string): string[] {
  const values: string[] = [];
  for (let value = takeFlag(argv, name); value !== undefined; value = takeFlag(argv, name)) {
    values.push(value);
  }
  return values;
}

/** Takes `--name value` out of argv, returning its value. */
function takeFlag(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(`--${name}`);
  if (index < 0) return undefined;
  const [, value] = argv.splice(index, 2);
  return value;
}

/** A module path rather than an app's name. */
function isModulePath(value: string): boolean {
  return /[\\/]/.test(value) || /\.[mc]?[jt]s$/.test(value);
}

/** What a resumed run led to, for the terminal. */
function describeOutcome(outcome: RunOutcome): string {
  const head = `Run ${outcome.invocationId} (session ${outcome.sessionId})`;
  if (outcome.status === 'completed') return `${head} completed.\n${outcome.result}`;
  const asked = outcome.approvals.map((a) => `  - ${a.approvalId} ${a.toolName}: ${a.hint}`);
  return [`${head} is waiting for approval:`, ...asked].join('\n');
}

/** Roles as the command line gives them: comma-separated. */
function rolesOf(flag: string | undefined): string[] {
  return (flag ?? '')
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);
}

/**
 * Who a command acts as: the principal `--token` proves to the configured identity;
 * without one, in `dev` mode (or for an operator's command, `operatorRoles`), the
 * `--user` (default $USER) with `--roles`. In `api-keys` and `jwt` modes a chat needs
 * a token.
 */
async function commandCaller(
  identity: Identity,
  who: { user?: string; roles?: string; token?: string },
  operatorRoles: string[],
): Promise<Principal> {
  if (who.token) {
    const request = new Request('http://holdpoint.cli/', {
      headers: { authorization: `Bearer ${who.token}` },
    });
    return requireIdentity(identity, { request });
  }
  if (identity.mode !== 'dev' && operatorRoles.length === 0) {
    throw new HoldpointError(
      'UNAUTHENTICATED',
      `Sign-in is ${identity.mode}: give --token (an API key or a token for this server).`,
    );
  }
  const id = validate(idText, who.user ?? process.env.USER ?? 'cli');
  return { id, roles: [...new Set([...rolesOf(who.roles), ...operatorRoles])] };
}

/** A running server's address as `--url` gives it: http(s) only. */
function serverUrl(url: string): string {
  if (!/^https?:\/\/[^/]/.test(url)) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `--url must be a server's http(s) address: ${url}`,
    );
  }
  return url.replace(/\/+$/, '');
}

/**
 * How a command proves who it is to a running server: `--token`, else (the server's dev
 * mode) `--user` (default $USER) with `--roles`.
 */
function credentialsOf(who: { user?: string; roles?: string; token?: string }): HttpCredentials {
  // Both given, one would be dropped unsaid: the server would answer for a caller not meant.
  if (who.token !== undefined && (who.user !== undefined || who.roles !== undefined)) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      '--token or --user with --roles, not both: --user names the caller of a server in dev mode, --token signs in to any other.',
    );
  }
  return who.token
    ? { token: who.token }
    : {
        user: validate(idText, who.user ?? process.env.USER ?? 'cli'),
        roles: rolesOf(who.roles),
      };
}

/**
 * `holdpoint chat --url`: the chat on a running server, over its REST API, signed in with
 * `--token`, else (the server's dev mode) as `--user` (default $USER) with `--roles`.
 */
async function chatOverHttp(
  url: string,
  who: { user?: string; roles?: string; token?: string },
  chosen: string | undefined,
  sessionId: string | undefined,
  rest: string[],
): Promise<void> {
  serverUrl(url);
  if (rest.length > 0 || (chosen !== undefined && isModulePath(chosen))) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `With --url the server runs the apps: chat takes --app NAME, --session, --user, --roles and --token only (not ${[...rest, chosen ?? ''].join(' ').trim()}).`,
    );
  }
  const backend: ChatBackend = await HttpChatBackend.connect(url, credentialsOf(who));
  const app = chosen ?? backend.appNames[0];
  if (!app || !backend.appNames.includes(app)) {
    throw new HoldpointError(
      'UNKNOWN_APP',
      `Unknown app ${app} at ${url}. Known apps: ${backend.appNames.join(', ')}.`,
    );
  }
  await runChat({ backend, app, sessionId, input: process.stdin, output: process.stdout });
}

const GRANTS_USAGE =
  'usage: holdpoint grants list [--of USER] | holdpoint grants revoke GRANT_ID; either with [--url URL] [--user NAME --roles a,b | --token TOKEN]';

/**
 * `holdpoint grants list` and `holdpoint grants revoke`: a running server's grants, over
 * its REST API (`--url`, default the local server on its default port), as the caller.
 */
async function grantsCommand(rest: string[]): Promise<void> {
  const [action] = rest.splice(0, 1);
  const url = serverUrl(takeFlag(rest, 'url') ?? 'http://127.0.0.1:3000');
  const of = action === 'list' ? takeFlag(rest, 'of') : undefined;
  const credentials = credentialsOf({
    user: takeFlag(rest, 'user'),
    roles: takeFlag(rest, 'roles'),
    token: takeFlag(rest, 'token'),
  });
  let printed: string | undefined;
  if (action === 'list' && rest.length === 0) {
    const ofUser = of === undefined ? undefined : validate(idText, of);
    printed = await listGrantsText(url, credentials, ofUser, Date.now());
  }
  const [grantId, ...extra] = rest;
  if (
    printed === undefined &&
    action === 'revoke' &&
    grantId !== undefined &&
    !grantId.startsWith('--') &&
    extra.length === 0
  ) {
    const revoked = await revokeGrantText(url, credentials, validate(idText, grantId), Date.now());
    printed = `Revoked:\n${revoked}`;
  }
  if (printed === undefined) throw new HoldpointError('VALIDATION_FAILED', GRANTS_USAGE);
  // A one-shot command: the HTTP client's idle keep-alive connections must not keep it alive.
  process.stdout.write(`${printed}\n`, () => process.exit(0));
}

/**
 * `holdpoint api`: every operation of the REST API, from their definitions; with an
 * operation's name, a call of it on a running server (`--url`, as the caller `grants`
 * is), its JSON answer printed. Whatever fails — the command given wrong, an input its
 * wire schema refuses, the server's refusal — is printed with its code, exit 1.
 */
async function apiCommand(rest: string[]): Promise<void> {
  let printed: string;
  try {
    const url = serverUrl(takeFlag(rest, 'url') ?? 'http://127.0.0.1:3000');
    const credentials = credentialsOf({
      user: takeFlag(rest, 'user'),
      roles: takeFlag(rest, 'roles'),
      token: takeFlag(rest, 'token'),
    });
    const args = {
      params: takeFlags(rest, 'param'),
      query: takeFlags(rest, 'query'),
      body: takeFlag(rest, 'body'),
    };
    const [name, ...extra] = rest;
    const given = args.params.length > 0 || args.query.length > 0 || args.body !== undefined;
    if (name === undefined && !given) {
      printed = operationsText();
    } else if (name === undefined || name.startsWith('--') || extra.length > 0) {
      const unknown = name?.startsWith('--') ? name : extra[0];
      const named = unknown === undefined ? '' : `holdpoint api takes no ${unknown}; `;
      throw new HoldpointError('VALIDATION_FAILED', `${named}${API_USAGE}`);
    } else {
      printed = await apiCallText(url, credentials, name, args, process.stdin);
    }
  } catch (error) {
    if (!isHoldpointError(error)) throw error;
    process.stderr.write(`holdpoint: ${error.code}: ${error.message}\n`, () => process.exit(1));
    return;
  }
  // A one-shot command: the HTTP client's idle keep-alive connections must not keep it alive.
  process.stdout.write(`${printed}\n`, () => process.exit(0));
}

/** `n` and `noun`, plural unless one: `1 line`, `2 lines`. */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** What checking an exported audit log found, for the terminal. */
function describeCheck(check: AuditFileCheck, checkpointFile?: string): string {
  if (!check.ok && check.line === 0) return `The audit export does not verify: ${check.reason}.`;
  if (!check.ok) return `The audit chain is broken at line ${check.line}: ${check.reason}.`;
  const chain = `The audit chain holds: ${counted(check.lines, 'line')}.`;
  const against = check.checkpoints;
  if (!against) return chain;
  if (!against.ok) {
    return `${chain}\nCheckpoint ${against.checkpoint} of ${checkpointFile} fails: ${against.reason}.`;
  }
  const heads = against.heads === 1 ? 'the 1 head' : `all ${counted(against.heads, 'head')}`;
  const matched = `It contains ${heads} of its sessions in ${counted(against.checkpoints, 'signed checkpoint')}.`;
  const unnamed = check.unnamed
    ? `\nNo checkpoint names session ${check.unnamed}: the checkpoints show nothing about it.`
    : '';
  return `${chain}\n${matched}${unnamed}`;
}

const AUDIT_USAGE =
  'usage: holdpoint audit verify FILE|- [--session ID] [--checkpoints FILE (--public-key PEM | --key PEM)…] | holdpoint audit keygen --out FILE';

/** `holdpoint audit verify` and `holdpoint audit keygen`. */
async function auditCommand(rest: string[]): Promise<void> {
  const [action] = rest.splice(0, 1);
  if (action === 'keygen') {
    const out = takeFlag(rest, 'out');
    if (out === undefined || rest.length > 0)
      throw new HoldpointError('VALIDATION_FAILED', AUDIT_USAGE);
    // A key that exists is not a command given wrong: say so without the usage.
    const written = await writeAuditKeyPair(out).catch((error: unknown) => {
      if (!isHoldpointError(error)) throw error;
      process.stderr.write(`holdpoint: ${error.code}: ${error.message}\n`);
      process.exitCode = 1;
    });
    if (!written) return;
    process.stdout.write(
      `Wrote the audit signing key ${written.privatePath} (keep it secret, away from the store)\n` +
        `and its public key ${written.publicPath} (give it to whoever verifies): ${written.keyId}\n`,
    );
    return;
  }
  const checkpointFile = takeFlag(rest, 'checkpoints');
  const keys = [...takeFlags(rest, 'public-key'), ...takeFlags(rest, 'key')];
  // A --session with no id after it is a command given wrong, not a check of no session.
  const sessionAsked = rest.includes('--session');
  const session = takeFlag(rest, 'session');
  const [file, ...extra] = rest;
  const sessionMissing = sessionAsked && (session === undefined || session === '');
  if (action !== 'verify' || file === undefined || extra.length > 0 || sessionMissing) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `audit verify needs an exported audit log: a file, or - for stdin.\n${AUDIT_USAGE}`,
    );
  }
  if ((checkpointFile === undefined) !== (keys.length === 0)) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      '--checkpoints needs the key they are signed with (--public-key FILE, or --key FILE), and a key needs --checkpoints.',
    );
  }
  const checkpoints = checkpointFile === undefined ? undefined : { file: checkpointFile, keys };
  const check = await verifyAuditFile(file, process.stdin, { session, checkpoints });
  process.stdout.write(`${describeCheck(check, checkpointFile)}\n`);
  if (!check.ok || check.checkpoints?.ok === false) process.exitCode = 1;
}

/** Flags, then environment, then the config file, then defaults. */
async function configFrom(argv: string[], env: NodeJS.ProcessEnv): Promise<HoldpointConfig> {
  const first = loadConfig(argv, env);
  return loadConfig(argv, env, await readConfigFile(first.config));
}

/** The commands, as `main` takes them. */
const COMMANDS = [
  'init',
  'serve',
  'chat',
  'keys',
  'resume',
  'db',
  'audit',
  'grants',
  'api',
  'help',
];

async function main(argv: string[]): Promise<void> {
  // Flags with no command before them are `serve`'s (`holdpoint --port 4000`).
  const [command = 'serve', ...rest] = argv[0]?.startsWith('-') ? ['serve', ...argv] : argv;
  if (command === 'help' || rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!COMMANDS.includes(command)) {
    const meant = nearMiss(command, COMMANDS);
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `Unknown command '${command}'${meant ? `: did you mean ${meant}?` : '.'}`,
      { command, ...(meant && { suggestion: meant }) },
    );
  }
  if (command === 'init') {
    const [dir = '.', ...extra] = rest;
    if (dir.startsWith('-') || extra.length > 0) {
      throw new HoldpointError('VALIDATION_FAILED', 'usage: holdpoint init [DIR]');
    }
    const { initProject } = await import('../main/init-project.js');
    const written = initProject(dir);
    const where = dir === '.' ? '' : `cd ${dir} && `;
    process.stdout.write(
      `Wrote ${written.join(', ')} into ${dir === '.' ? 'this directory' : dir}.\n` +
        `Next: ${where}npm install && npm start, then open http://localhost:3000 and ask "Send 20 to Ann".\n`,
    );
    return;
  }
  if (command === 'serve') {
    const { startServer } = await import('../main/serve.js');
    const server = await startServer(await configFrom(rest, process.env));
    const stop = () => {
      server.close().finally(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  if (command === 'keys') {
    const [verb] = rest.splice(0, 1);
    const principal = takeFlag(rest, 'principal');
    const roles = rolesOf(takeFlag(rest, 'roles'));
    if (verb !== 'new' || !principal || rest.length > 0) {
      throw new HoldpointError(
        'VALIDATION_FAILED',
        'usage: holdpoint keys new --principal NAME [--roles a,b]',
      );
    }
    const { key, entry } = newApiKey(validate(idText, principal), roles);
    process.stdout.write(
      `API key for ${principal} (shown once; keep it secret):\n${key}\n\n` +
        `Add this entry to the keys file ({ "keys": [ … ] }):\n${JSON.stringify(entry)}\n`,
    );
    return;
  }
  if (command === 'chat') {
    const chosen = takeFlag(rest, 'app');
    const sessionId = takeFlag(rest, 'session');
    const url = takeFlag(rest, 'url');
    const who = {
      user: takeFlag(rest, 'user'),
      roles: takeFlag(rest, 'roles'),
      token: takeFlag(rest, 'token'),
    };
    if (url !== undefined) {
      await chatOverHttp(url, who, chosen, sessionId, rest);
      return;
    }
    const flags = chosen && isModulePath(chosen) ? [...rest, '--app', chosen] : rest;
    const config = await configFrom(flags, {
      ...process.env,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    });
    const { holdpointFromConfig } = await import('../main/holdpoint-from-config.js');
    const { holdpoint, runtime, identity } = await holdpointFromConfig(config);
    const app = chosen && !isModulePath(chosen) ? chosen : runtime.apps[0]?.name;
    try {
      if (!app || !runtime.appNames.includes(app)) {
        throw new HoldpointError(
          'UNKNOWN_APP',
          `Unknown app ${app}. Known apps: ${runtime.appNames.join(', ')}.`,
        );
      }
      const caller = await commandCaller(identity, who, []);
      await runChat({
        backend: new RuntimeChatBackend(runtime, caller),
        app,
        sessionId,
        input: process.stdin,
        output: process.stdout,
      });
    } finally {
      // The Holdpoint's close: the runtime's, then the last audit checkpoint.
      await holdpoint.close();
    }
    return;
  }
  if (command === 'resume') {
    const who = { user: takeFlag(rest, 'user'), token: takeFlag(rest, 'token') };
    const invocationId = rest[0]?.startsWith('--') === false ? rest.shift() : undefined;
    if (!invocationId) {
      throw new HoldpointError('VALIDATION_FAILED', 'resume needs the invocation id of a run.');
    }
    const config = await configFrom(rest, {
      ...process.env,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    });
    const { holdpointFromConfig } = await import('../main/holdpoint-from-config.js');
    const { holdpoint, runtime, identity } = await holdpointFromConfig(config);
    let printed: string;
    try {
      // Whoever runs this command holds the store's credentials: an operator.
      const caller = await commandCaller(identity, who, [ADMIN_ROLE]);
      printed = describeOutcome(await runtime.operations.recoverRun({ invocationId }, caller));
    } finally {
      // The Holdpoint's close: the runtime's, then the last audit checkpoint.
      await holdpoint.close();
    }
    // A one-shot command: app modules may hold connections of their own open.
    process.stdout.write(`${printed}\n`, () => process.exit(0));
    return;
  }
  if (command === 'db') {
    const [action] = rest.splice(0, 1);
    const toText = action === 'migrate' ? takeFlag(rest, 'to') : undefined;
    if ((action !== 'migrate' && action !== 'stats') || rest[0]?.startsWith('--') === false) {
      throw new HoldpointError(
        'VALIDATION_FAILED',
        'usage: holdpoint db migrate [--to VERSION] | holdpoint db stats',
      );
    }
    const to = toText === undefined ? undefined : Number(toText);
    if (to !== undefined && !(Number.isInteger(to) && to > 0)) {
      throw new HoldpointError(
        'VALIDATION_FAILED',
        `--to must be a schema version (1, 2, …): ${toText}`,
      );
    }
    const config = await configFrom(rest, {
      ...process.env,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    });
    const { migrateDatabase, storeStatsJson } = await import('../main/db-commands.js');
    const printed =
      action === 'migrate' ? await migrateDatabase(config, to) : await storeStatsJson(config);
    // A one-shot command: a pool's idle connections must not keep it alive.
    process.stdout.write(`${printed}\n`, () => process.exit(0));
    return;
  }
  if (command === 'audit') {
    await auditCommand(rest);
    return;
  }
  if (command === 'grants') {
    await grantsCommand(rest);
    return;
  }
  if (command === 'api') {
    await apiCommand(rest);
    return;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const unusable = error instanceof ServerUnusableError;
  const message = isHoldpointError(error)
    ? `${error.code}: ${error.message}`
    : unusable
      ? error.message
      : String(error);
  // A command given wrong is told where help is (never the whole of it); an unknown
  // command or option exits 2, as a command line's usage errors do.
  const givenWrong = isHoldpointError(error, 'VALIDATION_FAILED');
  const mistyped = givenWrong && (error.details?.command ?? error.details?.option) !== undefined;
  const help = givenWrong ? ' (holdpoint --help lists the commands and options)' : '';
  process.stderr.write(`holdpoint: ${message}${help}\n`);
  process.exit(mistyped ? 2 : 1);
});
