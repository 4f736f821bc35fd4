import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { OPERATIONS_BY_RESOURCE, type Operation } from '../operations/index.js';
import * as wire from '../wire/index.js';

type JsonSchema = Record<string, unknown>;

/**
 * A schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect): the shared answers it holds
 * (`SHARED`) referred to in `components` rather than copied.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const {
    $schema: _,
    $defs,
    ...rest
  } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    metadata: components,
  }) as JsonSchema & { $defs?: JsonSchema };
  for (const id of Object.keys($defs ?? {})) {
    if (!(id in SHARED)) throw new Error(`${id} is not among the document's shared schemas`);
  }
  return JSON.parse(JSON.stringify(rest).replaceAll('"#/$defs/', '"#/components/schemas/'));
}

/** The shared answers, each in the form `components.schemas` holds it. */
function componentSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(components, {
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _, $id: __, ...schema }]) => [id, schema]),
  );
}

/** The package's version: the document describes the API of this release. */
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** The answers shared by several operations: in `components`, referred to by name. */
const SHARED = {
  Approvers: wire.approvers,
  Approval: wire.approval,
  SessionApproval: wire.sessionApproval,
  Decision: wire.decision,
  PendingApproval: wire.pendingApproval,
  Outcome: wire.outcome,
  Run: wire.run,
  Session: wire.session,
  UiMessage: wire.uiMessage,
  AuditLine: wire.auditLine,
  Error: wire.error,
};
const components = z.registry<{ id: string }>();
for (const [id, schema] of Object.entries(SHARED)) components.add(schema, { id });

/** `/api/runs/:invocationId` as OpenAPI writes it: `/api/runs/{invocationId}`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

const errorAnswer = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** One query parameter per field of the query's schema. */
function queryParameters(query: z.ZodType): unknown[] {
  const schema = jsonSchema(query, 'input') as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    schema: property,
  }));
}

function operationObject(operation: Operation, tag: string) {
  const pathParameters = [...operation.path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const answer =
    operation.answer instanceof z.ZodNever
      ? {}
      : { 'application/json': { schema: jsonSchema(operation.answer, 'output') } };
  const also = operation.alsoAnswers;
  return {
    operationId: operation.name,
    tags: [tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    ...(operation.public ? { security: [] } : {}),
    parameters: [...pathParameters, ...(operation.query ? queryParameters(operation.query) : [])],
    ...(operation.body
      ? {
          requestBody: {
            required: !operation.optionalBody,
            content: { 'application/json': { schema: jsonSchema(operation.body, 'input') } },
          },
        }
      : {}),
    responses: {
      '200': {
        description: also ? `The answer; ${also.description}` : 'The answer.',
        content: {
          ...answer,
          ...(also ? { [also.contentType]: { schema: { type: 'string' } } } : {}),
        },
      },
      ...(operation.status
        ? {
            '503': {
              description: 'The store does not answer.',
              content: answer,
            },
          }
        : {
            '400': errorAnswer('The request is invalid (`INVALID_JSON`, `VALIDATION_FAILED`, …).'),
            default: errorAnswer('An error, by its stable code (docs/http-api.md, "Errors").'),
          }),
    },
  };
}

/**
 * The REST API as an OpenAPI 3.1 document, generated from the operations' definitions
 * and the wire schemas (zod 4's JSON Schema output): what `GET /api/openapi.json`
 * serves. Paths are relative to where the API is mounted.
 */
export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [tag, operations] of Object.entries(OPERATIONS_BY_RESOURCE)) {
    for (const operation of operations) {
      const path = openApiPath(operation.path);
      paths[path] = { ...paths[path], [operation.method]: operationObject(operation, tag) };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Holdpoint HTTP API',
      version: PACKAGE_VERSION,
      description:
        'Durable pause, approve and resume for ADK agents. Identity, browser rules, limits, streams, idempotency and errors: docs/http-api.md.',
    },
    tags: Object.keys(OPERATIONS_BY_RESOURCE).map((name) => ({ name })),
    // One of them, by the server's identity mode (a host's own hook: whatever it reads).
    security: [{ bearer: [] }, { devUser: [] }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`api-keys` mode) or a JWT (`jwt` mode).',
        },
        devUser: {
          type: 'apiKey',
          in: 'header',
          name: 'x-holdpoint-user',
          description:
            'The `dev` mode (loopback only): who the caller is; `x-holdpoint-roles` gives roles.',
        },
      },
      schemas: componentSchemas(),
    },
    paths,
  };
}
