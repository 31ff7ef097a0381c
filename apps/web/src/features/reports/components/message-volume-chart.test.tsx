import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { MessageVolumeChart } from './message-volume-chart.tsx';

const points = [
  { time: '2026-03-01T00:00:00.000Z', sent: 10, received: 2 },
  { time: '2026-03-02T00:00:00.000Z', sent: 40, received: 5 },
  { time: '2026-03-03T00:00:00.000Z', sent: 20, received: 9 },
];

const coordinates = (d: string) =>
  [...d.matchAll(/[ML]([\d.]+),([\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);

describe('MessageVolumeChart', () => {
  it('draws both series, 500 by 200 units, with axis labels', () => {
    const { container } = render(<MessageVolumeChart points={points} bucket="day" />);
    const svg = container.querySelector('svg')!;
    expect(svg).toHaveAttribute('viewBox', '0 0 500 200');
    const sent = coordinates(container.querySelector('[data-series="sent"]')!.getAttribute('d')!);
    const received = coordinates(container.querySelector('[data-series="received"]')!.getAttribute('d')!);
    expect(sent).toHaveLength(3);
    expect(received).toHaveLength(3);
    // Higher values sit higher (smaller y): sent peaks on the 2nd day, received on the 3rd.
    expect(sent[1][1]).toBeLessThan(sent[0][1]);
    expect(received[2][1]).toBeLessThan(received[1][1]);
    expect(screen.getAllByTestId('x-label').map((label) => label.textContent)).toEqual([
      'Mar 1',
      'Mar 2',
      'Mar 3',
    ]);
    expect(screen.getAllByTestId('y-label').map((label) => label.textContent)).toEqual([
      '0',
      '10',
      '20',
      '30',
      '40',
    ]);
    expect(screen.getByRole('list', { name: 'Legend' })).toHaveTextContent('SentReceived');
  });

  it('reads out a point under the arrow keys', () => {
    render(<MessageVolumeChart points={points} bucket="day" />);
    const chart = screen.getByRole('slider', { name: /Message Volume/ });
    fireEvent.keyDown(chart, { key: 'ArrowRight' });
    fireEvent.keyDown(chart, { key: 'ArrowRight' });
    expect(screen.getByTestId('chart-readout')).toHaveTextContent('Mon, Mar 2, 2026Sent: 40Received: 5');
    fireEvent.keyDown(chart, { key: 'End' });
    expect(chart).toHaveAttribute('aria-valuetext', 'Tue, Mar 3, 2026: Sent 20, Received 9');
    fireEvent.keyDown(chart, { key: 'Escape' });
    expect(screen.getByTestId('chart-readout')).toBeEmptyDOMElement();
  });

  it('offers every point as a table for screen readers', () => {
    render(<MessageVolumeChart points={points} bucket="day" />);
    const table = screen.getByRole('table', { name: 'Message Volume per day (UTC)' });
    const rows = table.querySelectorAll('tbody tr');
    expect([...rows].map((row) => row.textContent)).toEqual([
      'Sun, Mar 1, 2026102',
      'Mon, Mar 2, 2026405',
      'Tue, Mar 3, 2026209',
    ]);
  });
});
