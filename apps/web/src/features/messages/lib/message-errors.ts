import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { ApiError } from '../../../lib/api-client.ts';

/** What the server's error envelope said: its message, else its error, else its details joined. */
function responseText(error: unknown) {
  if (!(error instanceof ApiError) || !error.fromServer) return undefined;
  if (error.message) return error.message;
  if (error.error) return error.error;
  if (error.details?.length) return error.details.join(', ');
  return undefined;
}

function ownText(error: unknown) {
  return error instanceof Error && error.message ? error.message : undefined;
}

/** Spec section 8, messages failures: the response's words, else the client's, else a general one. */
export function describeMessagesError(error: unknown) {
  return responseText(error) ?? ownText(error) ?? MESSAGE_MESSAGES.unexpected;
}

/** Spec section 8, send failure, in its order. */
export function describeSendFailure(error: unknown) {
  return responseText(error) ?? ownText(error) ?? MESSAGE_MESSAGES.sendFailed;
}
