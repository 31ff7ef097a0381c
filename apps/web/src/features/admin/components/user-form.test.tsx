import { USER_MESSAGES } from '@sms/contracts/admin/admin-user';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeUser } from '../../../test/auth-fixtures.tsx';
import { UserForm } from './user-form.tsx';

const companiesPage = {
  success: true,
  data: {
    companies: [
      { id: 7, name: 'Acme Corp' },
      { id: 9, name: 'Globex' },
    ],
    pagination: { currentPage: 1, totalPages: 1, totalItems: 2 },
    stats: {},
  },
};

let fetchMock: ReturnType<typeof vi.fn>;
beforeEach(() => {
  fetchMock = vi.fn(async () => new Response(JSON.stringify(companiesPage), { status: 200 }));
  vi.stubGlobal('fetch', fetchMock);
});

function renderForm(props: Partial<Parameters<typeof UserForm>[0]> = {}) {
  const onSubmit = vi.fn();
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <UserForm onSubmit={onSubmit} onCancel={vi.fn()} isSubmitting={false} error={null} {...props} />
    </QueryClientProvider>,
  );
  return { onSubmit };
}
const fill = (label: string | RegExp, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
const submit = (name = 'Create User') => fireEvent.click(screen.getByRole('button', { name }));

describe('UserForm', () => {
  it('defaults to role viewer and status active and loads up to 100 companies', async () => {
    renderForm();
    expect(screen.getByLabelText('Role')).toHaveValue('viewer');
    expect(screen.getByLabelText('Status')).toHaveValue('active');
    expect(await screen.findByRole('option', { name: 'Globex' })).toBeInTheDocument();
    expect(String(fetchMock.mock.calls[0]![0])).toContain('limit=100');
  });

  it('asks for the required fields with the spec message', async () => {
    const { onSubmit } = renderForm();
    submit();
    expect((await screen.findAllByText(USER_MESSAGES.requiredFields)).length).toBe(3);
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('needs a company for company roles', async () => {
    const { onSubmit } = renderForm();
    fill(/^Name/, 'Jane');
    fill(/^Email/, 'jane@acme.test');
    fill(/^Password/, 'long-enough-1');
    submit();
    expect(await screen.findByText(USER_MESSAGES.companyRequired)).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
    await screen.findByRole('option', { name: 'Acme Corp' });
    fill(/^Company/, '7');
    submit();
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    expect(onSubmit.mock.calls[0]![0]).toMatchObject({ role: 'viewer', companyId: 7, status: 'active' });
  });

  it('gives a system_admin companyId null and hides the company field', async () => {
    const { onSubmit } = renderForm();
    fill(/^Name/, 'Root');
    fill(/^Email/, 'root@platform.test');
    fill(/^Password/, 'long-enough-1');
    fill('Role', 'system_admin');
    expect(screen.queryByLabelText(/^Company/)).not.toBeInTheDocument();
    submit();
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    expect(onSubmit.mock.calls[0]![0]).toMatchObject({ role: 'system_admin', companyId: null });
  });

  it('on edit a blank password is omitted', async () => {
    const { onSubmit } = renderForm({ user: makeUser('content_manager') });
    expect(screen.getByText('Leave blank to keep the current password.')).toBeInTheDocument();
    await screen.findByRole('option', { name: 'Acme Corp' });
    submit('Update User');
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    // As sent: JSON drops the undefined password.
    expect(JSON.parse(JSON.stringify(onSubmit.mock.calls[0]![0]))).not.toHaveProperty('password');
    expect(onSubmit.mock.calls[0]![0]).toMatchObject({
      name: 'Ada Lovelace',
      role: 'content_manager',
      companyId: 7,
    });
  });

  it('shows the server error', () => {
    renderForm({ error: 'A user with this email already exists' });
    expect(screen.getByRole('alert')).toHaveTextContent('A user with this email already exists');
  });
});
