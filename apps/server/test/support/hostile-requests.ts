import fc from 'fast-check';

/**
 * Arbitraries (fast-check) for hostile requests: values shaped like a route's OpenAPI schema
 * (what the route expects, so validation is passed and the handler is reached), each one liable
 * to be swapped for garbage, and garbage of every kind around them (bodies, query strings,
 * headers, path segments). Used by hostile-input.test.ts; `npm run fuzz` runs it longer.
 */

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
};

/** Values that have broken parsers, ORMs and SQL before: edges of every type, and the wrong types. */
const HOSTILE_SCALARS: unknown[] = [
  null,
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '😀'.repeat(200),
  'x'.repeat(70_000),
  '-1',
  '0',
  '1e309',
  'NaN',
  'Infinity',
  '9'.repeat(40),
  '0x1F',
  '2026-02-30T25:61:00Z',
  '+2547000000000000000000',
  "' or 1=1 --",
  '"; drop table users; --',
  '%00%ff%',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  '\r\nX-Injected: 1',
  -1,
  0,
  -0,
  1.5,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  true,
  false,
  [],
  {},
  [null],
  { __proto__: { admin: true } },
  JSON.parse('{"__proto__": {"polluted": true}}'),
];

export const hostileScalar = fc.constantFrom(...HOSTILE_SCALARS);
export const garbageValue = fc.oneof(
  { weight: 2, arbitrary: hostileScalar },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);

function numberBounds(schema: JsonSchema, integer: boolean) {
  const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1e6);
  const high = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1e6);
  const clamp = (value: number) => Math.max(-(2 ** 31) + 1, Math.min(2 ** 31 - 1, value));
  return integer ? { min: clamp(Math.ceil(low)), max: clamp(Math.floor(high)) } : { min: low, max: high };
}

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'date-time')
    return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
  if (schema.format === 'date')
    return fc.date({ noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));
  if (schema.format === 'uri' || schema.format === 'url') return fc.webUrl();
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern), { size: 'small' });
    } catch {
      // A pattern JavaScript cannot read: plain strings below.
    }
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 30, 60));
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength }) },
    // One past each bound: the edges a schema is there to refuse.
    {
      weight: 1,
      arbitrary: fc.constantFrom('x'.repeat(maxLength + 1), 'x'.repeat(Math.max(0, minLength - 1))),
    },
  );
}

/**
 * Values a field of that name must have to get past the handler's own checks (a real service id,
 * a valid phone number, a keyword): without them nearly every shaped request stops at a 400 or 404.
 */
export type Hints = Record<string, fc.Arbitrary<unknown>>;

/** A value shaped like the schema (mostly valid), any node of which may be garbage instead. */
export function valueFor(
  schema: JsonSchema | undefined,
  hints: Hints = {},
  key?: string,
  depth = 0,
): fc.Arbitrary<unknown> {
  const shaped = shapedValueFor(schema, hints, depth);
  const hinted = key !== undefined ? hints[key] : undefined;
  if (hinted)
    return fc.oneof(
      { weight: 6, arbitrary: hinted },
      { weight: 2, arbitrary: shaped },
      { weight: 1, arbitrary: garbageValue },
    );
  return fc.oneof({ weight: 6, arbitrary: shaped }, { weight: 1, arbitrary: garbageValue });
}

function shapedValueFor(schema: JsonSchema | undefined, hints: Hints, depth: number): fc.Arbitrary<unknown> {
  if (!schema || depth > 5) return fc.jsonValue({ maxDepth: 2 });
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length)
    return fc.oneof(...alternatives.map((each) => valueFor(each, hints, undefined, depth + 1)));
  if (schema.allOf?.length) return valueFor(schema.allOf[0], hints, undefined, depth + 1);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1)
    return fc.oneof(...types.map((type) => shapedValueFor({ ...schema, type }, hints, depth)));
  switch (types[0]) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer(numberBounds(schema, true));
    case 'number':
      return fc.double({ ...numberBounds(schema, false), noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueFor(schema.items, hints, undefined, depth + 1), {
        minLength: Math.min(schema.minItems ?? 0, 5),
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    case 'object': {
      const properties = schema.properties ?? {};
      const keys = Object.keys(properties);
      if (keys.length === 0) return fc.dictionary(fc.string({ maxLength: 10 }), garbageValue, { maxKeys: 4 });
      const record = fc.record(
        Object.fromEntries(keys.map((key) => [key, valueFor(properties[key], hints, key, depth + 1)])),
        { requiredKeys: schema.required?.filter((key) => keys.includes(key)) ?? [] },
      );
      // Sometimes a required field goes missing or an unknown one comes along.
      return fc.oneof(
        { weight: 4, arbitrary: record },
        {
          weight: 1,
          arbitrary: fc
            .tuple(record, fc.subarray(keys), fc.dictionary(fc.string({ maxLength: 12 }), garbageValue))
            .map(([value, dropped, extra]) => {
              const copy: Record<string, unknown> = { ...(value as object), ...extra };
              for (const key of dropped) delete copy[key];
              return copy;
            }),
        },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A body as the wire carries it: a payload and the content type it claims. */
export type WireBody = { payload?: string | Buffer; contentType?: string };

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/x-www-form-urlencoded',
  'text/plain',
  'text/csv',
  'multipart/form-data; boundary=fuzz',
  'multipart/form-data',
  'application/octet-stream',
  'application/xml',
  'application/json; charset=latin1',
  '*/*',
  ';;;',
];

function formEncode(value: unknown) {
  if (value === null || typeof value !== 'object') return String(value);
  const form = new URLSearchParams();
  for (const [key, item] of Object.entries(value as Record<string, unknown>))
    form.append(key, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item));
  return form.toString();
}

const multipartBody = fc
  .record({
    boundary: fc.constantFrom('fuzz', '', '--', 'x'.repeat(80)),
    field: fc.constantFrom('file', 'csv', 'other', ''),
    filename: fc.constantFrom('numbers.csv', '', '../../x.csv', 'a\u0000.csv'),
    content: fc.oneof(
      fc.constant('phone\n+254700000001\n+254700000002\n'),
      fc.string({ maxLength: 200 }),
      fc.constant('phone\n'.padEnd(5000, ',')),
    ),
    closed: fc.boolean(),
  })
  .map(({ boundary, field, filename, content, closed }) => ({
    contentType: `multipart/form-data; boundary=${boundary}`,
    payload:
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\n` +
      `Content-Type: text/csv\r\n\r\n${content}\r\n${closed ? `--${boundary}--\r\n` : ''}`,
  }));

/** What a route's body might be: none, its own shape (JSON or a form), garbage, or broken framing. */
export function wireBodyFor(schema: JsonSchema | undefined, hints: Hints = {}): fc.Arbitrary<WireBody> {
  const shaped = valueFor(schema, hints);
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<WireBody>({}) },
    {
      weight: 6,
      arbitrary: shaped.map((value) => ({
        payload: JSON.stringify(value) ?? '',
        contentType: 'application/json',
      })),
    },
    {
      weight: 2,
      arbitrary: shaped.map((value) => ({
        payload: formEncode(value),
        contentType: 'application/x-www-form-urlencoded',
      })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(...CONTENT_TYPES))
        .map(([value, contentType]) => ({ payload: JSON.stringify(value), contentType })),
    },
    {
      weight: 2,
      // Malformed JSON and plain junk under any content type.
      arbitrary: fc
        .tuple(
          fc.oneof(
            fc.constantFrom('{', '{"a":', '[1,2', '{"a":1}}', 'null', '"str"', '{"a":1,"a":2}', '\ufeff{}'),
            fc.string({ unit: 'binary', maxLength: 100 }),
          ),
          fc.constantFrom(...CONTENT_TYPES),
        )
        .map(([payload, contentType]) => ({ payload, contentType })),
    },
    { weight: 1, arbitrary: multipartBody },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 200 })
        .map((bytes) => ({ payload: Buffer.from(bytes), contentType: 'application/json' })),
    },
  );
}

/** Percent-encoded, a lone surrogate as U+FFFD (encodeURIComponent throws on one; the broken escapes are sent raw elsewhere). */
const encode = (text: string) => encodeURIComponent(text.replace(/[\ud800-\udfff]/gu, '\ufffd'));

/** Query parameters named as the route reads them with shaped or garbage values, repeated keys, or junk. */
export function queryFor(
  parameters: { name: string; schema?: JsonSchema }[],
  hints: Hints = {},
): fc.Arbitrary<string> {
  const toText = (value: unknown) =>
    typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
  // Each parameter at most once (one bad value is enough to refuse the rest), sometimes one twice.
  const named =
    parameters.length === 0
      ? fc.constant('')
      : fc
          .tuple(fc.subarray(parameters), fc.option(fc.constantFrom(...parameters), { freq: 5 }))
          .chain(([picked, twice]) =>
            fc.tuple(
              ...[...picked, ...(twice ? [twice] : [])].map((parameter) =>
                valueFor(parameter.schema, hints, parameter.name).map(
                  (value) => `${encode(parameter.name)}=${encode(toText(value))}`,
                ),
              ),
            ),
          )
          .map((pairs) => pairs.join('&'));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant('') },
    { weight: 5, arbitrary: named },
    { weight: 1, arbitrary: fc.webQueryParameters() },
    {
      weight: 1,
      arbitrary: fc.constantFrom('%', '%zz', 'a=%E0%A4%A', 'a[b][c]=1', '__proto__[x]=1', 'a=1&&&=', '%00=1'),
    },
  );
}

/** A path segment where the route expects an id or a token: real ones come from the test. */
export const hostileSegment = fc.oneof(
  fc.constantFrom(
    '0',
    '-1',
    '1.5',
    '1e3',
    '9'.repeat(30),
    '9223372036854775808',
    'null',
    '%00',
    '%zz',
    'abc',
  ),
  fc.string({ minLength: 1, maxLength: 30 }).map(encode),
  fc.integer({ min: 1_000_000, max: 2 ** 31 - 1 }).map(String),
);

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 80,
});

/** Headers a client controls, besides the body's content type and the credentials. */
export const extraHeaders = fc.dictionary(
  fc.constantFrom(
    'accept',
    'accept-language',
    'accept-encoding',
    'x-forwarded-for',
    'x-request-id',
    'idempotency-key',
    'cookie',
    'origin',
    'if-none-match',
    'range',
    'user-agent',
    'content-encoding',
    'x-http-method-override',
  ),
  printable,
  { maxKeys: 3 },
);

/** An Authorization header nobody was given: malformed, forged or of the wrong scheme. */
export const forgedAuthorization = fc.oneof(
  fc.constantFrom(
    'Bearer',
    'Bearer ',
    'bearer x',
    'Basic dXNlcjpwYXNz',
    // alg none, and a token signed with another key.
    'Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiIxIiwicm9sZSI6InN5c3RlbV9hZG1pbiJ9.',
    'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIiwicm9sZSI6InN5c3RlbV9hZG1pbiJ9.c2lnbmF0dXJl',
    'Bearer smsk_live_short',
    'Bearer smsk_live_abcdefgh_0000000000000000000000000000000000000000000',
  ),
  printable.map((text) => `Bearer ${text}`),
);
