import { render, screen } from '@testing-library/react';
import { useState } from 'react';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router';
import { describe, expect, it } from 'vitest';
import { useSearchParamAction } from './use-search-param-action.ts';

function Page({ ready }: { ready: boolean }) {
  const [opened, setOpened] = useState<string[]>([]);
  const location = useLocation();
  useSearchParamAction('open', (value) => {
    if (!ready) return false;
    setOpened((list) => [...list, value]);
    return true;
  });
  return (
    <p>
      {opened.join(',') || 'nothing'} at {location.pathname + location.search}
    </p>
  );
}

const renderAt = (path: string, ready: boolean) => {
  const router = createMemoryRouter([{ path: '*', element: <Page ready={ready} /> }], {
    initialEntries: [path],
  });
  render(<RouterProvider router={router} />);
  return router;
};

describe('useSearchParamAction', () => {
  it('acts once and takes the parameter out of the address, keeping the others', async () => {
    renderAt('/messages?page=2&open=31', true);
    expect(await screen.findByText('31 at /messages?page=2')).toBeInTheDocument();
  });

  it('waits while the page is not ready, leaving the address as it is', () => {
    renderAt('/messages?open=31', false);
    expect(screen.getByText('nothing at /messages?open=31')).toBeInTheDocument();
  });
});
