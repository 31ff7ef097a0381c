import { useContext, useState } from 'react';
import { Button } from '../../../components/button.tsx';
import { AuthContext } from '../../auth/components/auth-provider.tsx';
import { CallbackUrlsModal } from './callback-urls-modal.tsx';

/** The company admin's quick action: opens the callback-URL modal for their own company. */
export function ManageWebhooksButton({ className }: { className?: string }) {
  const [open, setOpen] = useState(false);
  // The signed-in admin's company: its name titles the modal before the URLs have loaded.
  const companyName = useContext(AuthContext)?.user?.company?.name;
  return (
    <>
      <Button variant="secondary" className={className} onClick={() => setOpen(true)}>
        Manage Webhooks
      </Button>
      {open ? (
        <CallbackUrlsModal
          scope={{ kind: 'my-company' }}
          companyName={companyName}
          onClose={() => setOpen(false)}
        />
      ) : null}
    </>
  );
}
