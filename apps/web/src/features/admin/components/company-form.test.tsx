import { COMPANY_MESSAGES, type TCompany } from '@sms/contracts/admin/company';
import { PROVIDER_DEFAULTS, PROVIDER_MESSAGES } from '@sms/contracts/admin/company-provider';
import { PLAN_CATALOGUE } from '@sms/contracts/plans/plan-catalogue';
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

function fillRequired(name: string) {
  fill(/Company Name/, name);
  fill(/^Email/, 'ops@acme.test');
  fill(/Phone Number/, '+254700');
  fill(/Address/, 'Road 1');
}

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

  it('submits trimmed values with the default provider, the simulator on platform defaults', async () => {
    const { onSubmit } = renderForm();
    fillRequired('  Acme  ');
    expect(screen.getByLabelText('Provider')).toHaveValue('simulator');
    fireEvent.click(screen.getByRole('button', { name: 'Create Company' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    expect(onSubmit.mock.calls[0]![0]).toEqual({
      name: 'Acme',
      email: 'ops@acme.test',
      phoneNumber: '+254700',
      address: 'Road 1',
      plan: 'basic',
      status: 'active',
      messagesLimit: null,
      subscribersLimit: null,
      servicesLimit: null,
      provider: {
        kind: 'simulator',
        acceptanceRate: null,
        failureRate: null,
        deliveryDelayMs: null,
        messagesPerSecond: null,
      },
    });
  });

  it("edits Africa's Talking with the spec's API Key and API Username, numbers converted", async () => {
    const { onSubmit } = renderForm();
    fillRequired('Acme');
    fireEvent.change(screen.getByLabelText('Provider'), { target: { value: 'africastalking' } });
    expect(screen.queryByLabelText('Host')).not.toBeInTheDocument();
    expect(screen.getByLabelText(/API Key/)).toHaveAttribute('type', 'password');
    fill(/API Username/, 'sandbox');
    fill(/API Key/, 'atsk_0123456789abcdef');
    fireEvent.change(screen.getByLabelText('Environment'), { target: { value: 'sandbox' } });
    fill('Sender ID / short code', '22384');
    fill('Batch size', '250');
    fireEvent.click(screen.getByRole('button', { name: 'Create Company' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    expect(onSubmit.mock.calls[0]![0].provider).toEqual({
      kind: 'africastalking',
      username: 'sandbox',
      apiKey: 'atsk_0123456789abcdef',
      environment: 'sandbox',
      baseUrl: null,
      senderId: '22384',
      batchSize: 250,
      messagesPerSecond: PROVIDER_DEFAULTS.africastalking.messagesPerSecond,
    });
  });

  it("shows the contract's messages under the chosen kind's fields and does not submit", async () => {
    const { onSubmit } = renderForm();
    fillRequired('Acme');
    fireEvent.change(screen.getByLabelText('Provider'), { target: { value: 'africastalking' } });
    fireEvent.change(screen.getByLabelText('Environment'), { target: { value: 'custom' } });
    fill('Batch size', '0');
    fireEvent.click(screen.getByRole('button', { name: 'Create Company' }));
    expect(await screen.findByText(PROVIDER_MESSAGES.atUsernameRequired)).toBeInTheDocument();
    expect(screen.getByText(PROVIDER_MESSAGES.atBaseUrlRequired)).toBeInTheDocument();
    expect(screen.getByText('Batch size must be at least 1')).toBeInTheDocument();

    fireEvent.change(screen.getByLabelText('Provider'), { target: { value: 'smpp' } });
    fill(/Host/, 'smpp://smsc');
    fill('Port', '70000');
    fireEvent.click(screen.getByRole('button', { name: 'Create Company' }));
    expect(await screen.findByText(PROVIDER_MESSAGES.smppHostInvalid)).toBeInTheDocument();
    expect(screen.getByText('Port must be at most 65535')).toBeInTheDocument();
    expect(screen.getByText(PROVIDER_MESSAGES.smppSystemIdRequired)).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('states the SMPP defaults and ceilings, and refuses an over-long sender or SMPP password', async () => {
    const { onSubmit } = renderForm();
    fillRequired('Acme');
    fireEvent.change(screen.getByLabelText('Provider'), { target: { value: 'africastalking' } });
    fill(/API Username/, 'acme');
    fill(/API Key/, 'atsk_key');
    fill('Sender ID / short code', 'ACMEBANKING1');
    fireEvent.click(screen.getByRole('button', { name: 'Create Company' }));
    expect(await screen.findByText(PROVIDER_MESSAGES.senderTooLong)).toBeInTheDocument();

    fireEvent.change(screen.getByLabelText('Provider'), { target: { value: 'smpp' } });
    expect(screen.getByText('Default 50; at most 100,000.')).toBeInTheDocument();
    expect(screen.getByText('Default 10; at most 1,000.')).toBeInTheDocument();
    expect(screen.getByLabelText('Source TON')).toHaveValue(null);
    fill(/Host/, 'smsc.example.net');
    fill(/System ID/, 'acme');
    fill('Password', 'nine-char');
    fireEvent.click(screen.getByRole('button', { name: 'Create Company' }));
    expect(await screen.findByText(PROVIDER_MESSAGES.smppPasswordTooLong)).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('keeps what was typed for one kind while another is chosen, and sends only the chosen one', async () => {
    const { onSubmit } = renderForm();
    fillRequired('Acme');
    fireEvent.change(screen.getByLabelText('Provider'), { target: { value: 'smpp' } });
    fill(/Host/, 'smsc.example.net');
    fill(/System ID/, 'acme');
    fill('Password', 'pw123456');
    fireEvent.change(screen.getByLabelText('Bind mode'), { target: { value: 'transmitter_receiver' } });
    fireEvent.change(screen.getByLabelText('Provider'), { target: { value: 'simulator' } });
    fill('Failure rate (0 to 1)', '0.25');
    fireEvent.change(screen.getByLabelText('Provider'), { target: { value: 'smpp' } });
    expect(screen.getByLabelText(/Host/)).toHaveValue('smsc.example.net');
    fireEvent.click(screen.getByRole('button', { name: 'Create Company' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    expect(onSubmit.mock.calls[0]![0].provider).toEqual({
      kind: 'smpp',
      host: 'smsc.example.net',
      port: 2775,
      systemId: 'acme',
      password: 'pw123456',
      systemType: null,
      bindMode: 'transmitter_receiver',
      messageIdType: 'auto',
      messagesPerSecond: PROVIDER_DEFAULTS.smpp.messagesPerSecond,
      window: PROVIDER_DEFAULTS.smpp.window,
      sourceTon: null,
      sourceNpi: null,
    });
  });

  it('on edit shows the masked credentials as set, keeps them when left blank, and the save error with a Dismiss button', async () => {
    const onDismissError = vi.fn();
    const { onSubmit } = renderForm({ company: savedCompany, error: 'Server says no', onDismissError });
    expect(screen.getByLabelText('Provider')).toHaveValue('africastalking');
    expect(screen.getByText('Current: ••••••••abcd. Leave blank to keep it.')).toBeInTheDocument();
    expect(screen.getByLabelText(/API Key/)).toHaveValue('');
    expect(screen.getByLabelText(/API Username/)).toHaveValue('acme-sms');
    expect(screen.getByLabelText('Plan')).toHaveValue('professional');
    expect(screen.getByLabelText('Status')).toHaveValue('pending');
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('Error saving company');
    expect(alert).toHaveTextContent('Server says no');
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(onDismissError).toHaveBeenCalled();

    fireEvent.click(screen.getByRole('button', { name: 'Update Company' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    // Blank secret: left out, so the server keeps the stored key.
    expect(onSubmit.mock.calls[0]![0].provider).toMatchObject({
      kind: 'africastalking',
      username: 'acme-sms',
    });
    expect(onSubmit.mock.calls[0]![0].provider.apiKey).toBeUndefined();
  });

  it('shows the company’s own limits, names the plan’s limit that blank gives, and submits blank as null', async () => {
    const { onSubmit } = renderForm({ company: savedCompany });
    const messages = screen.getByLabelText('Monthly message limit');
    expect(messages).toHaveValue(2_000_000);
    expect(screen.getByLabelText('Subscriber limit')).toHaveValue(null);
    const { professional, enterprise } = PLAN_CATALOGUE;
    expect(screen.getByText(COMPANY_MESSAGES.limitHint(professional.subscribersLimit))).toBeInTheDocument();
    expect(screen.getByText("Leave blank to use the plan's limit (100).")).toBeInTheDocument();
    fill('Plan', 'enterprise');
    expect(screen.getByText(COMPANY_MESSAGES.limitHint(enterprise.servicesLimit))).toBeInTheDocument();

    fill('Monthly message limit', '');
    fill('Service limit', '3');
    fireEvent.click(screen.getByRole('button', { name: 'Update Company' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    expect(onSubmit.mock.calls[0]![0]).toMatchObject({
      plan: 'enterprise',
      messagesLimit: null,
      subscribersLimit: null,
      servicesLimit: 3,
    });
  });

  it('refuses a limit that is not a whole number of 0 or more with the contract’s message', async () => {
    const { onSubmit } = renderForm({ company: savedCompany });
    fill('Subscriber limit', '-5');
    fireEvent.click(screen.getByRole('button', { name: 'Update Company' }));
    expect(await screen.findByText(COMPANY_MESSAGES.limitInvalid('Subscriber limit'))).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('on edit of an SMPP company shows the password as set', () => {
    renderForm({
      company: {
        ...savedCompany,
        provider: {
          kind: 'smpp',
          host: 'smsc.example.net',
          port: 2775,
          systemId: 'acme',
          password: '••••••••',
          systemType: null,
          bindMode: 'transceiver',
          messageIdType: 'decimal_hex',
          messagesPerSecond: 50,
          window: 10,
          sourceTon: 5,
          sourceNpi: 0,
        },
      },
    });
    expect(screen.getByLabelText('Provider')).toHaveValue('smpp');
    expect(screen.getByLabelText(/Host/)).toHaveValue('smsc.example.net');
    expect(screen.getByText('Current: ••••••••. Leave blank to keep it.')).toBeInTheDocument();
    expect(screen.getByLabelText('Source TON')).toHaveValue(5);
    expect(screen.getByLabelText('Source NPI')).toHaveValue(0);
    expect(screen.getByLabelText('Message ID type')).toHaveValue('decimal_hex');
  });
});

const savedCompany = {
  id: 1,
  name: 'Acme',
  email: 'a@a.test',
  phoneNumber: '1',
  address: 'x',
  plan: 'professional',
  status: 'pending',
  apiKey: '••••••••abcd',
  apiSecret: 'acme-sms',
  provider: {
    kind: 'africastalking',
    username: 'acme-sms',
    apiKey: '••••••••abcd',
    environment: 'live',
    baseUrl: null,
    senderId: null,
    batchSize: 100,
    messagesPerSecond: 50,
  },
  packageName: 'P',
  packageExpiresAt: null,
  billingStatus: 'active',
  limits: { messagesLimit: 2_000_000, subscribersLimit: 50_000, servicesLimit: 100 },
  ownLimits: { messagesLimit: 2_000_000, subscribersLimit: null, servicesLimit: null },
  userCount: 0,
  serviceCount: 0,
  subscriberCount: 0,
  lastActive: null,
  createdAt: '2026-01-01T00:00:00Z',
  providerFailure: null,
} satisfies TCompany;
