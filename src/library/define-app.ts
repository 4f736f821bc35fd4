import type { BaseAgent } from '@google/adk';
import { z } from 'zod';
import type {
  AgentApp,
  ApprovalHint,
  ApprovalPolicy,
  ApprovalRules,
  ToolDecisionRules,
} from '../agents/agent-app.js';
import { agentsOf } from '../agents/agent-tree.js';
import { silentSkips } from '../agents/silent-skips.js';
import { HoldpointError } from '../core/errors.js';
import type { Approvers, LinkPolicy, NotifyRule, SlaPolicy } from '../core/types.js';
import { idText } from '../core/validate.js';

/** How one tool's approvals look and how long a waiting stream holds them. */
export interface ApprovalSettings extends ApprovalPolicy {
  /** What a person sees: text, or text made from the call's arguments. */
  hint?: string | ApprovalHint;
  /**
   * Running this tool twice has the same effect as once (e.g. it passes
   * `idempotencyKey(toolContext)` to an API that honours it). A run recovered after a
   * crash then runs an approved call of it again without asking; otherwise a call
   * that started and left no result in the effect ledger is asked about again.
   */
  idempotent?: boolean;
  /**
   * Who may decide this tool's approvals. Default: the session's owner or an admin.
   * Given, only those it names: the owner (when `owner`, which defaults to true only
   * when neither `roles` nor `users` are given), anyone with one of `roles`, any of
   * `users`. `quorum` distinct people must approve (default 1; one denial decides);
   * `requesterMayApprove: false` keeps the person who started the run from approving
   * their own call (if they are among the approvers they may still deny it; if not,
   * they cancel the run as the session's owner).
   */
  approvers?: ApproverSettings;
  /** Who is told when one waits, and through which channels (default: its approvers, every channel). */
  notify?: NotifyRule;
  /** Reminders, escalation and the deadline, counted from when it was asked. */
  sla?: SlaSettings;
  /** Decision links: the signed link is enough (`link`, default) or the approver signs in too. */
  links?: LinkPolicy;
  /**
   * A decider may change the call's arguments before approving it: all of them (`true`)
   * or only these top-level fields. The edit is checked against the tool's own schema
   * (VALIDATION_FAILED names the field) and the tool runs with it. Default: no edits.
   */
  editable?: boolean | string[];
  /**
   * Whether an edit from the arguments the decider saw to the ones they set needs one
   * more approver (for example, a raised amount): the edit counts as its author's
   * approval, and someone else must approve the edited call too. It is asked twice when
   * someone edited the call before: from the current arguments and from the model's; a
   * yes to either needs the approver (lowering another person's raise is still a raise).
   */
  editNeedsApproval?: (seen: Record<string, unknown>, edited: Record<string, unknown>) => boolean;
  /**
   * A decider may answer in the tool's place: the answer becomes the tool's result and the
   * tool does not run. `{ schema }` checks the answer (a zod schema). Default: not allowed.
   */
  respond?: boolean | { schema: z.ZodType };
  /**
   * A decider may approve and allow later calls of this tool without a pause, for the
   * session or for the user, for at most `maxHours`, on calls whose arguments match what
   * they name. Default: no grants (a payment tool should leave it so).
   */
  grants?: { scopes?: ('session' | 'user')[]; maxHours: number };
}

/**
 * A tool's approval SLA: remind after `remind.afterSeconds` (then every `everySeconds`,
 * `times` reminders in all: default 1, or 3 with `everySeconds`); each `escalate` step
 * (in increasing `afterSeconds`) lets its roles and users decide too; at the
 * `deadline` the approval is denied, left waiting (`park`), or escalated to its next step.
 */
export interface SlaSettings {
  remind?: { afterSeconds: number; everySeconds?: number; times?: number };
  escalate?: { afterSeconds: number; to: { roles?: string[]; users?: string[] } }[];
  deadline?: { afterSeconds: number; action: 'deny' | 'park' | 'escalate' };
}

/** Who may decide a tool's approvals (see `ApprovalSettings.approvers`). */
export interface ApproverSettings {
  owner?: boolean;
  roles?: string[];
  users?: string[];
  quorum?: number;
  requesterMayApprove?: boolean;
}

/** What the host tells an app that builds its agent on demand. */
export interface AppHost {
  /**
   * The host's model setting: `rules` for the offline scripted models, otherwise a
   * model name such as `gemini-2.5-flash`. An app with its own model may ignore it.
   */
  model: string;
}

/** An app: an unchanged ADK agent, and how its approvals are shown to people. */
export interface AppDefinition {
  /** Stable id, 1–100 of `a-z 0-9 - _ .`; clients name the app by it. */
  name: string;
  /** One line for people choosing an app. */
  description?: string;
  /** Display name; defaults to `name`. */
  label?: string;
  /** Messages to try, shown by the web UI. */
  examples?: string[];
  /** The root agent, or a function that builds it for the host's model setting. */
  agent: BaseAgent | ((host: AppHost) => BaseAgent);
  /** Per tool name: its approval hint, and what a long wait becomes. */
  approvals?: Record<string, ApprovalSettings>;
  /**
   * Fingerprints of earlier versions of this app (their agent tree and tools, as
   * `GET /api/apps` shows them) whose paused or interrupted runs this version may go
   * on with. A run of any other version is refused with APP_CHANGED.
   */
  compatibleWith?: string[];
  /**
   * Who is told of the approvals of every tool whose `approvals` entry has no `notify`
   * of its own, and through which channels (a tool's own rule replaces it).
   */
  notify?: NotifyRule;
}

/** What `defineApp` returns; an app module's default export. */
export interface HoldpointApp extends Readonly<AppDefinition> {
  readonly [APP_BRAND]: true;
}

/** Marks defined apps; global, so apps defined with another copy of this package count. */
const APP_BRAND: unique symbol = Symbol.for('holdpoint.app') as never;

const approverSettings = z
  .strictObject({
    owner: z.boolean().optional(),
    roles: z.array(idText).max(50).optional(),
    users: z.array(idText).max(200).optional(),
    quorum: z.number().int().min(1).max(10).optional(),
    requesterMayApprove: z.boolean().optional(),
  })
  .refine(
    (a) =>
      (a.roles?.length ?? 0) > 0 ||
      (a.quorum ?? 1) <= (a.users?.length ?? 0) + (approversOf(a).owner ? 1 : 0),
    { message: 'names fewer people than its quorum, or nobody at all' },
  );

/** At most a year, in whole seconds: an SLA step is a business delay, not a timer. */
const slaSeconds = z
  .number()
  .int()
  .min(1)
  .max(365 * 24 * 3600);

const slaSettings = z.strictObject({
  remind: z
    .strictObject({
      afterSeconds: slaSeconds,
      everySeconds: slaSeconds.optional(),
      times: z.number().int().min(1).max(100).optional(),
    })
    .optional(),
  escalate: z
    .array(
      z.strictObject({
        afterSeconds: slaSeconds,
        to: z
          .strictObject({
            roles: z.array(idText).max(50).optional(),
            users: z.array(idText).max(200).optional(),
          })
          .refine((to) => (to.roles?.length ?? 0) + (to.users?.length ?? 0) > 0, {
            message: 'names nobody',
          }),
      }),
    )
    .min(1)
    .max(10)
    .refine(
      (steps) =>
        steps.every((step, i) => i === 0 || (steps[i - 1]?.afterSeconds ?? 0) < step.afterSeconds),
      {
        message: 'steps must come in increasing afterSeconds',
      },
    )
    .optional(),
  deadline: z
    .strictObject({ afterSeconds: slaSeconds, action: z.enum(['deny', 'park', 'escalate']) })
    .optional(),
});

const notifySettings = z.strictObject({
  channels: z
    .array(z.string().regex(/^[a-z0-9][a-z0-9._-]{0,49}$/, 'a channel name'))
    .max(20)
    .optional(),
  to: z
    .array(
      z.string().regex(/^(user|role):[^\s]{1,200}$/, "an audience: 'user:<id>' or 'role:<name>'"),
    )
    .max(200)
    .optional(),
});

const approvalSettings = z.strictObject({
  hint: z.union([z.string().min(1).max(2000), z.function()]).optional(),
  timeoutSeconds: z.number().positive().optional(),
  onTimeout: z.enum(['deny', 'park']).optional(),
  idempotent: z.boolean().optional(),
  approvers: approverSettings.optional(),
  notify: notifySettings.optional(),
  sla: slaSettings.optional(),
  links: z.enum(['link', 'link+sign-in']).optional(),
  editable: z.union([z.boolean(), z.array(z.string().min(1).max(200)).min(1).max(100)]).optional(),
  editNeedsApproval: z.function().optional(),
  respond: z
    .union([
      z.boolean(),
      z.strictObject({
        schema: z.custom<z.ZodType>((value) => value instanceof z.ZodType, 'a zod schema'),
      }),
    ])
    .optional(),
  grants: z
    .strictObject({
      scopes: z
        .array(z.enum(['session', 'user']))
        .min(1)
        .max(2)
        .optional(),
      maxHours: z
        .number()
        .positive()
        .max(365 * 24),
    })
    .optional(),
});

/** What a tool's settings let its deciders answer, or undefined when only approve and reject. */
function decisionRulesOf(settings: ApprovalSettings): ToolDecisionRules | undefined {
  const { editable, editNeedsApproval, respond, grants } = settings;
  const rules: ToolDecisionRules = {
    ...(editable === true && { editable: true as const }),
    ...(Array.isArray(editable) && { editable: [...editable] }),
    ...(editable && editNeedsApproval && { editNeedsApproval }),
    ...(respond && { respond: true as const }),
    ...(typeof respond === 'object' && { respondSchema: respond.schema }),
    ...(grants && {
      grants: { scopes: grants.scopes ?? ['session', 'user'], maxHours: grants.maxHours },
    }),
  };
  return Object.keys(rules).length > 0 ? rules : undefined;
}

/** The SLA policy `settings` describe, with the reminders' count filled in. */
function slaPolicyOf(settings: SlaSettings): SlaPolicy {
  const { remind, escalate, deadline } = settings;
  return {
    ...(remind && {
      remind: {
        afterSeconds: remind.afterSeconds,
        ...(remind.everySeconds !== undefined && { everySeconds: remind.everySeconds }),
        times: remind.times ?? (remind.everySeconds ? 3 : 1),
      },
    }),
    ...(escalate && {
      escalate: escalate.map((step) => ({
        afterSeconds: step.afterSeconds,
        to: { roles: step.to.roles ?? [], users: step.to.users ?? [] },
      })),
    }),
    ...(deadline && { deadline: { ...deadline } }),
  };
}

/** The policy `settings` describe, with its defaults filled in. */
function approversOf(settings: ApproverSettings): Approvers {
  const { roles = [], users = [] } = settings;
  return {
    owner: settings.owner ?? (roles.length === 0 && users.length === 0),
    roles,
    users,
    quorum: settings.quorum ?? 1,
    requesterMayApprove: settings.requesterMayApprove ?? true,
  };
}

const appDefinition = z.strictObject({
  name: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9._-]{0,99}$/,
      'use 1–100 of a-z 0-9 - _ . starting with a letter or digit',
    ),
  description: z.string().max(500).optional(),
  label: z.string().min(1).max(100).optional(),
  examples: z.array(z.string().min(1).max(500)).max(20).optional(),
  agent: z.custom<AppDefinition['agent']>(
    (value) => typeof value === 'function' || isAgent(value),
    'an ADK agent (e.g. an LlmAgent) or a function returning one',
  ),
  approvals: z.record(z.string().min(1).max(200), approvalSettings).optional(),
  notify: notifySettings.optional(),
  compatibleWith: z
    .array(z.string().regex(/^[0-9a-f]{16}$/, 'a fingerprint'))
    .max(100)
    .optional(),
});

function isAgent(value: unknown): value is BaseAgent {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as BaseAgent).runAsync === 'function' &&
    typeof (value as BaseAgent).name === 'string'
  );
}

function invalidApp(message: string): HoldpointError {
  return new HoldpointError('INVALID_APP', message);
}

/**
 * Declares an app for Holdpoint to serve: an ADK agent written exactly as ADK's docs
 * show, plus how its approvals look. Validates the definition (INVALID_APP names the
 * field); the agent itself is used as it is.
 */
export function defineApp(definition: AppDefinition): HoldpointApp {
  const parsed = appDefinition.safeParse(definition);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = typeof definition?.name === 'string' ? ` ${definition.name}` : '';
    throw invalidApp(`App${name}: ${issue?.path.join('.') || 'definition'}: ${issue?.message}`);
  }
  // An agent built by a function is checked when it is built (resolveApp).
  if (isAgent(definition.agent)) {
    refuseSilentSkips(definition.name, definition.agent, definition.approvals);
  }
  return Object.freeze({ ...definition, [APP_BRAND]: true as const });
}

/** Whether `value` came from `defineApp` (this copy of Holdpoint or another). */
export function isHoldpointApp(value: unknown): value is HoldpointApp {
  return typeof value === 'object' && value !== null && APP_BRAND in value;
}

/** Builds the app's agent for `host` when it is a function; INVALID_APP when that fails. */
function buildAgent(app: HoldpointApp, host: AppHost): unknown {
  if (typeof app.agent !== 'function') return app.agent;
  try {
    return app.agent(host);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw invalidApp(`App ${app.name}: its agent function threw: ${why}`);
  }
}

/**
 * The names of the tools the agent tree declares (its AgentTools' agents' too), or
 * undefined when a toolset (whose
 * tools are known only at run time) makes the list incomplete.
 */
export function declaredToolNames(root: BaseAgent): Set<string> | undefined {
  const names = new Set<string>();
  for (const agent of agentsOf(root)) {
    const tools = (agent as { tools?: unknown[] }).tools ?? [];
    for (const tool of tools) {
      const name = (tool as { name?: unknown }).name;
      if (typeof name !== 'string') return undefined;
      names.add(name);
    }
  }
  return names;
}

/**
 * Refuses an app whose agent tree has a tool that waits for a person where its run
 * cannot pause (`silentSkips`): INVALID_APP naming each such tool and why.
 */
function refuseSilentSkips(name: string, agent: BaseAgent, approvals: object | undefined): void {
  const skips = silentSkips(agent, new Set(Object.keys(approvals ?? {})));
  if (skips.length > 0) throw invalidApp(`App ${name}: ${skips.join('; ')}.`);
}

/** The app as the runtime runs it, with its agent built for `host` when it is a function. */
export function resolveApp(app: HoldpointApp, host: AppHost): AgentApp {
  const rootAgent = buildAgent(app, host);
  if (!isAgent(rootAgent)) {
    throw invalidApp(`App ${app.name}: its agent function did not return an ADK agent.`);
  }
  refuseSilentSkips(app.name, rootAgent, app.approvals);
  const hints: Record<string, ApprovalHint> = {};
  const approvalPolicies: Record<string, ApprovalPolicy> = {};
  const idempotentTools = new Set<string>();
  const approvers: Record<string, Approvers> = {};
  const approvalRules: Record<string, ApprovalRules> = {};
  const decisionRules: Record<string, ToolDecisionRules> = {};
  for (const [tool, settings] of Object.entries(app.approvals ?? {})) {
    const { hint, timeoutSeconds, onTimeout, idempotent } = settings;
    if (typeof hint === 'string') hints[tool] = () => hint;
    else if (hint) hints[tool] = hint;
    approvalPolicies[tool] = { timeoutSeconds, onTimeout };
    if (idempotent) idempotentTools.add(tool);
    if (settings.approvers) approvers[tool] = approversOf(settings.approvers);
    const rules = decisionRulesOf(settings);
    if (rules) decisionRules[tool] = rules;
    const { notify, sla, links } = settings;
    if (notify || sla || links) {
      approvalRules[tool] = {
        ...(notify && { notify: { ...notify } }),
        ...(sla && { sla: slaPolicyOf(sla) }),
        ...(links && { links }),
      };
    }
  }
  return {
    name: app.name,
    label: app.label ?? app.name,
    description: app.description ?? '',
    examples: app.examples ?? [],
    rootAgent,
    hints,
    approvalPolicies,
    approvers,
    approvalRules,
    decisionRules,
    idempotentTools,
    compatibleWith: new Set(app.compatibleWith ?? []),
    ...(app.notify && { notify: { ...app.notify } }),
  };
}
