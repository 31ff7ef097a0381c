import { WEBHOOK_MESSAGES } from '@sms/contracts/webhooks/webhook';
import { Link } from 'react-router';
import { AlertIcon } from '../../../components/icons.tsx';
import { useWebhookEndpoints } from '../api/webhooks.ts';

/** On a company admin's dashboard: each endpoint the deliveries disabled, with the way to fix it. */
export function DisabledWebhooksNotice() {
  const endpoints = useWebhookEndpoints();
  const disabled = (endpoints.data?.endpoints ?? []).filter(
    (endpoint) => !endpoint.enabled && endpoint.disabledReason === WEBHOOK_MESSAGES.disabledAfterFailures,
  );
  if (disabled.length === 0) return null;
  return (
    <div
      role="alert"
      aria-label="Disabled webhook endpoints"
      className="flex items-start gap-2 rounded-xl border border-red-200 bg-red-50 p-4 text-sm text-red-800"
    >
      <AlertIcon className="mt-0.5 size-4 shrink-0" />
      <div className="space-y-1">
        {disabled.map((endpoint) => (
          <p key={endpoint.id}>{WEBHOOK_MESSAGES.disabledNotice(endpoint.url)}</p>
        ))}
        <Link to="/settings/webhooks" className="font-medium underline">
          Open Webhook Endpoints
        </Link>
      </div>
    </div>
  );
}
