import { afterEach, beforeEach, describe, expect, it, type Mock, vi } from 'vitest';
import { ApiError, apiRequest, getServerMessage, setLogoutHandler } from './api-client.ts';

function json(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

const expired = () => json(401, { success: false, message: 'Token has expired', error: 'token_expired' });

function bearerOf(call: unknown[]) {
  const init = call[1] as RequestInit;
  return new Headers(init.headers).get('Authorization');
}

function urlOf(call: unknown[]) {
  return String(call[0]);
}

let fetchMock: Mock<(url: string, init: RequestInit) => Promise<Response>>;
let logout: Mock<() => void>;
let unregister: () => void;

beforeEach(() => {
  fetchMock = vi.fn();
  vi.stubGlobal('fetch', fetchMock);
  logout = vi.fn();
  unregister = setLogoutHandler(logout);
  localStorage.setItem('accessToken', 'access-1');
  localStorage.setItem('refreshToken', 'refresh-1');
});

afterEach(() => unregister());

describe('apiRequest', () => {
  it('sends the stored bearer token and unwraps the success envelope', async () => {
    fetchMock.mockResolvedValueOnce(json(200, { success: true, data: { user: { id: 1 } } }));

    const data = await apiRequest<{ user: { id: number } }>('/auth/profile');

    expect(data).toEqual({ user: { id: 1 } });
    expect(urlOf(fetchMock.mock.calls[0])).toBe('/api/v1/auth/profile');
    expect(bearerOf(fetchMock.mock.calls[0])).toBe('Bearer access-1');
  });

  it('sends a JSON body and drops empty query values', async () => {
    fetchMock.mockResolvedValueOnce(json(200, { success: true, data: {} }));

    await apiRequest('/admin/users', {
      method: 'POST',
      body: { a: 1 },
      query: { page: 2, role: undefined, q: null },
    });

    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/v1/admin/users?page=2');
    expect(init.method).toBe('POST');
    expect(init.body).toBe('{"a":1}');
    expect(new Headers(init.headers).get('Content-Type')).toBe('application/json');
  });

  it('sends FormData as it is, leaving its multipart Content-Type to the browser, and again after a refresh', async () => {
    fetchMock
      .mockResolvedValueOnce(expired())
      .mockResolvedValueOnce(
        json(200, { success: true, data: { accessToken: 'access-2', refreshToken: 'refresh-2' } }),
      )
      .mockResolvedValueOnce(json(200, { success: true, data: { imported: 1 } }));
    const form = new FormData();
    form.set('file', new File(['phone\n0712345678\n'], 'list.csv', { type: 'text/csv' }));

    const data = await apiRequest('/services/1/subscribers/import', { method: 'POST', body: form });

    expect(data).toEqual({ imported: 1 });
    for (const call of [fetchMock.mock.calls[0], fetchMock.mock.calls[2]] as [string, RequestInit][]) {
      expect(call[1].body).toBe(form);
      expect(new Headers(call[1].headers).get('Content-Type')).toBeNull();
    }
    expect(bearerOf(fetchMock.mock.calls[2])).toBe('Bearer access-2');
  });

  it('throws an ApiError carrying status, message, error and details', async () => {
    fetchMock.mockResolvedValueOnce(
      json(400, {
        success: false,
        message: 'Invalid input',
        error: 'validation_failed',
        details: ['email: bad'],
      }),
    );

    const error = await apiRequest('/admin/users').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, message: 'Invalid input', error: 'validation_failed' });
    expect((error as ApiError).details).toEqual(['email: bad']);
    expect(getServerMessage(error)).toBe('Invalid input');
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('reports a response without an envelope as not coming from the server', async () => {
    fetchMock.mockResolvedValueOnce(new Response('<html>Bad gateway</html>', { status: 502 }));

    const error = await apiRequest('/reports').catch((caught: unknown) => caught);

    expect(error).toMatchObject({ status: 502, fromServer: false });
    expect(getServerMessage(error)).toBeUndefined();
  });

  it('turns a network failure into an ApiError with status 0', async () => {
    fetchMock.mockRejectedValueOnce(new TypeError('Failed to fetch'));

    const error = await apiRequest('/reports').catch((caught: unknown) => caught);

    expect(error).toMatchObject({ status: 0, error: 'network_error' });
    expect(logout).not.toHaveBeenCalled();
  });

  it('refreshes once after a session-expiry answer, stores both rotated tokens and retries', async () => {
    fetchMock
      .mockResolvedValueOnce(expired())
      .mockResolvedValueOnce(
        json(200, { success: true, data: { accessToken: 'access-2', refreshToken: 'refresh-2' } }),
      )
      .mockResolvedValueOnce(json(200, { success: true, data: { ok: true } }));

    const data = await apiRequest('/dashboard/stats');

    expect(data).toEqual({ ok: true });
    expect(fetchMock).toHaveBeenCalledTimes(3);
    const refreshCall = fetchMock.mock.calls[1] as [string, RequestInit];
    expect(refreshCall[0]).toBe('/api/v1/auth/refresh');
    expect(JSON.parse(String(refreshCall[1].body))).toEqual({ refreshToken: 'refresh-1' });
    expect(bearerOf(fetchMock.mock.calls[2])).toBe('Bearer access-2');
    expect(localStorage.getItem('accessToken')).toBe('access-2');
    expect(localStorage.getItem('refreshToken')).toBe('refresh-2');
    expect(logout).not.toHaveBeenCalled();
  });

  it('recognises an expired session by its message as well as by a 401', async () => {
    fetchMock
      .mockResolvedValueOnce(json(400, { success: false, message: 'JWT expired', error: 'bad_request' }))
      .mockResolvedValueOnce(
        json(200, { success: true, data: { accessToken: 'access-2', refreshToken: 'refresh-2' } }),
      )
      .mockResolvedValueOnce(json(200, { success: true, data: 'ok' }));

    await expect(apiRequest('/services')).resolves.toBe('ok');
    expect(urlOf(fetchMock.mock.calls[1])).toBe('/api/v1/auth/refresh');
  });

  it('shares one refresh between concurrent requests', async () => {
    let releaseRefresh: (response: Response) => void = () => {};
    fetchMock.mockImplementation(async (url, init) => {
      if (url.endsWith('/auth/refresh'))
        return new Promise<Response>((resolve) => (releaseRefresh = resolve));
      const bearer = new Headers(init.headers).get('Authorization');
      if (bearer === 'Bearer access-1') return expired();
      return json(200, { success: true, data: url });
    });

    const requests = Promise.all([apiRequest('/a'), apiRequest('/b'), apiRequest('/c')]);
    await vi.waitFor(() =>
      expect(fetchMock.mock.calls.filter((call) => urlOf(call).endsWith('/refresh'))).toHaveLength(1),
    );
    // Let every first attempt fail and join the refresh before it answers.
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(4));
    releaseRefresh(
      json(200, { success: true, data: { accessToken: 'access-2', refreshToken: 'refresh-2' } }),
    );

    await expect(requests).resolves.toEqual(['/api/v1/a', '/api/v1/b', '/api/v1/c']);
    expect(fetchMock.mock.calls.filter((call) => urlOf(call).endsWith('/auth/refresh'))).toHaveLength(1);
    expect(fetchMock).toHaveBeenCalledTimes(7);
  });

  it('retries with the already renewed token when another request refreshed meanwhile', async () => {
    fetchMock.mockImplementationOnce(async () => {
      localStorage.setItem('accessToken', 'access-2');
      return expired();
    });
    fetchMock.mockResolvedValueOnce(json(200, { success: true, data: 'ok' }));

    await expect(apiRequest('/a')).resolves.toBe('ok');
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(bearerOf(fetchMock.mock.calls[1])).toBe('Bearer access-2');
  });

  it('clears both tokens and logs out when the refresh fails', async () => {
    fetchMock
      .mockResolvedValueOnce(expired())
      .mockResolvedValueOnce(
        json(401, { success: false, message: 'Invalid or expired refresh token', error: 'unauthorized' }),
      );

    const error = await apiRequest('/services').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ApiError);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(localStorage.getItem('accessToken')).toBeNull();
    expect(localStorage.getItem('refreshToken')).toBeNull();
    expect(logout).toHaveBeenCalledTimes(1);
  });

  it('logs out without calling the server when no refresh token is stored', async () => {
    localStorage.removeItem('refreshToken');
    fetchMock.mockResolvedValueOnce(expired());

    await expect(apiRequest('/services')).rejects.toBeInstanceOf(ApiError);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(logout).toHaveBeenCalledTimes(1);
  });

  it('retries only once: a second session-expiry answer ends the session', async () => {
    fetchMock
      .mockResolvedValueOnce(expired())
      .mockResolvedValueOnce(
        json(200, { success: true, data: { accessToken: 'access-2', refreshToken: 'refresh-2' } }),
      )
      .mockResolvedValueOnce(expired());

    const error = await apiRequest('/services').catch((caught: unknown) => caught);

    expect(error).toMatchObject({ status: 401, message: 'Token has expired' });
    expect(fetchMock).toHaveBeenCalledTimes(3);
    expect(localStorage.getItem('accessToken')).toBeNull();
    expect(localStorage.getItem('refreshToken')).toBeNull();
    expect(logout).toHaveBeenCalledTimes(1);
  });

  it('keeps the session when the retry fails for another reason', async () => {
    fetchMock
      .mockResolvedValueOnce(expired())
      .mockResolvedValueOnce(
        json(200, { success: true, data: { accessToken: 'access-2', refreshToken: 'refresh-2' } }),
      )
      .mockResolvedValueOnce(json(404, { success: false, message: 'Service not found', error: 'not_found' }));

    await expect(apiRequest('/services/9')).rejects.toMatchObject({ status: 404 });
    expect(localStorage.getItem('accessToken')).toBe('access-2');
    expect(logout).not.toHaveBeenCalled();
  });

  it('does not refresh for calls made without a bearer token, such as sign-in', async () => {
    fetchMock.mockResolvedValueOnce(
      json(401, { success: false, message: 'Invalid email or password', error: 'unauthorized' }),
    );

    const error = await apiRequest('/auth/login', { method: 'POST', body: {}, auth: false }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toMatchObject({ status: 401, message: 'Invalid email or password' });
    expect(bearerOf(fetchMock.mock.calls[0])).toBeNull();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(logout).not.toHaveBeenCalled();
    expect(localStorage.getItem('refreshToken')).toBe('refresh-1');
  });

  it('does not refresh when asked not to (sign-out)', async () => {
    fetchMock.mockResolvedValueOnce(expired());

    await expect(
      apiRequest('/auth/logout', { method: 'POST', refreshOnExpiry: false }),
    ).rejects.toMatchObject({
      status: 401,
    });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(logout).not.toHaveBeenCalled();
  });
});
