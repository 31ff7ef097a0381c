import { API_KEY_MESSAGES } from '@sms/contracts/api-keys/api-key';
import { SecretShownOnce } from '../../../components/secret-shown-once.tsx';

/** The new key, shown this once, with a copy button; closing forgets it. */
export function NewApiKey({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  return (
    <SecretShownOnce
      inputId="new-api-key"
      label={name}
      secret={secret}
      copyLabel="Copy API key"
      warning={
        <>
          <strong>{API_KEY_MESSAGES.shownOnce}</strong> Store it somewhere safe, such as your system’s secret
          store. If it is lost, revoke it and create another.
        </>
      }
      hint={
        <>
          Send it with every request: <code className="font-mono">Authorization: Bearer {'<key>'}</code>
        </>
      }
      onDone={onDone}
    />
  );
}
