import { COMPANY_MESSAGES, type TCompany } from '@sms/contracts/admin/company';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { CompanyForm } from './company-form.tsx';

function renderForm(props: Partial<Parameters<typeof CompanyForm>[0]> = {}) {
  const onSubmit = vi.fn();
  render(
    <CompanyForm
      onSubmit={onSubmit}
      onCancel={vi.fn()}
      isSubmitting={false}
      error={null}
      onDismissError={vi.fn()}
      {...props}
    />,
  );
  return { onSubmit };
}

const fill = (label: string | RegExp, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe('CompanyForm', () => {
  it('keeps submit disabled until name, email, phone and address are all filled; defaults plan basic, status active', () => {
    renderForm();
    const submit = screen.getByRole('button', { name: 'Create Company' });
    expect(submit).toBeDisabled();
    expect(screen.getByLabelText('Plan')).toHaveValue('basic');
    expect(screen.getByLabelText('Status')).toHaveValue('active');
    expect(screen.getByLabelText('Plan').querySelectorAll('option')).toHaveLength(3);
    fill(/Company Name/, 'Acme');
    fill(/^Email/, 'ops@acme.test');
    fill(/Phone Number/, '+254700');
    expect(submit).toBeDisabled();
    fill(/Address/, 'Road 1');
    expect(submit).toBeEnabled();
    fill(/Address/, '   ');
    expect(submit).toBeDisabled();
  });

  it('shows the spec message for an invalid e-mail and does not submit', async () => {
    const { onSubmit } = renderForm();
    fill(/Company Name/, 'Acme');
    fill(/^Email/, 'not-an-email');
    fill(/Phone Number/, '+254700');
    fill(/Address/, 'Road 1');
    fireEvent.click(screen.getByRole('button', { name: 'Create Company' }));
    expect(await screen.findByText(COMPANY_MESSAGES.emailInvalid)).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('submits trimmed values with blank credentials left out', async () => {
    const { onSubmit } = renderForm();
    fill(/Company Name/, '  Acme  ');
    fill(/^Email/, 'ops@acme.test');
    fill(/Phone Number/, '+254700');
    fill(/Address/, 'Road 1');
    fill('API Username', 'sandbox');
    fireEvent.click(screen.getByRole('button', { name: 'Create Company' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    expect(onSubmit.mock.calls[0]![0]).toEqual({
      name: 'Acme',
      email: 'ops@acme.test',
      phoneNumber: '+254700',
      address: 'Road 1',
      plan: 'basic',
      status: 'active',
      apiSecret: 'sandbox',
    });
  });

  it('on edit shows the masked credentials and the save error with a Dismiss button', () => {
    const onDismissError = vi.fn();
    const company = {
      id: 1,
      name: 'Acme',
      email: 'a@a.test',
      phoneNumber: '1',
      address: 'x',
      plan: 'professional',
      status: 'pending',
      apiKey: '••••••••abcd',
      apiSecret: null,
      packageName: 'P',
      packageExpiresAt: null,
      billingStatus: 'active',
      userCount: 0,
      serviceCount: 0,
      subscriberCount: 0,
      lastActive: null,
      createdAt: '2026-01-01T00:00:00Z',
    } satisfies TCompany;
    renderForm({ company, error: 'Server says no', onDismissError });
    expect(screen.getByText('Current: ••••••••abcd. Leave blank to keep it.')).toBeInTheDocument();
    expect(screen.getByLabelText('Plan')).toHaveValue('professional');
    expect(screen.getByLabelText('Status')).toHaveValue('pending');
    expect(screen.getByRole('alert')).toHaveTextContent('Server says no');
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(onDismissError).toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Update Company' })).toBeEnabled();
  });
});
