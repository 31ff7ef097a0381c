import { COMPANY_MESSAGES } from '@sms/contracts/admin/company';
import { ApiError } from '../../../lib/api-client.ts';

/**
 * What the company form's error box says (spec section 8): the response's message, else the
 * response's error, else the client's own message (a network failure, a bare status), else
 * 'An error occurred while saving the company'.
 */
export function companySaveError(error: unknown) {
  if (!error) return null;
  if (error instanceof ApiError) {
    return (
      (error.fromServer && error.message) ||
      error.responseError ||
      error.message ||
      COMPANY_MESSAGES.saveFailed
    );
  }
  return (error as Error).message || COMPANY_MESSAGES.saveFailed;
}
