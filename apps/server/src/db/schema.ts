import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Kysely's view of the tables in db/migrations, as node-postgres returns them (db/database.ts's
 * parsers: bigint as number). test/schema-drift.test.ts fails when it drifts from the migrated database.
 */
/** A timestamp the database fills in when an insert leaves it out (a default). */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** A timestamp every insert gives. */
type GivenTimestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Id = Generated<number>;
type Counter = ColumnType<number, number | undefined, number>;

export type CompaniesTable = {
  id: Id;
  name: string;
  email: string;
  phone_number: string;
  address: string;
  plan: Generated<string>;
  status: Generated<string>;
  /** The provider kind in use; its settings are in company_provider_settings (0007). */
  sms_provider: Generated<string>;
  default_country: Generated<string>;
  package_name: Generated<string>;
  package_expires_at: NullableTimestamp;
  billing_status: Generated<string>;
  /** The company's own limits; null means its plan's (plans/plan-catalogue.ts, resolvePlanLimits). */
  messages_limit: number | null;
  subscribers_limit: number | null;
  services_limit: number | null;
  monthly_revenue: ColumnType<string, string | number | undefined, string | number>;
  last_active_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
};

/** One row per provider kind a company configured; the secret is encrypted apart (0007). */
export type CompanyProviderSettingsTable = {
  company_id: number;
  kind: string;
  settings: ColumnType<Record<string, unknown>, string | undefined, string>;
  secret_encrypted: string | null;
  updated_at: Timestamp;
};

export type UsersTable = {
  id: Id;
  company_id: number | null;
  name: string;
  email: string;
  password_hash: string;
  role: string;
  status: Generated<string>;
  last_login_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
};

export type RefreshTokensTable = {
  id: Id;
  user_id: number;
  family_id: string;
  token_hash: Buffer;
  expires_at: GivenTimestamp;
  used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  ip_address: string | null;
  user_agent: string | null;
  created_at: Timestamp;
  /** The token that replaced this one, encrypted: handed out again to a reuse within the grace period. */
  successor_token: string | null;
};

export type LoginThrottleTable = {
  throttle_key: string;
  failures: number;
  window_started_at: GivenTimestamp;
  blocked_until: NullableTimestamp;
};

export type PlatformSecretsTable = { name: string; value: string; created_at: Timestamp };

export type CompanyCallbackTokensTable = {
  company_id: number;
  callback_type: 'subscription' | 'dlr';
  token_hash: Buffer;
  token_encrypted: string;
  created_at: Timestamp;
};

export type ServicesTable = {
  id: Id;
  company_id: number;
  name: string;
  shortcode: string;
  keyword: string;
  description: Generated<string>;
  billing_type: Generated<string>;
  status: Generated<string>;
  subscriber_count: Counter;
  message_count: Counter;
  last_activity_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
};

export type SubscribersTable = {
  id: Id;
  company_id: number;
  msisdn: string;
  /** The number backwards (generated), for a search by its last digits on an index. */
  msisdn_reversed: ColumnType<string | null, never, never>;
  status: Generated<string>;
  /** Merge fields of personalised sends: first_name, language... (migration 0058). */
  attributes: ColumnType<Record<string, string>, string | undefined, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
};

export type SubscriptionsTable = {
  company_id: number;
  service_id: number;
  subscriber_id: number;
  status: Generated<string>;
  source: Generated<string>;
  subscribed_at: Timestamp;
  unsubscribed_at: NullableTimestamp;
};

export type CompanySubscriberCountsTable = {
  company_id: number;
  status: string;
  subscriber_count: Counter;
};

export type MessagesTable = {
  id: Id;
  company_id: number;
  service_id: number | null;
  service_ids: ColumnType<number[], number[] | undefined, number[]>;
  direction: Generated<string>;
  content: string;
  msisdn: string | null;
  status: string;
  scheduled_at: NullableTimestamp;
  sent_at: NullableTimestamp;
  recipient_count: number | null;
  queue_job_id: string | null;
  provider_message_id: string | null;
  created_by: number | null;
  /** GSM-7 or UCS-2 and the SMS parts per recipient (outbound only). */
  encoding: 'GSM-7' | 'UCS-2' | null;
  parts: number | null;
  /** A cancelled scheduled message: when, and by whom (their name kept as it was). */
  cancelled_at: NullableTimestamp;
  cancelled_by: number | null;
  cancelled_by_name: string | null;
  /** The merge fields its text uses (migration 0058); none for a plain text. */
  merge_fields: ColumnType<string[], string[] | undefined, string[]>;
  created_at: Timestamp;
  updated_at: Timestamp;
};

/** A company's saved text with placeholders (migration 0058, modules/templates). */
export type MessageTemplatesTable = {
  company_id: number;
  id: Id;
  name: string;
  body: string;
  created_by: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
};

export type TDeliveryStatusColumn =
  | 'pending'
  | 'submitted'
  | 'sent'
  | 'delivered'
  | 'failed'
  | 'rejected'
  | 'expired';

/**
 * One recipient of an outbound message (migration 0006), partitioned by month on created_at: the
 * moment its message's fan-out began, the same for every row of one message (message_sends.recipients_at).
 * Filter by company_id, message_id and created_at to reach one partition.
 */
export type DeliveryReportsTable = {
  company_id: number;
  created_at: Timestamp;
  message_id: number;
  /** Also the idempotency key of the provider hand-off. */
  id: Id;
  service_id: number | null;
  subscriber_id: number | null;
  next_attempt_at: NullableTimestamp;
  submitted_at: NullableTimestamp;
  delivered_at: NullableTimestamp;
  updated_at: Timestamp;
  parts: Generated<number>;
  attempts: Generated<number>;
  status: ColumnType<TDeliveryStatusColumn, TDeliveryStatusColumn | undefined, TDeliveryStatusColumn>;
  recipient_phone: string;
  gateway_message_id: string | null;
  provider_status: string | null;
  error_message: string | null;
  /** How many parts' delivery reports the recipient waits for (migration 0057); null: one. */
  report_parts: number | null;
  /** The parts reported delivered so far, of a recipient with report_parts. */
  delivered_parts: number[] | null;
  /** The hand-over got no answer (a time-out): counted as submitted until a report settles it. */
  outcome_unknown_since: NullableTimestamp;
};

/** A company's keys for the REST API (migration 0054): only the key's hash and prefix are kept. */
export type ApiKeysTable = {
  company_id: number;
  id: Id;
  name: string;
  prefix: string;
  key_hash: Buffer;
  scopes: string[];
  created_by: number;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
};

/** A hand-over batch's claim on its range of recipients while a run holds it (migration 0055). */
export type HandOverClaimsTable = {
  company_id: number;
  message_id: number;
  first_id: number;
  claimed_until: GivenTimestamp;
};

/** A company's webhook endpoint (migration 0056, modules/webhooks). */
export type WebhookEndpointsTable = {
  company_id: number;
  id: Id;
  url: string;
  description: Generated<string>;
  event_types: string[];
  secret_encrypted: string;
  secret_prefix: string;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  disabled_at: NullableTimestamp;
  after_event_id: Counter;
  failing_since: NullableTimestamp;
  last_attempt_at: NullableTimestamp;
  created_by: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
};

/** The webhook outbox, written by the trigger functions of messages and subscriptions (db/functions/11, 12). */
export type WebhookEventsTable = {
  company_id: number;
  id: Id;
  type: string;
  subject: string;
  payload: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
};

/** One POST to a webhook endpoint. */
export type WebhookDeliveriesTable = {
  company_id: number;
  id: Id;
  endpoint_id: number;
  first_event_id: number | null;
  last_event_id: number | null;
  event_count: number;
  event_types: string[];
  attempt: number;
  is_test: Generated<boolean>;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  succeeded: boolean;
  created_at: Timestamp;
};

/** While a company's provider fails for the whole account (migration 0055). */
export type CompanyProviderHealthTable = {
  company_id: number;
  failing_since: Timestamp;
  reason: string;
  next_probe_at: GivenTimestamp;
  updated_at: Timestamp;
};

/** A send's life (migrations 0006, 0046): held while its company is not active. */
export type SendState = 'waiting' | 'fanout' | 'dispatch' | 'held' | 'done' | 'failed' | 'cancelled';

/** Per message: the fan-out checkpoint and the send's progress (migration 0006). */
export type MessageSendsTable = {
  company_id: number;
  message_id: number;
  state: ColumnType<SendState, SendState | undefined, SendState>;
  fanout_cursor: Counter;
  recipients_at: NullableTimestamp;
  recipients: Counter;
  reserved_units: Counter;
  usage_month: ColumnType<Date | null, string | null | undefined, string | null>;
  started_at: NullableTimestamp;
  fanout_finished_at: NullableTimestamp;
  handed_over_at: NullableTimestamp;
  /** Why a held or limited send ended failed (state failed). */
  failed_reason: string | null;
  updated_at: Timestamp;
};

type StatusCounts = {
  pending: Counter;
  submitted: Counter;
  sent: Counter;
  delivered: Counter;
  failed: Counter;
  rejected: Counter;
  expired: Counter;
};

/** Recipient counts per message and status, in shards; read them summed (message_delivery_totals). */
export type MessageDeliveryCountsTable = StatusCounts & {
  company_id: number;
  message_id: number;
  shard: number;
};

/** The shards of message_delivery_counts summed, per message (a security-invoker view). */
export type MessageDeliveryTotalsView = {
  company_id: number;
  message_id: number;
  pending: number;
  submitted: number;
  sent: number;
  delivered: number;
  failed: number;
  rejected: number;
  expired: number;
  total: number;
};

/** Messages (recipients x parts) per company and calendar month (UTC); month is its first day. */
export type CompanyMonthlyUsageTable = {
  company_id: number;
  month: ColumnType<Date, string, string>;
  messages_used: Counter;
};

/** Rollups kept by triggers (migration 0009): recipients by status at their send's hour, and more. */
type ActivityCounts = {
  pending: Counter;
  submitted: Counter;
  sent: Counter;
  delivered: Counter;
  failed: Counter;
  rejected: Counter;
  expired: Counter;
  received: Counter;
  new_subscribers: Counter;
};

export type CompanyHourlyActivityTable = ActivityCounts & {
  company_id: number;
  hour: GivenTimestamp;
  active_subscribers_delta: Counter;
  services_delta: Counter;
  active_services_delta: Counter;
};

export type CompanyDailyActivityTable = ActivityCounts & {
  company_id: number;
  day: ColumnType<Date, string, string>;
  active_subscribers_delta: Counter;
  services_delta: Counter;
  active_services_delta: Counter;
};

/** The words of every message, for the top bar's search under row-level security (0009). */
export type MessageSearchWordsTable = {
  company_id: number;
  word: string;
  created_at: GivenTimestamp;
  message_id: number;
};

export type CompanyMonthlyActivityTable = ActivityCounts & {
  company_id: number;
  month: ColumnType<Date, string, string>;
};

export type CompanySendWindowsTable = {
  company_id: number;
  window_start: GivenTimestamp;
  used: Counter;
  last_grant: Counter;
};

export type IdempotencyKeysTable = {
  company_id: number;
  user_id: number;
  idempotency_key: string;
  request_hash: Buffer;
  status_code: number | null;
  response: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: Timestamp;
};

export type UnmatchedDeliveryReportsTable = {
  company_id: number;
  gateway_message_id: string;
  status: TDeliveryStatusColumn;
  provider_status: string | null;
  error_message: string | null;
  reported_at: GivenTimestamp;
  received_at: Timestamp;
  recipient_phone: string | null;
};

export type AuditLogsTable = {
  id: Id;
  company_id: number | null;
  user_id: number | null;
  user_name: string | null;
  user_email: string | null;
  by_platform_staff: Generated<boolean>;
  action: string;
  entity: string;
  entity_id: string | null;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
  ip_address: string | null;
  user_agent: string | null;
  created_at: Timestamp;
};

export type DB = {
  companies: CompaniesTable;
  company_provider_settings: CompanyProviderSettingsTable;
  users: UsersTable;
  refresh_tokens: RefreshTokensTable;
  login_throttle: LoginThrottleTable;
  platform_secrets: PlatformSecretsTable;
  company_callback_tokens: CompanyCallbackTokensTable;
  services: ServicesTable;
  subscribers: SubscribersTable;
  subscriptions: SubscriptionsTable;
  company_subscriber_counts: CompanySubscriberCountsTable;
  messages: MessagesTable;
  delivery_reports: DeliveryReportsTable;
  message_sends: MessageSendsTable;
  company_provider_health: CompanyProviderHealthTable;
  api_keys: ApiKeysTable;
  hand_over_claims: HandOverClaimsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  message_templates: MessageTemplatesTable;
  message_delivery_counts: MessageDeliveryCountsTable;
  message_delivery_totals: MessageDeliveryTotalsView;
  company_monthly_usage: CompanyMonthlyUsageTable;
  company_hourly_activity: CompanyHourlyActivityTable;
  company_daily_activity: CompanyDailyActivityTable;
  message_search_words: MessageSearchWordsTable;
  company_monthly_activity: CompanyMonthlyActivityTable;
  company_send_windows: CompanySendWindowsTable;
  idempotency_keys: IdempotencyKeysTable;
  unmatched_delivery_reports: UnmatchedDeliveryReportsTable;
  audit_logs: AuditLogsTable;
};

export type NewCompany = Insertable<CompaniesTable>;
export type CompanyUpdate = Updateable<CompaniesTable>;
export type SubscriberRow = Selectable<SubscribersTable>;
export type MessageRow = Selectable<MessagesTable>;
export type AuditLogRow = Selectable<AuditLogsTable>;
