/** A response with its status and parsed JSON body. */
export interface JsonResponse {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response fields
  body: any;
}

/** Minimal JSON-over-HTTP client for tests against a real server. */
export class JsonClient {
  constructor(readonly baseUrl: string) {}

  /** POSTs a body (a string is sent as is, so tests can send broken JSON). */
  async post(
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<JsonResponse> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  async get(path: string): Promise<JsonResponse> {
    const response = await fetch(`${this.baseUrl}${path}`);
    return { status: response.status, body: await response.json() };
  }
}
