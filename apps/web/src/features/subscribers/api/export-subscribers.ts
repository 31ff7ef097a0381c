import { useMutation } from '@tanstack/react-query';
import { ApiError, api } from '../../../lib/api-client.ts';
import { getAccessToken } from '../../../lib/token-storage.ts';

type TExportFilters = { status?: string; search?: string; companyId?: number };

const API_BASE_URL: string = import.meta.env.VITE_API_BASE_URL ?? '/api/v1';

function exportUrl(filters: TExportFilters) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters))
    if (value !== undefined && value !== '') params.set(key, String(value));
  const search = params.toString();
  return `${API_BASE_URL}/subscriptions/subscribers/export${search ? `?${search}` : ''}`;
}

const fetchCsv = (url: string) =>
  fetch(url, { headers: { Accept: 'text/csv', Authorization: `Bearer ${getAccessToken() ?? ''}` } });

/**
 * Downloads the CSV. The shared client speaks JSON only, so this fetches the file itself; an
 * expired session is renewed through the client (a profile call) and the download tried once more.
 */
export async function downloadSubscribersCsv(filters: TExportFilters) {
  const url = exportUrl(filters);
  let response = await fetchCsv(url);
  if (response.status === 401) {
    await api.get('/auth/profile');
    response = await fetchCsv(url);
  }
  if (!response.ok) {
    const payload = (await response.json().catch(() => undefined)) as { message?: string } | undefined;
    throw new ApiError({
      status: response.status,
      message: payload?.message ?? `Export failed with status ${response.status}`,
      error: 'export_failed',
      fromServer: Boolean(payload?.message),
    });
  }
  const blob = await response.blob();
  const name =
    /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'subscribers.csv';
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

export function useExportSubscribers() {
  return useMutation({ mutationFn: downloadSubscribersCsv });
}
