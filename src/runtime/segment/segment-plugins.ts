import { BasePlugin } from '@google/adk';
import { HoldpointPlugin } from '../../agents/holdpoint-plugin.js';

/** Every callback ADK's PluginManager calls on each plugin it is given. */
const HOOKS = [
  'onUserMessageCallback',
  'beforeRunCallback',
  'onEventCallback',
  'afterRunCallback',
  'beforeAgentCallback',
  'afterAgentCallback',
  'beforeNodeCallback',
  'afterNodeCallback',
  'beforeModelCallback',
  'afterModelCallback',
  'onModelErrorCallback',
  'beforeToolSelection',
  'beforeContextCompaction',
  'afterContextCompaction',
  'beforeToolCallback',
  'afterToolCallback',
  'onToolErrorCallback',
] as const;
type Hook = (typeof HOOKS)[number];
type HookCall = (params: unknown) => Promise<unknown>;

/** The hooks each kind of plugin does something in (the base classes' versions do nothing). */
const hooksOfKind = new WeakMap<object, readonly Hook[]>();

/**
 * The hooks `part` does something in, as methods of its class (Holdpoint's plugins all
 * are): looked up once per class.
 */
function hooksOf(part: BasePlugin): readonly Hook[] {
  const kind = Object.getPrototypeOf(part) as object;
  let hooks = hooksOfKind.get(kind);
  if (!hooks) {
    const methods = kind as Record<Hook, unknown>;
    hooks = HOOKS.filter(
      (hook) =>
        methods[hook] !== BasePlugin.prototype[hook] &&
        methods[hook] !== HoldpointPlugin.prototype[hook],
    );
    hooksOfKind.set(kind, hooks);
  }
  return hooks;
}

/**
 * A segment's Runner plugins (Holdpoint's own), registered with ADK as one. ADK awaits
 * every registered plugin's every callback — before and after each run, agent, model
 * call and tool call, and on each event — though each of Holdpoint's plugins takes one
 * or two of them; as one plugin, each callback is one await, and it calls, in the
 * plugins' order, only those that take it, the first answer winning as in ADK's own
 * loop. An error a plugin throws reaches ADK as it was thrown (ADK names this plugin,
 * `holdpoint`, in what it logs and rethrows).
 */
export class SegmentPlugins extends HoldpointPlugin {
  /** The plugins, in order. */
  readonly parts: readonly BasePlugin[];

  constructor(parts: readonly BasePlugin[]) {
    super('holdpoint');
    this.parts = parts;
    const taking = new Map<Hook, BasePlugin[]>();
    for (const part of parts) {
      for (const hook of hooksOf(part)) {
        const takers = taking.get(hook);
        if (takers) takers.push(part);
        else taking.set(hook, [part]);
      }
    }
    const hooks = this as unknown as Record<Hook, HookCall>;
    for (const [hook, takers] of taking) {
      hooks[hook] = async (params) => {
        for (const part of takers) {
          const answer = await (part as unknown as Record<Hook, HookCall>)[hook].call(part, params);
          if (answer !== undefined) return answer;
        }
        return undefined;
      };
    }
  }
}
