import path from 'node:path';
import pg from 'pg';
import ts from 'typescript';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { databaseUrl, withAdmin } from './support/database-url.ts';

/**
 * db/schema.ts is written by hand (its types say what the driver returns: bigint as number,
 * numeric as string), so this test holds it to the migrated database: every table it maps has
 * exactly the database's columns, each with the database's type and nullability, and each column
 * the database fills in (a default, an identity) may be left out of an insert.
 */
const SCHEMA_FILE = path.join(import.meta.dirname, '../src/db/schema.ts');

/** Tables reached only by SQL (the search's statements, the engine functions, the migrator), not through Kysely's DB. */
const UNMAPPED = [
  'delivery_report_inbox',
  'message_search_entries',
  'message_search_known_words',
  'message_search_text',
  'message_search_vocabulary',
  'message_status_counts',
  'recipient_gateway_ids',
  'schema_functions',
  'schema_migrations',
  'service_keyword_claims',
];

/** What node-postgres gives for each type, with the parsers of db/database.ts. */
const DRIVER_TYPE: Record<string, string> = {
  int2: 'number',
  int4: 'number',
  int8: 'number',
  numeric: 'string',
  text: 'string',
  bpchar: 'string',
  uuid: 'string',
  bool: 'boolean',
  bytea: 'Buffer',
  timestamptz: 'Date',
  date: 'Date',
  jsonb: 'json',
};

/** optionalOnInsert: may an insert leave it out. The database fills in a default or a null, so a
 * nullable column without a default may be either (Kysely's own choice: required unless marked). */
type Column = { type: string; nullable: boolean; optionalOnInsert: boolean | 'either' };

const { adminUrl, template } = inject('database');
const clone = `sms_drift_${process.pid}_${Date.now().toString(36)}`;

afterAll(() => withAdmin(adminUrl, (admin) => admin.query(`drop database if exists ${clone} with (force)`)));

describe('db/schema.ts', () => {
  it('maps every table the migrations make, column for column', async () => {
    await withAdmin(adminUrl, (admin) => admin.query(`create database ${clone} template ${template}`));
    const db = new pg.Client({ connectionString: databaseUrl(adminUrl, clone) });
    await db.connect();
    try {
      const database = await databaseColumns(db);
      const mapped = schemaColumns();
      expect(Object.keys(mapped).sort()).toEqual(
        Object.keys(database)
          .filter((table) => !UNMAPPED.includes(table))
          .sort(),
      );
      const differences: string[] = [];
      for (const [table, columns] of Object.entries(mapped)) {
        const names = new Set([...Object.keys(columns), ...Object.keys(database[table] ?? {})]);
        for (const name of names) {
          const inSchema = columns[name];
          const inDatabase = database[table]?.[name];
          if (!inSchema || !inDatabase) {
            differences.push(`${table}.${name}: ${inSchema ? 'not in the database' : 'not in schema.ts'}`);
            continue;
          }
          for (const key of ['type', 'nullable', 'optionalOnInsert'] as const) {
            if (key === 'optionalOnInsert' && inDatabase.optionalOnInsert === 'either') continue;
            if (inSchema[key] !== inDatabase[key])
              differences.push(
                `${table}.${name}: ${key} is ${inSchema[key]} in schema.ts, ${inDatabase[key]} in the database`,
              );
          }
        }
      }
      expect(differences).toEqual([]);
    } finally {
      await db.end();
    }
  });
});

async function databaseColumns(db: pg.Client) {
  const { rows } = await db.query<{
    table_name: string;
    column_name: string;
    udt_name: string;
    is_nullable: 'YES' | 'NO';
    column_default: string | null;
    is_identity: 'YES' | 'NO';
    is_generated: string;
    table_type: string;
  }>(`select c.table_name, c.column_name, c.udt_name, c.is_nullable, c.column_default, c.is_identity,
             c.is_generated, t.table_type
        from information_schema.columns c
        join information_schema.tables t using (table_schema, table_name)
       where c.table_schema = 'public'
         and not exists (select 1 from pg_inherits i where i.inhrelid = (quote_ident(c.table_name))::regclass)
       order by c.table_name, c.column_name`);
  const tables: Record<string, Record<string, Column>> = {};
  for (const row of rows) {
    const isArray = row.udt_name.startsWith('_');
    // bigint[] reads as string[] (db/database.ts parses int8, not its arrays); schema.ts says
    // number[] and the repositories cast (::int[]) where they read one.
    const base = DRIVER_TYPE[isArray ? row.udt_name.slice(1) : row.udt_name] ?? `?${row.udt_name}`;
    const isView = row.table_type === 'VIEW';
    tables[row.table_name] ??= {};
    tables[row.table_name][row.column_name] = {
      type: isArray ? `${base}[]` : base,
      // A view's columns read as nullable whatever they hold; schema.ts says what they hold.
      nullable: isView ? false : row.is_nullable === 'YES',
      optionalOnInsert: isView
        ? false
        : row.column_default !== null || row.is_identity === 'YES' || row.is_generated === 'ALWAYS'
          ? true
          : row.is_nullable === 'YES'
            ? 'either'
            : false,
    };
  }
  return tables;
}

/** The DB type of schema.ts, read with the TypeScript checker: each table's columns as the database's. */
function schemaColumns() {
  const program = ts.createProgram([SCHEMA_FILE], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(SCHEMA_FILE);
  if (!source) throw new Error(`cannot read ${SCHEMA_FILE}`);
  const dbAlias = source.statements.find(
    (statement): statement is ts.TypeAliasDeclaration =>
      ts.isTypeAliasDeclaration(statement) && statement.name.text === 'DB',
  );
  if (!dbAlias) throw new Error('schema.ts has no DB type');
  const tables: Record<string, Record<string, Column>> = {};
  for (const table of checker.getTypeAtLocation(dbAlias).getProperties()) {
    const tableType = checker.getTypeOfSymbol(table);
    tables[table.name] = {};
    for (const column of tableType.getProperties()) {
      const columnType = checker.getTypeOfSymbol(column);
      const select = part(checker, columnType, '__select__') ?? columnType;
      const insert = part(checker, columnType, '__insert__') ?? columnType;
      const selected = describeType(checker, select);
      tables[table.name][column.name] = {
        type: selected.type,
        nullable: selected.nullable,
        optionalOnInsert: describeType(checker, insert).undefinable,
      };
    }
  }
  return tables;
}

/** A part of Kysely's ColumnType<Select, Insert, Update>, or undefined for a plain type. */
function part(checker: ts.TypeChecker, type: ts.Type, name: string) {
  const symbol = type.getProperty(name);
  return symbol ? checker.getTypeOfSymbol(symbol) : undefined;
}

function describeType(checker: ts.TypeChecker, type: ts.Type) {
  const members = type.isUnion() ? type.types : [type];
  const nullable = members.some((member) => member.flags & ts.TypeFlags.Null);
  // never: an insert cannot give it at all (a generated column), so it leaves it out.
  const undefinable = members.some((member) => member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Never));
  const unknown = members.some((member) => member.flags & ts.TypeFlags.Unknown);
  const names = new Set(
    members
      .filter((member) => !(member.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)))
      .map((member) => baseName(checker, member)),
  );
  // unknown (a JSON value) holds null as well as anything else.
  return { type: [...names].sort().join(' | '), nullable: nullable || unknown, undefinable };
}

function baseName(checker: ts.TypeChecker, type: ts.Type): string {
  if (type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return 'json';
  if (type.flags & ts.TypeFlags.BooleanLiteral) return 'boolean';
  if (type.flags & (ts.TypeFlags.StringLike | ts.TypeFlags.StringLiteral)) return 'string';
  if (type.flags & (ts.TypeFlags.NumberLike | ts.TypeFlags.NumberLiteral)) return 'number';
  if (checker.isArrayType(type)) {
    const [element] = checker.getTypeArguments(type as ts.TypeReference);
    return `${baseName(checker, element)}[]`;
  }
  const name = type.getSymbol()?.getName() ?? type.aliasSymbol?.getName();
  if (name === 'Date' || name === 'Buffer') return name;
  // Record<string, unknown> and other object shapes: a JSON object.
  return 'json';
}
