import type { TRole } from '@sms/contracts/auth/roles';
import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { makeUser } from '../../test/auth-fixtures.tsx';
import { getMenuForRole, Sidebar } from './sidebar.tsx';

const EXPECTED: Record<TRole, string[]> = {
  system_admin: ['Dashboard', 'Services', 'Subscribers', 'Messages', 'Reports', 'Admin Panel', 'Audit Log'],
  company_admin: ['Dashboard', 'Services', 'Subscribers', 'Messages', 'Reports'],
  content_manager: ['Dashboard', 'Services', 'Messages', 'Reports'],
  viewer: ['Dashboard', 'Reports'],
};

function renderSidebar(role: TRole, path = '/dashboard') {
  render(
    <MemoryRouter initialEntries={[path]}>
      <Sidebar user={makeUser(role)} isOpen={false} onClose={() => {}} />
    </MemoryRouter>,
  );
  return within(screen.getByRole('navigation', { name: 'Main navigation' }));
}

describe('Sidebar', () => {
  it.each(Object.entries(EXPECTED) as [TRole, string[]][])(
    'shows %s exactly its menu entries',
    (role, labels) => {
      const nav = renderSidebar(role);

      expect(nav.getAllByRole('link').map((link) => link.textContent)).toEqual(labels);
    },
  );

  it('links the admin entries to their routes', () => {
    const nav = renderSidebar('system_admin');

    expect(nav.getByRole('link', { name: 'Admin Panel' })).toHaveAttribute('href', '/admin');
    expect(nav.getByRole('link', { name: 'Audit Log' })).toHaveAttribute('href', '/admin/audit');
  });

  it('marks only the current page as active', () => {
    const nav = renderSidebar('system_admin', '/admin/audit');

    expect(nav.getByRole('link', { name: 'Audit Log' })).toHaveAttribute('aria-current', 'page');
    expect(nav.getByRole('link', { name: 'Admin Panel' })).not.toHaveAttribute('aria-current');
  });

  it('shows the first name and the role with a space in the footer', () => {
    renderSidebar('content_manager');

    const footer = screen.getByTestId('sidebar-user');
    expect(footer).toHaveTextContent('Ada');
    expect(footer).toHaveTextContent('content manager');
  });

  it('treats a missing role as viewer', () => {
    expect(getMenuForRole(undefined).map((entry) => entry.label)).toEqual(EXPECTED.viewer);
    expect(getMenuForRole('root').map((entry) => entry.label)).toEqual(EXPECTED.viewer);
  });
});
