import os from 'node:os';
import path from 'node:path';
import { newPassword } from '@sms/contracts/auth/password';
import { z } from 'zod';
import { canonicalHost } from './lib/public-address.ts';
import { StartupError } from './lib/startup-error.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

const ZDuration = z
  .string()
  .regex(/^\d+\s*[smhd]$/, 'expected a duration such as 15m, 12h or 30d')
  .transform((text) => {
    const amount = Number.parseInt(text, 10);
    const unit = text.trim().slice(-1) as 's' | 'm' | 'h' | 'd';
    return amount * { s: 1, m: 60, h: 3600, d: 86_400 }[unit];
  });

const ZRate = z.coerce.number().min(0).max(1);

const ZFlag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .transform((value) => ['1', 'true', 'yes'].includes(value));

const ZEnvironment = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().optional(),
  PUBLIC_URL: z.url().optional(),
  DATABASE_URL: z.string().min(1).optional(),
  DATABASE_APP_URL: z.string().min(1).optional(),
  DATA_DIR: z.string().default('.data'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  DATABASE_READ_URL: z.string().min(1).optional(),
  DATABASE_LISTEN_URL: z.string().min(1).optional(),
  REQUEST_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).default(5000),
  JOB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).default(60_000),
  MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).default(1000),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  ACCESS_TOKEN_TTL: ZDuration.prefault('15m'),
  REFRESH_TOKEN_TTL: ZDuration.prefault('30d'),
  ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'ENCRYPTION_KEY must be 64 hex characters (32 bytes)')
    .optional(),
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: newPassword().optional(),
  DEFAULT_COUNTRY: z.string().length(2).toUpperCase().default('KE'),
  SEED_DEMO: ZFlag.optional(),
  E2E_FRESH_DATA: ZFlag.default(false),
  LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).default(5),
  LOGIN_BLOCK_MINUTES: z.coerce.number().int().min(1).default(15),
  LOGIN_ACCOUNT_MAX_FAILURES: z.coerce.number().int().min(1).default(20),
  REFRESH_REUSE_GRACE: ZDuration.prefault('10s'),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1000),
  RATE_LIMIT_AUTH_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  RATE_LIMIT_VALIDATE_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  RATE_LIMIT_CALLBACKS_PER_SECOND: z.coerce.number().int().min(1).default(5000),
  RATE_LIMIT_CALLBACK_BAD_TOKENS_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  RATE_LIMIT_API_KEY_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  TRUST_PROXY: ZFlag.default(false),
  HSTS: ZFlag.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.string().optional(),
  CONSOLE_DIR: z.string().min(1).optional(),
  ROLE: z.enum(['api', 'worker', 'both'], { error: 'ROLE must be api, worker or both' }).default('both'),
  // Hand-over jobs mostly wait on providers: a few per core keep the cores busy.
  WORKER_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(256)
    .default(4 * os.availableParallelism()),
  WORKER_CONCURRENCY_PER_COMPANY: z.coerce.number().int().min(1).max(256).optional(),
  FANOUT_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(50_000),
  SEND_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  SEND_CLAIM_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  SEND_VALIDITY_HOURS: z.coerce.number().int().min(1).default(24),
  DELIVERY_REPORT_RETENTION_MONTHS: z.coerce.number().int().min(1).max(120).default(13),
  SIMULATOR_CALLBACK_URL: z.url().optional(),
  SIMULATOR_MESSAGES_PER_SECOND: z.coerce.number().int().min(1).default(1000),
  // Per batch a hand-over pays its job, its claim and its checks once: bigger batches spread them.
  SIMULATOR_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(5000),
  SIMULATOR_REJECT_RATE: ZRate.default(0),
  SIMULATOR_RETRY_RATE: ZRate.default(0),
  SIMULATOR_FAIL_RATE: ZRate.default(0.02),
  SIMULATOR_DELIVERY_DELAY_MS: z.coerce.number().int().min(0).default(1000),
  SIMULATOR_DLR_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
  SIMULATOR_LEDGER: z.string().min(1).optional(),
  PROVIDER_ALLOWED_PRIVATE_HOSTS: z
    .string()
    .default('')
    .transform((text) =>
      text
        .split(',')
        .map((host) => host.trim())
        .filter(Boolean),
    )
    .refine(
      (hosts) => hosts.every((host) => canonicalHost(host) !== null),
      'expected host names or IP addresses, separated by commas',
    ),
});

export type ProcessRole = 'api' | 'worker' | 'both';

/** The messaging engine's knobs (ADR 0006). */
export type MessagingConfig = {
  /** Fan-out steps and hand-over batches running at once per worker process (each kind). */
  concurrency: number;
  /** Of those, at most this many for one company (default: half). */
  concurrencyPerCompany: number;
  /** Subscribers read per fan-out step. */
  fanoutBatchSize: number;
  /** Hand-overs of one recipient the provider may answer "retry" to before it fails for good. */
  maxAttempts: number;
  /** How long a hand-over batch's claim lasts without news (hand-over.ts). */
  claimSeconds: number;
  /** A send held while its company was not active resumes on reactivation only within this many hours of its due time. */
  sendValidityHours: number;
  retentionMonths: number;
  /**
   * Private host names or addresses a company's Africa's Talking base URL or SMPP host may name
   * (an on-premises SMSC, local fakes in tests); every other private address is refused.
   */
  providerAllowedPrivateHosts: string[];
  simulator: {
    /** Where simulated delivery reports are posted (default: this process's own listener, else PUBLIC_URL). */
    callbackUrl: string | undefined;
    messagesPerSecond: number;
    batchSize: number;
    rejectRate: number;
    retryRate: number;
    failRate: number;
    deliveryDelayMs: number;
    dlrConcurrency: number;
    ledgerFile: string | undefined;
  };
};

/** Requests per client (per company for provider callbacks) before a 429; in memory, per process. */
export type RateLimits = {
  perMinute: number;
  authPerMinute: number;
  validatePerMinute: number;
  callbacksPerSecond: number;
  /** Provider-callback requests with a wrong URL (token or company) per client address. */
  callbackBadTokensPerMinute: number;
  /** Requests per API key, whatever address they come from (modules/api-keys/api-key-actor.ts). */
  apiKeyPerMinute: number;
};

export type Config = {
  port: number;
  host: string;
  publicUrl: string;
  /** The schema's owner: migrations, the job queue's schema, the demo seed. */
  databaseUrl: string | undefined;
  /** The application's own login (sms_app), which row-level security holds; required with databaseUrl. */
  databaseAppUrl: string | undefined;
  dataDir: string;
  databasePoolSize: number;
  /** A read replica (as sms_app): signed-in GET requests read there; unset, everything uses the primary. */
  databaseReadUrl: string | undefined;
  /** Where LISTEN connects (a direct connection when DATABASE_APP_URL goes through PgBouncer in transaction mode). */
  databaseListenUrl: string | undefined;
  /** statement_timeout of a request's transactions, and of the engine's and jobs' (none for migrations). */
  statementTimeouts: { requestMs: number; jobMs: number };
  /** Event-loop delay past which new requests are answered 503 (@fastify/under-pressure); 0: not checked. */
  maxEventLoopDelayMs: number;
  jwtSecret: string | undefined;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  encryptionKey: string | undefined;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  defaultCountry: string;
  seedDemo: boolean;
  freshData: boolean;
  loginMaxFailures: number;
  loginBlockMinutes: number;
  loginAccountMaxFailures: number;
  refreshReuseGraceSeconds: number;
  rateLimits: RateLimits;
  trustProxy: boolean;
  /** true: always send HSTS; false: never; undefined: only on requests that arrived over TLS. */
  hsts: boolean | undefined;
  logLevel: string;
  consoleDir: string;
  role: ProcessRole;
  messaging: MessagingConfig;
};

/** Reads the environment once; a bad value stops start-up with a line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ZEnvironment.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new StartupError(`Invalid environment: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  const embedded = !e.DATABASE_URL;
  return {
    port: e.PORT,
    // The embedded database comes with the demo sign-ins (one known password): this machine only,
    // unless HOST says otherwise. With DATABASE_URL, every interface, as a container needs.
    host: e.HOST || (embedded ? '127.0.0.1' : '0.0.0.0'),
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    databaseUrl: e.DATABASE_URL,
    databaseAppUrl: e.DATABASE_APP_URL,
    dataDir: path.resolve(ROOT, e.DATA_DIR),
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseReadUrl: e.DATABASE_READ_URL,
    databaseListenUrl: e.DATABASE_LISTEN_URL,
    statementTimeouts: { requestMs: e.REQUEST_STATEMENT_TIMEOUT_MS, jobMs: e.JOB_STATEMENT_TIMEOUT_MS },
    maxEventLoopDelayMs: e.MAX_EVENT_LOOP_DELAY_MS,
    jwtSecret: e.JWT_SECRET,
    accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL,
    refreshTokenTtlSeconds: e.REFRESH_TOKEN_TTL,
    encryptionKey: e.ENCRYPTION_KEY,
    adminEmail: e.ADMIN_EMAIL,
    adminPassword: e.ADMIN_PASSWORD,
    defaultCountry: e.DEFAULT_COUNTRY,
    // Demo data is loaded on a new embedded database unless SEED_DEMO=0; never on a real one unless asked.
    seedDemo: e.SEED_DEMO ?? embedded,
    freshData: e.E2E_FRESH_DATA,
    loginMaxFailures: e.LOGIN_MAX_FAILURES,
    loginBlockMinutes: e.LOGIN_BLOCK_MINUTES,
    loginAccountMaxFailures: e.LOGIN_ACCOUNT_MAX_FAILURES,
    refreshReuseGraceSeconds: e.REFRESH_REUSE_GRACE,
    rateLimits: {
      perMinute: e.RATE_LIMIT_PER_MINUTE,
      authPerMinute: e.RATE_LIMIT_AUTH_PER_MINUTE,
      validatePerMinute: e.RATE_LIMIT_VALIDATE_PER_MINUTE,
      callbacksPerSecond: e.RATE_LIMIT_CALLBACKS_PER_SECOND,
      callbackBadTokensPerMinute: e.RATE_LIMIT_CALLBACK_BAD_TOKENS_PER_MINUTE,
      apiKeyPerMinute: e.RATE_LIMIT_API_KEY_PER_MINUTE,
    },
    trustProxy: e.TRUST_PROXY,
    hsts: e.HSTS,
    logLevel: e.LOG_LEVEL,
    // CONSOLE_DIR lets parallel browser-test runs each serve their own build.
    consoleDir: path.resolve(ROOT, e.CONSOLE_DIR ?? 'apps/web/dist'),
    role: e.ROLE,
    messaging: {
      concurrency: e.WORKER_CONCURRENCY,
      concurrencyPerCompany: Math.min(
        e.WORKER_CONCURRENCY,
        e.WORKER_CONCURRENCY_PER_COMPANY ?? Math.max(1, Math.ceil(e.WORKER_CONCURRENCY / 2)),
      ),
      fanoutBatchSize: e.FANOUT_BATCH_SIZE,
      maxAttempts: e.SEND_MAX_ATTEMPTS,
      claimSeconds: e.SEND_CLAIM_SECONDS,
      sendValidityHours: e.SEND_VALIDITY_HOURS,
      retentionMonths: e.DELIVERY_REPORT_RETENTION_MONTHS,
      providerAllowedPrivateHosts: e.PROVIDER_ALLOWED_PRIVATE_HOSTS,
      simulator: {
        callbackUrl: e.SIMULATOR_CALLBACK_URL?.replace(/\/+$/, ''),
        messagesPerSecond: e.SIMULATOR_MESSAGES_PER_SECOND,
        batchSize: e.SIMULATOR_BATCH_SIZE,
        rejectRate: e.SIMULATOR_REJECT_RATE,
        retryRate: e.SIMULATOR_RETRY_RATE,
        failRate: e.SIMULATOR_FAIL_RATE,
        deliveryDelayMs: e.SIMULATOR_DELIVERY_DELAY_MS,
        dlrConcurrency: e.SIMULATOR_DLR_CONCURRENCY,
        ledgerFile: e.SIMULATOR_LEDGER,
      },
    },
  };
}
