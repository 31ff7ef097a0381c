import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/** Kysely's view of the tables in db/migrations. Keep in step with every migration. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
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
  sms_provider: Generated<string>;
  api_key_encrypted: string | null;
  api_secret_encrypted: string | null;
  default_country: Generated<string>;
  package_name: Generated<string>;
  package_expires_at: NullableTimestamp;
  billing_status: Generated<string>;
  messages_limit: Generated<number>;
  subscribers_limit: Generated<number>;
  services_limit: Generated<number>;
  monthly_revenue: ColumnType<string, string | number | undefined, string | number>;
  last_active_at: NullableTimestamp;
  created_at: Timestamp;
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
  expires_at: Timestamp;
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
  window_started_at: Timestamp;
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
  status: Generated<string>;
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
  created_at: Timestamp;
  updated_at: Timestamp;
};

export type DeliveryReportsTable = {
  id: Id;
  company_id: number;
  message_id: number;
  subscriber_id: number | null;
  recipient_phone: string;
  status: Generated<string>;
  provider_status: string | null;
  gateway_message_id: string | null;
  delivered_at: NullableTimestamp;
  error_message: string | null;
  attempts: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
};

export type AuditLogsTable = {
  id: Id;
  company_id: number | null;
  user_id: number | null;
  user_name: string | null;
  user_email: string | null;
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
  audit_logs: AuditLogsTable;
};

export type CompanyRow = Selectable<CompaniesTable>;
export type NewCompany = Insertable<CompaniesTable>;
export type CompanyUpdate = Updateable<CompaniesTable>;
export type UserRow = Selectable<UsersTable>;
export type ServiceRow = Selectable<ServicesTable>;
export type SubscriberRow = Selectable<SubscribersTable>;
export type MessageRow = Selectable<MessagesTable>;
export type AuditLogRow = Selectable<AuditLogsTable>;
