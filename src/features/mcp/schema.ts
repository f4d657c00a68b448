/**
 * Tool input schemas from the OpenAPI description (the one source of every field, enum and limit):
 * an operation's path and query parameters and its JSON body's properties become one flat object
 * schema, every `$ref` inlined, OpenAPI-only keywords left out. The Idempotency-Key header becomes
 * an optional `idempotencyKey` (svc makes one when it is not given).
 */
import type { OpenAPIV3_1 } from 'openapi-types';

export type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

type Document = OpenAPIV3_1.Document;
type Parameter = OpenAPIV3_1.ParameterObject;

let documentPromise: Promise<Document> | undefined;

/** The description the build generated from openapi/openapi.yaml. */
function apiDocument(): Promise<Document> {
  documentPromise ??= import('../../api/generated/openapi.json', { with: { type: 'json' } }).then((module) => module.default as unknown as Document);
  return documentPromise;
}

/** Keywords of OpenAPI that are not JSON Schema (or that a tool's caller does not need). */
const DROPPED = new Set(['example', 'discriminator', 'xml', 'externalDocs', 'readOnly', 'writeOnly', 'deprecated']);

/** A schema with every `$ref` replaced by what it names (the description has no recursive schemas). */
function inlined(document: Document, schema: unknown, depth = 0): unknown {
  if (depth > 32) throw new Error('schema nests too deeply');
  if (Array.isArray(schema)) return schema.map((item) => inlined(document, item, depth + 1));
  if (typeof schema !== 'object' || schema === null) return schema;
  const record = schema as Record<string, unknown>;
  if (typeof record.$ref === 'string') {
    const { $ref, ...rest } = record;
    return { ...(inlined(document, resolve(document, $ref), depth + 1) as object), ...(inlined(document, rest, depth + 1) as object) };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    // `properties` names fields: a field may be called anything, so its names are not keywords.
    out[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([name, field]) => [name, inlined(document, field, depth + 1)])) : inlined(document, value, depth + 1);
  }
  return out;
}

function resolve(document: Document, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`external $ref ${ref}`);
  let node: unknown = document;
  for (const part of ref.slice(2).split('/')) node = (node as Record<string, unknown>)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  if (node === undefined) throw new Error(`unresolved $ref ${ref}`);
  return node;
}

function operation(document: Document, operationId: string): OpenAPIV3_1.OperationObject {
  for (const item of Object.values(document.paths ?? {})) {
    for (const candidate of Object.values(item ?? {})) {
      if (typeof candidate === 'object' && candidate !== null && (candidate as OpenAPIV3_1.OperationObject).operationId === operationId) return candidate as OpenAPIV3_1.OperationObject;
    }
  }
  throw new Error(`no operation ${operationId} in the description`);
}

/** What a tool's arguments are, and where each goes in the request. */
export interface OperationInput {
  schema: JsonSchema;
  /** path parameters, in order */
  path: string[];
  query: string[];
  body: string[];
  /** whether the operation takes an Idempotency-Key */
  idempotent: boolean;
}

/** The input schema of an operation's tool: its parameters and body fields, as the description has them. */
export async function operationInput(operationId: string): Promise<OperationInput> {
  const document = await apiDocument();
  const op = operation(document, operationId);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const input: OperationInput = { schema: { type: 'object', properties, required }, path: [], query: [], body: [], idempotent: false };
  for (const raw of op.parameters ?? []) {
    const parameter = inlined(document, raw) as Parameter;
    if (parameter.in === 'header') {
      if (parameter.name.toLowerCase() !== 'idempotency-key') continue;
      input.idempotent = true;
      properties.idempotencyKey = { ...(parameter.schema as JsonSchema), description: 'Idempotency-Key: the same key replays the first answer instead of acting twice; made by svc and returned when not given.' };
      continue;
    }
    properties[parameter.name] = { ...(parameter.schema as JsonSchema), ...(parameter.description ? { description: parameter.description } : {}) };
    if (parameter.required) required.push(parameter.name);
    (parameter.in === 'path' ? input.path : input.query).push(parameter.name);
  }
  const body = (op.requestBody as OpenAPIV3_1.RequestBodyObject | undefined)?.content?.['application/json']?.schema;
  if (body) {
    const schema = inlined(document, body) as JsonSchema;
    for (const [name, field] of Object.entries(schema.properties ?? {})) {
      if (name in properties) throw new Error(`${operationId}: body field ${name} has the name of a parameter`);
      properties[name] = field;
      input.body.push(name);
    }
    required.push(...(schema.required ?? []));
  }
  return input;
}

/** A named schema of the description's components, inlined, with a description of its use here. */
export async function componentSchema(name: string, description?: string): Promise<JsonSchema> {
  const document = await apiDocument();
  const schema = inlined(document, { $ref: `#/components/schemas/${name}` }) as JsonSchema;
  return description ? { ...schema, description } : schema;
}
