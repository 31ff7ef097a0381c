import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { counterLevel, MessageCounter } from './message-counter.tsx';

const counter = () => screen.getByTestId('message-counter');

describe('MessageCounter', () => {
  it('reads n/160 and stays neutral up to 120 characters', () => {
    render(<MessageCounter text={'a'.repeat(120)} />);
    expect(counter()).toHaveTextContent('120/160');
    expect(counter()).toHaveClass('text-slate-500');
  });

  it('turns yellow above 120 and stays yellow at 140', () => {
    const { rerender } = render(<MessageCounter text={'a'.repeat(121)} />);
    expect(counter()).toHaveClass('text-yellow-600');
    rerender(<MessageCounter text={'a'.repeat(140)} />);
    expect(counter()).toHaveTextContent('140/160');
    expect(counter()).toHaveClass('text-yellow-600');
  });

  it('counts a text with merge fields on the longest text among the recipients: length, colour, parts and total', () => {
    render(
      <MessageCounter
        text="Hi {{first_name|friend}}"
        recipients={{ count: 10, exact: true }}
        longest={{ length: 145, encoding: 'UCS-2', parts: 3 }}
      />,
    );
    expect(counter()).toHaveTextContent('Longest: 145/160');
    expect(counter()).toHaveClass('text-red-600');
    expect(screen.getByTestId('sms-encoding')).toHaveTextContent('Unicode · 3 SMS parts');
    expect(screen.getByTestId('sms-total')).toHaveTextContent('10 recipients × 3 = 30 SMS');
  });

  it('turns red above 140', () => {
    render(<MessageCounter text={'a'.repeat(141)} />);
    expect(counter()).toHaveClass('text-red-600');
    expect(counter()).not.toHaveClass('text-yellow-600');
  });

  it('names the encoding and the number of SMS parts', () => {
    const { rerender } = render(<MessageCounter text="Hello" />);
    expect(screen.getByTestId('sms-encoding')).toHaveTextContent('GSM-7 · 1 SMS part');
    rerender(<MessageCounter text={'ж'.repeat(71)} />);
    expect(screen.getByTestId('sms-encoding')).toHaveTextContent('Unicode · 2 SMS parts');
    rerender(<MessageCounter text={'€'.repeat(81)} />);
    expect(screen.getByTestId('sms-encoding')).toHaveTextContent('GSM-7 · 2 SMS parts');
  });

  it('puts the thresholds where the spec does', () => {
    expect([120, 121, 140, 141].map(counterLevel)).toEqual(['normal', 'warn', 'warn', 'danger']);
  });

  it('warns when Unicode makes a text cost more than one part, and not before', () => {
    const { rerender } = render(<MessageCounter text={'ж'.repeat(70)} />);
    expect(screen.queryByTestId('sms-unicode-warning')).not.toBeInTheDocument();
    rerender(<MessageCounter text={'ж'.repeat(71)} />);
    expect(screen.getByTestId('sms-unicode-warning')).toHaveTextContent(
      'each recipient receives 2 SMS parts',
    );
    rerender(<MessageCounter text={'a'.repeat(160)} />);
    expect(screen.queryByTestId('sms-unicode-warning')).not.toBeInTheDocument();
  });

  it('shows the total, recipients times parts, once recipients are known', () => {
    const { rerender } = render(<MessageCounter text={'ж'.repeat(71)} />);
    expect(screen.queryByTestId('sms-total')).not.toBeInTheDocument();
    rerender(<MessageCounter text={'ж'.repeat(71)} recipients={{ count: 1250, exact: true }} />);
    expect(screen.getByTestId('sms-total')).toHaveTextContent('Total: 1,250 recipients × 2 = 2,500 SMS');
    rerender(<MessageCounter text="Hi" recipients={{ count: 100_000, exact: false }} />);
    expect(screen.getByTestId('sms-total')).toHaveTextContent(
      'Total: up to 100,000 recipients × 1 = 100,000 SMS',
    );
  });
});
