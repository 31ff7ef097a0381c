import { WEBHOOK_MESSAGES, WEBHOOK_SIGNATURE_HEADER } from '@sms/contracts/webhooks/webhook';
import { SecretShownOnce } from '../../../components/secret-shown-once.tsx';

/** The new endpoint's signing secret, shown this once, with a copy button; closing forgets it. */
export function NewSecret({ url, secret, onDone }: { url: string; secret: string; onDone: () => void }) {
  return (
    <SecretShownOnce
      inputId="new-webhook-secret"
      label={`Signing secret for ${url}`}
      secret={secret}
      copyLabel="Copy signing secret"
      warning={
        <>
          <strong>{WEBHOOK_MESSAGES.secretShownOnce}</strong> Your receiver needs it to check the{' '}
          <code className="font-mono">{WEBHOOK_SIGNATURE_HEADER}</code> header. If it is lost, delete the
          endpoint and add it again.
        </>
      }
      onDone={onDone}
    />
  );
}
