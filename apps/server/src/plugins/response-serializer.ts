import fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import {
  ResponseSerializationError,
  serializerCompiler as zodSerializerCompiler,
} from 'fastify-type-provider-zod';
import { type ZodType, z } from 'zod';

type Serialize = (data: unknown) => string;
type RouteSchema = { schema: unknown; method: string; url: string; httpStatus?: string };

// A response schema's compiled serializer, shared by every app built in this process (tests build many).
const compiled = new WeakMap<object, Serialize | null>();

/**
 * The serializer compiled from a response's zod schema (its JSON Schema, fast-json-stringify),
 * null when the schema has no JSON Schema form (a transform, a date). Like zod's check, it writes
 * only the fields the schema names, so a row with more in it cannot leak them.
 */
export function compiledSerializerOf(schema: unknown): Serialize | null {
  if (!(schema instanceof z.ZodType)) return null;
  let serialize = compiled.get(schema);
  if (serialize === undefined) {
    try {
      const jsonSchema = z.toJSONSchema(schema as ZodType, { io: 'output', target: 'draft-7' });
      serialize = fastJsonStringify(withoutClosedObjects(jsonSchema) as never) as Serialize;
    } catch {
      serialize = null;
    }
    compiled.set(schema, serialize);
  }
  return serialize;
}

/**
 * The schema without `additionalProperties: false`. fast-json-stringify writes only the named
 * properties either way, but it picks an anyOf branch (a nullable object, a union) by validating the
 * value against it, and a closed object would refuse a value with more fields, where zod strips them.
 */
function withoutClosedObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutClosedObjects);
  if (schema === null || typeof schema !== 'object') return schema;
  const open: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema))
    if (!(key === 'additionalProperties' && value === false)) open[key] = withoutClosedObjects(value);
  return open;
}

/**
 * Answers are written by the serializer compiled from their schema. zod's check of every answer
 * (safeEncode, then JSON.stringify) was about 70 µs of a console read's API CPU, more for a list.
 *
 * `checked` (anywhere but production, so every test): zod still checks each answer against its
 * schema as before (an answer that does not match is a 500), and the compiled serializer's text
 * must be the same as zod's, or that too is a 500. The tests thus hold the production serializer to
 * the contracts on every answer they get.
 */
export function responseSerializerCompiler(options: {
  checked: boolean;
  compile?: (schema: unknown) => Serialize | null;
}): FastifySerializerCompiler<unknown> {
  const compile = options.compile ?? compiledSerializerOf;
  return (route) => {
    const { schema, method, url } = route as RouteSchema;
    const checkedByZod = zodSerializerCompiler(route as never) as Serialize;
    let fast: Serialize | null | undefined;
    const fastOrNull = () => {
      if (fast === undefined) fast = compile(schema);
      return fast;
    };
    if (!options.checked) return (data) => (fastOrNull() ?? checkedByZod)(data);
    return (data) => {
      const expected = checkedByZod(data);
      const serialize = fastOrNull();
      if (serialize === null) return expected;
      const written = serialize(data);
      if (written !== expected)
        throw new ResponseSerializationError(method, url, {
          cause: new Error(
            `The compiled serializer wrote ${written.slice(0, 2000)}; zod's check wrote ${expected.slice(0, 2000)}`,
          ) as never,
        });
      return written;
    };
  };
}
