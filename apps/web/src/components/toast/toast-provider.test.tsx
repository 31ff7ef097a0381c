import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ToastProvider, type TToastType, useToast } from './toast-provider.tsx';

function Trigger({ message, type, duration }: { message: string; type?: TToastType; duration?: number }) {
  const { showToast } = useToast();
  return (
    <button type="button" onClick={() => showToast(message, type, duration)}>
      show {message}
    </button>
  );
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('toasts', () => {
  it('closes a toast by itself after 5000 ms by default', () => {
    render(
      <ToastProvider>
        <Trigger message="Saved" type="success" />
      </ToastProvider>,
    );

    fireEvent.click(screen.getByRole('button', { name: 'show Saved' }));
    expect(screen.getByRole('status')).toHaveTextContent('Saved');

    act(() => vi.advanceTimersByTime(4999));
    expect(screen.getByText('Saved')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByText('Saved')).not.toBeInTheDocument();
  });

  it('keeps a toast whose duration is 0 or less until it is dismissed', () => {
    render(
      <ToastProvider>
        <Trigger message="Failed to load dashboard data" type="error" duration={0} />
      </ToastProvider>,
    );

    fireEvent.click(screen.getByRole('button', { name: /show Failed/ }));
    act(() => vi.advanceTimersByTime(60_000));
    expect(screen.getByRole('alert')).toHaveTextContent('Failed to load dashboard data');

    fireEvent.click(screen.getByRole('button', { name: 'Dismiss notification' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('stacks several toasts', () => {
    render(
      <ToastProvider>
        <Trigger message="One" />
        <Trigger message="Two" type="warning" />
      </ToastProvider>,
    );

    fireEvent.click(screen.getByRole('button', { name: 'show One' }));
    fireEvent.click(screen.getByRole('button', { name: 'show Two' }));

    expect(screen.getAllByRole('status').map((toast) => toast.textContent)).toEqual(['One', 'Two']);
  });
});
