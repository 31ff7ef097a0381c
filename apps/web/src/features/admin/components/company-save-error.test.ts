import { COMPANY_MESSAGES } from '@sms/contracts/admin/company';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { apiRequest } from '../../../lib/api-client.ts';
import { companySaveError } from './company-save-error.ts';

const answer = (status: number, body: unknown) =>
  vi.fn(async () => new Response(body === undefined ? '' : JSON.stringify(body), { status }));

async function failureOf(status: number, body: unknown) {
  vi.stubGlobal('fetch', answer(status, body));
  return apiRequest('/admin/companies', { method: 'POST', body: {} }).then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describe('companySaveError (spec section 8 order)', () => {
  beforeEach(() => localStorage.clear());

  it("shows the response's message first", async () => {
    const error = await failureOf(409, {
      success: false,
      message: 'Email already in use',
      error: 'conflict',
    });
    expect(companySaveError(error)).toBe('Email already in use');
  });

  it("then the response's error when it has no message", async () => {
    expect(companySaveError(await failureOf(409, { success: false, error: 'Duplicate company' }))).toBe(
      'Duplicate company',
    );
    expect(companySaveError(await failureOf(400, { success: false, message: '', error: 'Bad plan' }))).toBe(
      'Bad plan',
    );
  });

  it("then the client's own message, then the fallback", async () => {
    expect(companySaveError(await failureOf(502, undefined))).toBe('Request failed with status 502');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    const offline = await apiRequest('/admin/companies').catch((error: unknown) => error);
    expect(companySaveError(offline)).toBe(
      'Unable to reach the server. Check your connection and try again.',
    );
    expect(companySaveError(new Error(''))).toBe(COMPANY_MESSAGES.saveFailed);
    expect(companySaveError(null)).toBeNull();
  });
});
