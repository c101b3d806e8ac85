export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface HttpClient {
  request<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResponse<T>>;
  get<T = any>(path: string): Promise<HttpResponse<T>>;
  post<T = any>(path: string, body?: unknown): Promise<HttpResponse<T>>;
  put<T = any>(path: string, body?: unknown): Promise<HttpResponse<T>>;
  patch<T = any>(path: string, body?: unknown): Promise<HttpResponse<T>>;
  delete<T = any>(path: string): Promise<HttpResponse<T>>;
}

/** A JSON client over real HTTP; sends the API key when given one. */
export function createHttpClient(baseUrl: string, apiKey?: string): HttpClient {
  async function request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const init: RequestInit = { method, headers: { ...headers } };
    if (apiKey) (init.headers as Record<string, string>).authorization = `Bearer ${apiKey}`;
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(baseUrl + path, init);
    const text = await response.text();
    const isJson = response.headers.get('content-type')?.includes('json');
    return { status: response.status, headers: response.headers, body: isJson && text ? JSON.parse(text) : text };
  }
  return {
    request,
    get: (path) => request('GET', path),
    post: (path, body) => request('POST', path, body),
    put: (path, body) => request('PUT', path, body),
    patch: (path, body) => request('PATCH', path, body),
    delete: (path) => request('DELETE', path),
  };
}
