import { describe, expect, it } from 'vitest';
import { toJobState } from './job-status.ts';
import { MESSAGE_COUNT_CAP, searchCountCap, ZListMessagesQuery } from './list-messages.ts';
import { recipientCountOf, summariseDeliveries } from './message-details.ts';

describe('searchCountCap', () => {
  it('counts a search to the next thousand past the page, never past the cap', () => {
    expect(searchCountCap(0, 20)).toBe(1000);
    expect(searchCountCap(960, 20)).toBe(1000);
    // Page 50 of 20 ends at the 1,000th match: the next page must stay reachable.
    expect(searchCountCap(980, 20)).toBe(2000);
    expect(searchCountCap(900, 100)).toBe(2000);
    expect(searchCountCap(9_900, 100)).toBe(MESSAGE_COUNT_CAP);
    expect(searchCountCap(999_900, 100)).toBe(MESSAGE_COUNT_CAP);
  });
});

describe('ZListMessagesQuery', () => {
  it('reads the console’s empty choices as no filter and defaults the chip to all', () => {
    expect(ZListMessagesQuery.parse({ direction: '', status: '', search: '  ', companyId: '' })).toEqual({
      page: 1,
      limit: 20,
      chip: 'all',
      direction: undefined,
      status: undefined,
      search: undefined,
      companyId: undefined,
    });
  });

  it('refuses an unknown status, direction or chip with a message that names the choices', () => {
    const result = ZListMessagesQuery.safeParse({ status: 'lost', direction: 'sideways', chip: 'old' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      'direction must be one of inbound, outbound',
      'status must be one of pending, queued, scheduled, processing, sent, delivered, failed, received, cancelled',
      'chip must be one of scheduled, pending, sent, all',
    ]);
  });
});

describe('toJobState', () => {
  const now = new Date('2026-05-01T12:00:00Z');
  it('reads a job that may not start yet as delayed, one that may as waiting', () => {
    expect(toJobState('created', new Date('2026-05-01T13:00:00Z'), now)).toBe('delayed');
    expect(toJobState('created', new Date('2026-05-01T11:00:00Z'), now)).toBe('waiting');
    expect(toJobState('retry', new Date('2026-05-01T12:00:30Z'), now)).toBe('delayed');
    expect(toJobState('retry', null, now)).toBe('waiting');
  });
  it('keeps active and completed, and reads cancelled as failed', () => {
    expect(toJobState('active', null, now)).toBe('active');
    expect(toJobState('completed', null, now)).toBe('completed');
    expect(toJobState('cancelled', null, now)).toBe('failed');
    expect(toJobState('failed', null, now)).toBe('failed');
  });
});

describe('summariseDeliveries', () => {
  it('puts every recipient status in exactly one bucket', () => {
    expect(
      summariseDeliveries({
        pending: 1,
        submitted: 2,
        sent: 3,
        delivered: 4,
        failed: 5,
        rejected: 6,
        expired: 7,
      }),
    ).toEqual({ total: 28, pending: 1, sent: 5, delivered: 4, failed: 18 });
  });
  it('counts recipients from the reports, else recipient_count, else 1', () => {
    const summary = summariseDeliveries({ delivered: 2 });
    expect(recipientCountOf({ recipient_count: 9 }, summary)).toBe(2);
    expect(recipientCountOf({ recipient_count: 9 }, summariseDeliveries({}))).toBe(9);
    expect(recipientCountOf({ recipient_count: null })).toBe(1);
  });
});
