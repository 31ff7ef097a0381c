import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/api-client.ts';
import { describeMessagesError, describeSendFailure } from './message-errors.ts';

const fromServer = (message: string, error: string, details?: string[]) =>
  new ApiError({ status: 400, message, error, details });

describe('describeSendFailure (spec section 8, in order)', () => {
  it('prefers the response message, then its error, then its details joined by commas', () => {
    expect(describeSendFailure(fromServer('No credit left', 'forbidden', ['a']))).toBe('No credit left');
    expect(describeSendFailure(fromServer('', 'quota_exceeded', ['a']))).toBe('quota_exceeded');
    expect(describeSendFailure(fromServer('', '', ['message: too long', 'serviceIds: empty']))).toBe(
      'message: too long, serviceIds: empty',
    );
  });

  it('then the error’s own message, else the spec’s fallback', () => {
    const network = new ApiError({
      status: 0,
      message: 'Unable to reach the server. Check your connection and try again.',
      error: 'network_error',
      fromServer: false,
    });
    expect(describeSendFailure(network)).toBe(network.message);
    expect(describeSendFailure(new Error('boom'))).toBe('boom');
    expect(describeSendFailure(fromServer('', '', []))).toBe('Failed to send message. Please try again.');
    expect(describeSendFailure('nothing useful')).toBe('Failed to send message. Please try again.');
  });
});

describe('describeMessagesError', () => {
  it('falls back to An unexpected error occurred', () => {
    expect(describeMessagesError(fromServer('Message not found', 'not_found'))).toBe('Message not found');
    expect(describeMessagesError(undefined)).toBe('An unexpected error occurred');
  });
});
