import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, expect, it, vi } from 'vitest';
import { useImportSubscribers } from './import-subscribers.ts';

afterEach(() => vi.unstubAllGlobals());

it('uploads the chosen file as multipart form data (field "file"), not as JSON text', async () => {
  const fetchMock = vi.fn(async (_url: string, _init: RequestInit) =>
    Response.json({ success: true, data: { imported: 2 } }),
  );
  vi.stubGlobal('fetch', fetchMock);
  const queryClient = new QueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
  const { result } = renderHook(() => useImportSubscribers(), { wrapper });
  const file = new File(['phone\n0712345678\n0712345679\n'], 'list.csv', { type: 'text/csv' });

  await result.current.mutateAsync({ serviceId: 7, file });

  const [url, init] = fetchMock.mock.calls[0];
  expect(url).toBe('/api/v1/services/7/subscribers/import');
  expect(init.method).toBe('POST');
  expect(init.body).toBeInstanceOf(FormData);
  const sent = (init.body as FormData).get('file');
  expect(sent).toBeInstanceOf(File);
  expect((sent as File).name).toBe('list.csv');
  expect(await (sent as File).text()).toBe('phone\n0712345678\n0712345679\n');
  // Left to the browser, which writes multipart/form-data with its boundary.
  expect(new Headers(init.headers).get('Content-Type')).toBeNull();
  // What the request really carries, as fetch would encode it.
  const encoded = new Request('http://console.test/', { method: 'POST', body: init.body });
  expect(encoded.headers.get('Content-Type')).toMatch(/^multipart\/form-data; boundary=/);
});
