import { SERVICE_MESSAGES, type TService } from '@sms/contracts/services/service';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ServiceForm } from './service-form.tsx';

function renderForm(props: Partial<Parameters<typeof ServiceForm>[0]> = {}) {
  const onSubmit = vi.fn();
  render(
    <ServiceForm onSubmit={onSubmit} onCancel={() => {}} isSubmitting={false} error={null} {...props} />,
  );
  return onSubmit;
}

const field = (label: string) => screen.getByLabelText(new RegExp(`^${label}`));
const fill = (label: string, value: string) => fireEvent.change(field(label), { target: { value } });

describe('ServiceForm', () => {
  it('starts with billing on_demand and status active, and no company field for company users', () => {
    renderForm();
    expect(screen.getByLabelText('Billing Type')).toHaveValue('on_demand');
    expect(screen.getByLabelText('Status')).toHaveValue('active');
    expect(screen.queryByLabelText('Company')).not.toBeInTheDocument();
  });

  it('shows the spec’s messages for the required fields and does not submit', async () => {
    const onSubmit = renderForm();
    fireEvent.click(screen.getByRole('button', { name: 'Create Service' }));
    expect(await screen.findByText(SERVICE_MESSAGES.nameRequired)).toBeInTheDocument();
    expect(screen.getByText(SERVICE_MESSAGES.shortcodeRequired)).toBeInTheDocument();
    expect(screen.getByText(SERVICE_MESSAGES.keywordRequired)).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('upper-cases the short code as it is typed and leaves companyId out of the payload', async () => {
    const onSubmit = renderForm();
    fill('Service Name', 'Daily Jokes');
    fill('Short Code', 'ab123');
    expect(field('Short Code')).toHaveValue('AB123');
    fill('Keyword', 'Jokes');
    fireEvent.click(screen.getByRole('button', { name: 'Create Service' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    const values = onSubmit.mock.calls[0][0];
    expect(values).toEqual({
      name: 'Daily Jokes',
      shortcode: 'AB123',
      keyword: 'Jokes',
      description: '',
      billingType: 'on_demand',
      status: 'active',
    });
    expect(values).not.toHaveProperty('companyId');
  });

  it('requires a company from a system admin and sends it as a number', async () => {
    const onSubmit = renderForm({ companies: [{ id: 7, name: 'Acme Mobile' }] });
    fill('Service Name', 'Alerts');
    fill('Short Code', '30300');
    fill('Keyword', 'ALERT');
    fireEvent.click(screen.getByRole('button', { name: 'Create Service' }));
    expect(await screen.findByText(SERVICE_MESSAGES.companyRequired)).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
    fill('Company', '7');
    fireEvent.click(screen.getByRole('button', { name: 'Create Service' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0][0].companyId).toBe(7);
  });

  it('refuses STOP as a keyword and fills the fields when editing', async () => {
    const service = {
      id: 1,
      name: 'News',
      shortcode: '22550',
      shortCode: '22550',
      keyword: 'NEWS',
      description: 'Headlines',
      billingType: 'package',
      status: 'maintenance',
      companyId: 3,
      company: { name: 'Acme', status: 'active' },
      subscriber_count: 0,
      messageCount: 0,
      lastActivity: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    } satisfies TService;
    const onSubmit = renderForm({ service });
    expect(screen.getByLabelText('Billing Type')).toHaveValue('package');
    expect(screen.getByLabelText('Status')).toHaveValue('maintenance');
    fill('Keyword', 'stop');
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText(SERVICE_MESSAGES.keywordReserved)).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });
});
