import { zodResolver } from '@hookform/resolvers/zod';
import {
  type TCompany,
  type TCompanyForm,
  type TCompanyFormInput,
  type TCompanyPlan,
  type TCompanyStatus,
  ZCompanyForm,
} from '@sms/contracts/admin/company';
import {
  PROVIDER_DEFAULTS,
  type TAtEnvironment,
  type TProviderKind,
  type TSmppBindMode,
  type TSmppMessageIdType,
} from '@sms/contracts/admin/company-provider';
import type { FieldErrors, Resolver } from 'react-hook-form';

/**
 * The form keeps every kind's fields at once (switching the kind back and forth loses nothing
 * typed) and numbers as the text of their inputs; only the chosen kind is sent, converted.
 */
export type TProviderFormState = {
  kind: TProviderKind;
  simulator: {
    acceptanceRate: string;
    failureRate: string;
    deliveryDelayMs: string;
    messagesPerSecond: string;
  };
  africastalking: {
    username: string;
    apiKey: string;
    environment: TAtEnvironment;
    baseUrl: string;
    senderId: string;
    batchSize: string;
    messagesPerSecond: string;
  };
  smpp: {
    host: string;
    port: string;
    systemId: string;
    password: string;
    systemType: string;
    bindMode: TSmppBindMode;
    messageIdType: TSmppMessageIdType;
    messagesPerSecond: string;
    window: string;
    sourceTon: string;
    sourceNpi: string;
  };
};

export type TCompanyFormState = {
  name: string;
  email: string;
  phoneNumber: string;
  address: string;
  plan: TCompanyPlan;
  status: TCompanyStatus;
  /** The company's own limits as typed; blank: the plan's. */
  messagesLimit: string;
  subscribersLimit: string;
  servicesLimit: string;
  provider: TProviderFormState;
};

const text = (value: number | string | null | undefined) =>
  value === null || value === undefined ? '' : String(value);

/** The form's starting values: the company's own (secrets blank: blank keeps them), else the defaults. */
export function initialFormState(company?: TCompany): TCompanyFormState {
  const current = company?.provider;
  const at = current?.kind === 'africastalking' ? current : undefined;
  const smpp = current?.kind === 'smpp' ? current : undefined;
  const simulator = current?.kind === 'simulator' ? current : undefined;
  const atDefaults = PROVIDER_DEFAULTS.africastalking;
  const smppDefaults = PROVIDER_DEFAULTS.smpp;
  return {
    name: company?.name ?? '',
    email: company?.email ?? '',
    phoneNumber: company?.phoneNumber ?? '',
    address: company?.address ?? '',
    plan: company?.plan ?? 'basic',
    status: company?.status ?? 'active',
    messagesLimit: text(company?.ownLimits.messagesLimit),
    subscribersLimit: text(company?.ownLimits.subscribersLimit),
    servicesLimit: text(company?.ownLimits.servicesLimit),
    provider: {
      kind: current?.kind ?? 'simulator',
      simulator: {
        acceptanceRate: text(simulator?.acceptanceRate),
        failureRate: text(simulator?.failureRate),
        deliveryDelayMs: text(simulator?.deliveryDelayMs),
        messagesPerSecond: text(simulator?.messagesPerSecond),
      },
      africastalking: {
        // The spec's 'API Username' is Africa's Talking's, kept even while another kind is in use.
        username: at?.username ?? company?.apiSecret ?? '',
        apiKey: '',
        environment: at?.environment ?? atDefaults.environment,
        baseUrl: at?.baseUrl ?? '',
        senderId: at?.senderId ?? '',
        batchSize: text(at?.batchSize ?? atDefaults.batchSize),
        messagesPerSecond: text(at?.messagesPerSecond ?? atDefaults.messagesPerSecond),
      },
      smpp: {
        host: smpp?.host ?? '',
        port: text(smpp?.port ?? smppDefaults.port),
        systemId: smpp?.systemId ?? '',
        password: '',
        systemType: smpp?.systemType ?? '',
        bindMode: smpp?.bindMode ?? smppDefaults.bindMode,
        messageIdType: smpp?.messageIdType ?? smppDefaults.messageIdType,
        messagesPerSecond: text(smpp?.messagesPerSecond ?? smppDefaults.messagesPerSecond),
        window: text(smpp?.window ?? smppDefaults.window),
        sourceTon: text(smpp?.sourceTon),
        sourceNpi: text(smpp?.sourceNpi),
      },
    },
  };
}

/** An input's text as a number: blank is "not given"; anything else is checked by the contract. */
const numberOf = (value: string) => (value.trim() === '' ? undefined : Number(value));
const optionalNumberOf = (value: string) => numberOf(value) ?? null;

/** The request body of the chosen kind (the contract checks it; blank secrets keep the stored ones). */
export function toCompanyRequest(state: TCompanyFormState): TCompanyFormInput {
  const { provider, messagesLimit, subscribersLimit, servicesLimit, ...company } = state;
  const kind = provider.kind;
  const settings =
    kind === 'simulator'
      ? {
          kind,
          acceptanceRate: optionalNumberOf(provider.simulator.acceptanceRate),
          failureRate: optionalNumberOf(provider.simulator.failureRate),
          deliveryDelayMs: optionalNumberOf(provider.simulator.deliveryDelayMs),
          messagesPerSecond: optionalNumberOf(provider.simulator.messagesPerSecond),
        }
      : kind === 'africastalking'
        ? {
            kind,
            ...provider.africastalking,
            batchSize: numberOf(provider.africastalking.batchSize),
            messagesPerSecond: numberOf(provider.africastalking.messagesPerSecond),
          }
        : {
            kind,
            ...provider.smpp,
            port: numberOf(provider.smpp.port),
            messagesPerSecond: numberOf(provider.smpp.messagesPerSecond),
            window: numberOf(provider.smpp.window),
            sourceTon: optionalNumberOf(provider.smpp.sourceTon),
            sourceNpi: optionalNumberOf(provider.smpp.sourceNpi),
          };
  return {
    ...company,
    // Always sent: blank is null, the plan's limit again.
    messagesLimit: optionalNumberOf(messagesLimit),
    subscribersLimit: optionalNumberOf(subscribersLimit),
    servicesLimit: optionalNumberOf(servicesLimit),
    provider: settings,
  };
}

const validateRequest = zodResolver(ZCompanyForm);

/**
 * Validates with the shared contract (one rule in one place) and files the provider's errors
 * under the chosen kind's fields, where the form shows them.
 */
export const companyFormResolver: Resolver<TCompanyFormState, unknown, TCompanyForm> = async (
  state,
  context,
  options,
) => {
  // The options name the form's fields; the request's paths differ only under provider.
  const result = await validateRequest(toCompanyRequest(state), context, options as never);
  if (!result.errors || Object.keys(result.errors).length === 0) {
    return { values: result.values as TCompanyForm, errors: {} };
  }
  const { provider: providerErrors, ...errors } = result.errors as FieldErrors<Record<string, unknown>>;
  const kind = state.provider.kind;
  const filed = providerErrors
    ? { provider: { [kind]: providerErrors, ...('kind' in providerErrors && { kind: providerErrors.kind }) } }
    : {};
  return { values: {}, errors: { ...errors, ...filed } as FieldErrors<TCompanyFormState> };
};
