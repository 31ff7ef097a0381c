import { describe, expect, it } from 'vitest';
import { makeMessage } from '../testing/fixtures.tsx';
import { describeRecipients } from './messages-table.tsx';

describe('describeRecipients', () => {
  it('counts recipients with separators and the noun that fits the count', () => {
    expect(describeRecipients(makeMessage({ recipient_count: 1 }))).toBe('1 recipient');
    expect(describeRecipients(makeMessage({ recipient_count: 2509 }))).toBe('2,509 recipients');
  });
});
