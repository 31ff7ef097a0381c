import { describe, expect, it } from 'vitest';
import { describeDeliveryError } from './delivery-errors.ts';

describe('describeDeliveryError', () => {
  it('puts the providers’ codes in words, with or without details after them', () => {
    expect(describeDeliveryError('AbsentSubscriber')).toBe(
      'The phone was off or out of coverage until the message expired',
    );
    expect(describeDeliveryError('UNDELIV (err 001)')).toBe('The network could not deliver the message');
    expect(describeDeliveryError('UserInBlackList')).toBe(
      'The subscriber has blocked messages from this sender',
    );
  });

  it('keeps an error it does not know as it came', () => {
    expect(describeDeliveryError('Simulated gateway error')).toBe('Simulated gateway error');
  });
});
