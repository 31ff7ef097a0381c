import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiRoutesOf } from '../src/plugins/guards.ts';
import { compiledSerializerOf, responseSerializerCompiler } from '../src/plugins/response-serializer.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx.close();
});

const ZAnswer = z.object({
  success: z.literal(true),
  data: z.object({
    id: z.number().int(),
    name: z.string(),
    at: z.string().nullable(),
    kind: z.enum(['a', 'b']).nullable(),
    owner: z.object({ id: z.number().int() }).nullable(),
  }),
});
const route = { schema: ZAnswer, method: 'GET', url: '/probe', httpStatus: '200' };
const answer = { success: true, data: { id: 7, name: 'Seven', at: null, kind: 'a', owner: { id: 1 } } };

describe('the compiled response serializer', () => {
  it('compiles every API route’s response schema', () => {
    const missing: string[] = [];
    let schemas = 0;
    for (const { method, url, responses } of apiRoutesOf(ctx.app)) {
      for (const [status, schema] of Object.entries(responses)) {
        schemas++;
        if (compiledSerializerOf(schema) === null) missing.push(`${method} ${url} ${status}`);
      }
    }
    expect(schemas).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });

  it('writes what zod’s check wrote, without fields the schema does not name', () => {
    for (const checked of [true, false]) {
      const serialize = responseSerializerCompiler({ checked })(route as never);
      const withSecret = { ...answer, data: { ...answer.data, password_hash: 'x' }, extra: 1 };
      expect(serialize(withSecret)).toBe(
        '{"success":true,"data":{"id":7,"name":"Seven","at":null,"kind":"a","owner":{"id":1}}}',
      );
    }
  });

  it('refuses, where answers are checked, an answer that does not match its schema', () => {
    const serialize = responseSerializerCompiler({ checked: true })(route as never);
    expect(() => serialize({ ...answer, data: { ...answer.data, kind: 'c' } })).toThrow(
      "Response doesn't match the schema",
    );
    expect(() => serialize({ ...answer, data: { ...answer.data, name: 7 } })).toThrow(
      "Response doesn't match the schema",
    );
  });

  it('refuses, where answers are checked, a compiled serializer that writes otherwise than zod', () => {
    const wrong = () => (data: unknown) => JSON.stringify({ ...(data as object), leaked: true });
    const checked = responseSerializerCompiler({ checked: true, compile: wrong })(route as never);
    expect(() => checked(answer)).toThrow("Response doesn't match the schema");
    // In production the compiled one alone writes the answer.
    const unchecked = responseSerializerCompiler({ checked: false, compile: wrong })(route as never);
    expect(JSON.parse(unchecked(answer))).toMatchObject({ leaked: true });
  });

  it('writes a nullable object or a union member with more fields than named, as zod did', () => {
    const ZUnion = z.object({
      owner: z.object({ id: z.number() }).nullable(),
      item: z.union([z.object({ kind: z.literal('a'), a: z.number() }), z.object({ kind: z.literal('b') })]),
    });
    const serialize = responseSerializerCompiler({ checked: true })({ ...route, schema: ZUnion } as never);
    expect(serialize({ owner: { id: 1, secret: 's' }, item: { kind: 'b', b: 2, secret: 's' } })).toBe(
      '{"owner":{"id":1},"item":{"kind":"b"}}',
    );
  });

  it('answers a real route with the same JSON in production as where it is checked', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: true });
  });
});
