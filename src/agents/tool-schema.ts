import { type BaseAgent, type BaseTool, isBaseTool, isFunctionTool, isLlmAgent } from '@google/adk';
import { z } from 'zod';
import { agentsOf } from './agent-tree.js';

/**
 * The tool named `name` among the tools of `root`'s agent tree (every agent's `tools`,
 * the agents of its `AgentTool`s included),
 * or undefined: a toolset's tools are only known when a run asks for them.
 */
export function findTool(root: BaseAgent, name: string): BaseTool | undefined {
  for (const agent of agentsOf(root)) {
    if (!isLlmAgent(agent)) continue;
    const tool = agent.tools.find((t) => isBaseTool(t) && t.name === name);
    if (tool) return tool as BaseTool;
  }
  return undefined;
}

/** A zod schema, v3 or v4: what `safeParse` needs. */
interface ParsingSchema {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: { path: PropertyKey[]; message: string }[] };
  };
}

function isParsing(value: unknown): value is ParsingSchema {
  return typeof (value as ParsingSchema | undefined)?.safeParse === 'function';
}

/** A FunctionTool's own `parameters` (zod or a genai Schema), as given to it. */
function parametersOf(tool: BaseTool | undefined): unknown {
  if (!tool || !isFunctionTool(tool)) return undefined;
  return (tool as unknown as { parameters?: unknown }).parameters;
}

/** A genai Schema (types `OBJECT`, `STRING`, …) as JSON Schema (lower-cased types). */
function lowerCased(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(lowerCased);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === 'type' && typeof value === 'string' ? value.toLowerCase() : lowerCased(value),
    ]),
  );
}

/**
 * A tool's arguments as JSON Schema (to build an edit form, to check a grant's fields):
 * a zod 4 schema through `z.toJSONSchema` (as input: defaults make fields optional),
 * else the declaration ADK gives the model, with lower-cased types; undefined when the
 * tool is unknown or declares none.
 */
export function argsJsonSchema(tool: BaseTool | undefined): Record<string, unknown> | undefined {
  const parameters = parametersOf(tool);
  if (parameters instanceof z.ZodType) {
    return z.toJSONSchema(parameters, { io: 'input', unrepresentable: 'any' }) as Record<
      string,
      unknown
    >;
  }
  const declared = tool?._getDeclaration()?.parameters;
  return declared ? (lowerCased(declared) as Record<string, unknown>) : undefined;
}

/** Why `value` fails a schema: the first issue's field (dotted path) and message. */
export interface SchemaIssue {
  field: string;
  message: string;
}

/** The first issue of `schema.safeParse(value)`, or undefined when it passes. */
export function schemaIssue(schema: ParsingSchema, value: unknown): SchemaIssue | undefined {
  const result = schema.safeParse(value);
  if (result.success) return undefined;
  const issue = result.error?.issues[0];
  return { field: issue?.path.map(String).join('.') ?? '', message: issue?.message ?? 'invalid' };
}

/**
 * Why `args` are no valid arguments of `tool` (its own schema: zod, or a genai Schema
 * converted with `z.fromJSONSchema`), or undefined when they are valid or the tool's
 * schema is unknown.
 */
export function argsIssue(
  tool: BaseTool | undefined,
  args: Record<string, unknown>,
): SchemaIssue | undefined {
  const parameters = parametersOf(tool);
  if (isParsing(parameters)) return schemaIssue(parameters, args);
  const json = argsJsonSchema(tool);
  if (!json) return undefined;
  let schema: ParsingSchema;
  try {
    schema = z.fromJSONSchema(json as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    // A declaration zod cannot read checks nothing here; the tool still checks its arguments.
    return undefined;
  }
  return schemaIssue(schema, args);
}
