import type { ApiInstance } from './api-instance.ts';
import type { AppDeps } from './app-deps.ts';
import { companiesRoutes } from './modules/admin/companies.routes.ts';
import { usersRoutes } from './modules/admin/users.routes.ts';
import { apiKeysRoutes } from './modules/api-keys/api-keys.routes.ts';
import { auditRoutes } from './modules/audit/audit.routes.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { callbacksRoutes } from './modules/callbacks/callbacks.routes.ts';
import { dashboardRoutes } from './modules/dashboard/dashboard.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { messageLogsRoutes } from './modules/messages/message-logs.routes.ts';
import { sendMessageRoutes } from './modules/messages/send-message.routes.ts';
import { dlrCallbackRoutes } from './modules/provider-callbacks/dlr-callback.routes.ts';
import { providerCallbacksRoutes } from './modules/provider-callbacks/provider-callbacks.routes.ts';
import { reportsRoutes } from './modules/reports/reports.routes.ts';
import { searchRoutes } from './modules/search/search.routes.ts';
import { servicesRoutes } from './modules/services/services.routes.ts';
import { subscribersRoutes } from './modules/subscribers/subscribers.routes.ts';
import { templatesRoutes } from './modules/templates/templates.routes.ts';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.ts';
import { installRouteAccess } from './plugins/guards.ts';

/** Every API module, mounted under /api/v1. */
export async function registerRoutes(api: ApiInstance, deps: AppDeps) {
  // First: every route below declares who may call it, and this enforces and records it.
  installRouteAccess(api);
  healthRoutes(api, deps);
  authRoutes(api, deps);
  companiesRoutes(api, deps);
  usersRoutes(api, deps);
  auditRoutes(api, deps);
  callbacksRoutes(api, deps);
  apiKeysRoutes(api, deps);
  webhooksRoutes(api, deps);
  templatesRoutes(api, deps);
  servicesRoutes(api, deps);
  subscribersRoutes(api, deps);
  messageLogsRoutes(api, deps);
  sendMessageRoutes(api, deps);
  providerCallbacksRoutes(api, deps);
  dashboardRoutes(api, deps);
  reportsRoutes(api, deps);
  searchRoutes(api, deps);
  dlrCallbackRoutes(api, deps);
}
