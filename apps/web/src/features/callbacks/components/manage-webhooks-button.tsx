import { useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { CallbackUrlsModal } from './callback-urls-modal.tsx';

/** The company admin's quick action: opens the callback-URL modal for their own company. */
export function ManageWebhooksButton({ className }: { className?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="secondary" className={className} onClick={() => setOpen(true)}>
        Manage Webhooks
      </Button>
      {open ? <CallbackUrlsModal scope={{ kind: 'my-company' }} onClose={() => setOpen(false)} /> : null}
    </>
  );
}
