import type { TService } from '@sms/contracts/services/service';
import { SUBSCRIBER_MESSAGES } from '@sms/contracts/subscribers/subscriber';
import { type FormEvent, useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { getServerMessage } from '../../../lib/api-client.ts';
import { useSubscribe } from '../api/subscribe.ts';
import { useUnsubscribe } from '../api/unsubscribe.ts';

export const SUBSCRIBER_INPUT_CLASSES =
  'block w-full rounded-lg border-0 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 placeholder:text-slate-400 focus:outline-none focus:ring-2 focus:ring-inset focus:ring-indigo-600';

export const serviceLabel = (service: TService, withCompany: boolean) =>
  `${service.name} (${service.shortcode} ${service.keyword})${withCompany ? ` · ${service.company.name}` : ''}`;

type TSubscriptionDialogProps = {
  mode: 'subscribe' | 'unsubscribe';
  services: TService[];
  withCompany: boolean;
  phoneNumber?: string;
  onClose: () => void;
};

/** Subscribe a number to a service, or end its subscription. */
export function SubscriptionDialog({
  mode,
  services,
  withCompany,
  phoneNumber = '',
  onClose,
}: TSubscriptionDialogProps) {
  const { showToast } = useToast();
  const subscribe = useSubscribe();
  const unsubscribe = useUnsubscribe();
  const [phone, setPhone] = useState(phoneNumber);
  const [serviceId, setServiceId] = useState(services.length === 1 ? String(services[0].id) : '');
  const [error, setError] = useState<string | null>(null);
  const pending = subscribe.isPending || unsubscribe.isPending;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!phone.trim()) return setError(SUBSCRIBER_MESSAGES.phoneRequired);
    if (!serviceId) return setError('Please select a service');
    setError(null);
    try {
      const input = { serviceId: Number(serviceId), phoneNumber: phone };
      const result =
        mode === 'subscribe' ? await subscribe.mutateAsync(input) : await unsubscribe.mutateAsync(input);
      showToast(result.message, result.changed ? 'success' : 'info');
      onClose();
    } catch (failure) {
      setError(getServerMessage(failure) ?? `Failed to ${mode}. Please try again.`);
    }
  };

  return (
    <ModalDialog
      title={mode === 'subscribe' ? 'Subscribe a Number' : 'Unsubscribe a Number'}
      onClose={onClose}
    >
      <form onSubmit={submit} className="space-y-4" noValidate>
        {error ? (
          <p role="alert" className="rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-700">
            {error}
          </p>
        ) : null}
        <div>
          <label htmlFor="subscription-phone" className="block text-sm font-medium text-slate-700">
            Phone Number
          </label>
          <input
            id="subscription-phone"
            className={`mt-1 ${SUBSCRIBER_INPUT_CLASSES}`}
            placeholder="+254712345678 or 0712 345678"
            value={phone}
            onChange={(event) => setPhone(event.target.value)}
            inputMode="tel"
          />
        </div>
        <div>
          <label htmlFor="subscription-service" className="block text-sm font-medium text-slate-700">
            Service
          </label>
          <select
            id="subscription-service"
            className={`mt-1 ${SUBSCRIBER_INPUT_CLASSES}`}
            value={serviceId}
            onChange={(event) => setServiceId(event.target.value)}
          >
            <option value="">Select a service</option>
            {services.map((service) => (
              <option key={service.id} value={service.id}>
                {serviceLabel(service, withCompany)}
              </option>
            ))}
          </select>
        </div>
        <div className="flex justify-end gap-2 pt-2">
          <Button variant="secondary" onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button type="submit" variant={mode === 'subscribe' ? 'primary' : 'danger'} disabled={pending}>
            {pending ? 'Working...' : mode === 'subscribe' ? 'Subscribe' : 'Unsubscribe'}
          </Button>
        </div>
      </form>
    </ModalDialog>
  );
}
