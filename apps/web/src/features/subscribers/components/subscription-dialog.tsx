import type { TService } from '@sms/contracts/services/service';
import { SUBSCRIBER_MESSAGES } from '@sms/contracts/subscribers/subscriber';
import { type FormEvent, useState } from 'react';
import { FormActions } from '../../../components/form-actions.tsx';
import { FormField, INPUT_CLASSES } from '../../../components/form-field.tsx';
import { ModalDialog } from '../../../components/modal-dialog.tsx';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { getServerMessage } from '../../../lib/api-client.ts';
import { useSubscribe } from '../api/subscribe.ts';
import { useUnsubscribe } from '../api/unsubscribe.ts';
import { ServiceSelect } from './service-select.tsx';

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
        <FormField id="subscription-phone" label="Phone Number">
          <input
            id="subscription-phone"
            className={INPUT_CLASSES}
            placeholder="+254712345678 or 0712 345678"
            value={phone}
            onChange={(event) => setPhone(event.target.value)}
            inputMode="tel"
          />
        </FormField>
        <ServiceSelect
          id="subscription-service"
          services={services}
          withCompany={withCompany}
          value={serviceId}
          onChange={setServiceId}
        />
        <FormActions
          onCancel={onClose}
          isPending={pending}
          submitLabel={mode === 'subscribe' ? 'Subscribe' : 'Unsubscribe'}
          pendingLabel="Working..."
          submitVariant={mode === 'subscribe' ? 'primary' : 'danger'}
        />
      </form>
    </ModalDialog>
  );
}
